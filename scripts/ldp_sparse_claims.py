"""Adapter for rule ldp_sparse_claims: LDP-sparse's claims (Sun et al., IEEE BigData 2018,
Sec. VI and the slides) decided from the per-repetition results (crowdpriv.ldp_sparse._claims)
with the paired tests of config `claims`; thresholds from `ldp_sparse.claims`."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.claims import write_claims  # noqa: E402
from crowdpriv.ldp_sparse import evaluate_claims  # noqa: E402
from crowdpriv.significance import Significance  # noqa: E402


def read(paths):
    paths = [paths] if isinstance(paths, str) else list(paths)
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


p = snakemake.params  # noqa: F821
claims = evaluate_claims(
    {name: read(paths) for name, paths in snakemake.input.items()},  # noqa: F821
    thresholds=dict(p.thresholds),
    significance=Significance.from_mapping(p.significance),
    figures=list(p.figures),
)
write_claims(
    claims, snakemake.output.csv, snakemake.output.md,  # noqa: F821
    title="LDP-sparse (Sun et al., IEEE BigData 2018): claims checked",
    notes="Decided by scripts/crowdpriv/ldp_sparse/_claims.py from the per-repetition results "
    "(results/ldp_sparse/raw/, see docs/claims.md). Web is a different, larger version than "
    "the paper's.",
)
logger.info("%s", claims[["claim_id", "status"]].to_string())
finish_job()
