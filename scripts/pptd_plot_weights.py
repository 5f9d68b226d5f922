"""Adapter for rule pptd_plot_weights: PPTD Fig. 7 "Weight Comparison" (Li et al., KDD 2018).

The figure CSV summarises the per-perturbation agreement and errors (mean, std, R per
measure); the figure shows the estimated and true weights of the shown workers.
"""

import pandas as pd

from crowdpriv.aggregate import summarise
from crowdpriv.pptd import plot_weights
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
reps = pd.read_csv(snakemake.input.reps)
keys = ["dataset", "epsilon", "lambda1", "lambda2"]
long = reps.melt(id_vars=keys + ["rep"], var_name="measure")
write_csv(summarise(long, keys + ["measure"], "value"), snakemake.output.csv)
plot_weights(pd.read_csv(snakemake.input.shown), [snakemake.output.png, snakemake.output.svg],
             unit=snakemake.params.unit)
