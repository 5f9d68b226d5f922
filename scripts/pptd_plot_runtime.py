"""Adapter for rule pptd_plot_runtime: PPTD Fig. 8 "Efficiency Study" (Li et al., KDD 2018).

fig8.csv: iterations to convergence and average noise per condition (mean, std, R);
fig8_timings.csv: the wall-clock medians (machine- and load-dependent, never judged).
"""

import pandas as pd

from crowdpriv.pptd import plot_runtime, summarise_runtime
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
fig8, timings = summarise_runtime(pd.read_csv(snakemake.input.work),
                                  pd.read_csv(snakemake.input.timings))
write_csv(fig8, snakemake.output.csv)
write_csv(timings, snakemake.output.timings)
plot_runtime(fig8, timings, [snakemake.output.png, snakemake.output.svg])
