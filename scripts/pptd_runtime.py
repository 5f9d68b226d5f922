"""Adapter for rule pptd_runtime: PPTD Fig. 8 data (Li et al., KDD 2018), "Efficiency Study".

Run time of truth discovery on original vs perturbed synthetic data across noise levels with
the same convergence threshold, and the iteration counts. Run times come from a timer around
the truth-discovery call only (median of n_timing calls) and are NOT deterministic.
"""

from crowdpriv.pptd import runtime_study
from crowdpriv.runtime import log_to, write_csv

logger = log_to(snakemake.log[0])
table = runtime_study(seed=int(snakemake.params.seed), **dict(snakemake.params.exp))
write_csv(table, snakemake.output.csv)
logger.info("%s", table.to_string())
