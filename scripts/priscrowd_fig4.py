"""Adapter for rule priscrowd_fig4: PrisCrowd Fig. 4 "Accuracy w.r.t. Number of Sampled Claims".

ISE and SISE vs the number m of released claims per object (PrisCrowd, and Uniform for
reference), per dataset; mean, std and R over repetitions.
"""

import pandas as pd

from crowdpriv.priscrowd import plot_fig4, summarise_fig4
from crowdpriv.aggregate import in_order
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
runs = pd.concat([pd.read_csv(p) for p in snakemake.input.runs], ignore_index=True)
table = in_order(summarise_fig4(runs), "dataset", runs["dataset"])  # the config's order
write_csv(table, snakemake.output.csv)
plot_fig4(table, [snakemake.output.png, snakemake.output.svg])
