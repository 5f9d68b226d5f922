"""Adapter for rule pptd_claims: PPTD's textual claims (Li et al., KDD 2018, Sec. 5) checked
against the figure CSVs; writes results/pptd/claims.csv (claim, figure, status, evidence)."""

import pandas as pd

from crowdpriv.pptd import evaluate_claims
from crowdpriv.runtime import log_to, write_csv, write_markdown

logger = log_to(snakemake.log[0])
tables = {name: pd.read_csv(path) for name, path in snakemake.input.items()}
tables.pop("fig7")  # the shown users; the claims use the agreement over all users
claims = evaluate_claims(**tables, thresholds=dict(snakemake.params.thresholds))
write_csv(claims, snakemake.output.csv)
write_markdown(
    claims,
    snakemake.output.md,
    title="PPTD (Li et al., KDD 2018): claims checked",
    notes="Computed from results/pptd/fig*.csv by scripts/pptd_claims.py. Fig. 6 and 7 use "
    "indoor_surrogate, a SURROGATE of the paper's indoor data. Fig. 8 run times depend on the "
    "machine and its load.",
)
logger.info("%s", claims.to_string())
