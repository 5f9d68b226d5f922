"""Adapter for rule priscrowd_claims: check the PrisCrowd paper's claims on our results.

Huai et al., IJCAI 2019, Sec. 5 and App. E (crowdpriv.priscrowd._claims): decided from the
per-repetition runs with the paired tests of config `claims`; thresholds from
`priscrowd.claims`.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import pandas as pd

from crowdpriv.claims import write_claims
from crowdpriv.priscrowd import evaluate_claims
from crowdpriv.runtime import finish_job, start_job
from crowdpriv.significance import Significance

logger = start_job(snakemake)


def read(paths):
    paths = [paths] if isinstance(paths, str) else list(paths)
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


tables = {name: read(paths) for name, paths in snakemake.input.items()}
claims = evaluate_claims(
    tables,
    datasets=list(snakemake.params.datasets),
    thresholds=dict(snakemake.params.thresholds),
    significance=Significance.from_mapping(snakemake.params.significance),
    figures=list(snakemake.params.figures),
)
write_claims(claims, snakemake.output.csv, snakemake.output.md,
             title="PrisCrowd (Huai et al., IJCAI 2019): the paper's claims on our results",
             notes="Decided by scripts/crowdpriv/priscrowd/_claims.py from the per-repetition "
             "runs (see docs/claims.md). stock_surrogate and indoor_surrogate are SURROGATES.")
logger.info("%s", claims[["claim_id", "status"]].to_string())
finish_job()
