"""Adapter for rule pptd_claims: PPTD's claims (Li et al., KDD 2018, Sec. 5) checked on the
per-repetition results (crowdpriv.pptd._claims), with the paired tests of config `claims`."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import pandas as pd

from crowdpriv.claims import write_claims
from crowdpriv.pptd import evaluate_claims
from crowdpriv.runtime import finish_job, start_job
from crowdpriv.significance import Significance

logger = start_job(snakemake)
claims = evaluate_claims(
    {name: pd.read_csv(path) for name, path in snakemake.input.items()},
    thresholds=dict(snakemake.params.thresholds),
    significance=Significance.from_mapping(snakemake.params.significance),
    figures=list(snakemake.params.figures),
)
write_claims(
    claims, snakemake.output.csv, snakemake.output.md,
    title="PPTD (Li et al., KDD 2018): claims checked",
    notes="Decided by scripts/crowdpriv/pptd/_claims.py from the per-repetition tables "
    "(results/pptd/raw/, see docs/claims.md). Figs. 6 and 7 use indoor_surrogate, a SURROGATE "
    "of the paper's indoor data. Run-time claims are judged on iterations to convergence; "
    "wall-clock times (fig8_timings.csv) are never judged.",
)
logger.info("%s", claims[["claim_id", "status"]].to_string())
finish_job()
