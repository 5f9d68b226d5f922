"""Adapter for rule pptd_plot_tradeoff: PPTD Figs. 2-6 (Li et al., KDD 2018).

Summarises the per-repetition table into the figure CSV (mean, std, R per setting, ε and
measure) and draws (a) MAE and (b) average added noise against ε (crowdpriv.pptd.plot_tradeoff).
"""

import pandas as pd

from crowdpriv.pptd import plot_tradeoff, summarise_tradeoff
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
summary = summarise_tradeoff(pd.read_csv(snakemake.input.raw))
write_csv(summary, snakemake.output.csv)
plot_tradeoff(summary, snakemake.wildcards.fig, [snakemake.output.png, snakemake.output.svg],
              unit=snakemake.params.unit)
