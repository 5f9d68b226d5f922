"""Adapter for rule priscrowd_fig5: PrisCrowd Fig. 5 "Running time vs. number of sampled claims".

Phase-2 wall-clock time vs m, with and without the privacy test, per dataset (mean, std, R
over repeats). Timings are inherently non-deterministic.
"""

import pandas as pd

from crowdpriv.priscrowd import plot_fig5, summarise_fig5
from crowdpriv.runtime import log_to, write_csv

logger = log_to(snakemake.log[0])
runs = pd.concat([pd.read_csv(p) for p in snakemake.input.runs], ignore_index=True)
table = summarise_fig5(runs)
write_csv(table, snakemake.output.csv)
plot_fig5(table, [snakemake.output.png, snakemake.output.svg], rc=snakemake.params.rc)
