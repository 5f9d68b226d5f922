"""Adapter for rule priscrowd_table2: PrisCrowd Table 2 (simulated data, p = 0.1 ... 0.5).

Huai et al., IJCAI 2019, App. E, Table 2 "Results on the Simulated Datasets". Ours (mean, std,
R) beside the paper's printed values ("Basic(Low)" there = our "Basic(Weak)", epsilon = 10).
"""

import pandas as pd

from crowdpriv.priscrowd import plot_table2, summarise_table2
from crowdpriv.runtime import start_job, write_csv, write_markdown

logger = start_job(snakemake)
runs = pd.concat([pd.read_csv(p) for p in snakemake.input.runs], ignore_index=True)
table = summarise_table2(runs, pd.read_csv(snakemake.input.paper))
write_csv(table, snakemake.output.csv)
write_markdown(
    table[["measure", "p", "method", "mean", "std", "R", "paper", "ratio_to_paper"]],
    snakemake.output.md,
    title="PrisCrowd Table 2: simulated data, ours vs paper",
    notes="Ours: mean and std over R simulated datasets; paper: Huai et al. App. E, Table 2.",
)
plot_table2(table, [snakemake.output.png, snakemake.output.svg])
