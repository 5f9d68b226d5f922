"""Adapter for rule priscrowd_table1: PrisCrowd Table 1 (ISE/SISE on the real datasets).

Huai et al., IJCAI 2019, Table 1 "Accuracy comparison on the real-world datasets": PrisCrowd,
Uniform, Basic(Strong/Normal/Weak) on population, stock and indoor; here stock_surrogate and
indoor_surrogate. Ours (mean, std, R) beside the paper's printed values.
"""

import pandas as pd

from crowdpriv.priscrowd import plot_table1, summarise_table1
from crowdpriv.aggregate import in_order
from crowdpriv.runtime import start_job, write_csv, write_markdown

logger = start_job(snakemake)
runs = pd.concat([pd.read_csv(p) for p in snakemake.input.runs], ignore_index=True)
info = pd.concat([pd.read_csv(p) for p in snakemake.input.info], ignore_index=True)
n_objects = info.set_index("dataset")["tasks_with_truth"]  # the tasks scored
table = summarise_table1(runs, pd.read_csv(snakemake.input.paper), n_objects=n_objects)
table = in_order(table, "dataset", runs["dataset"])  # the config's (the paper's) order
write_csv(table, snakemake.output.csv)
write_markdown(
    table[["measure", "dataset", "method", "mean", "std", "R", "paper", "ratio_to_paper",
           "per_object", "per_object_ratio_to_paper"]],
    snakemake.output.md,
    title="PrisCrowd Table 1: ISE and SISE, ours vs paper (stock and indoor are surrogates)",
    notes="Ours: mean and std over R repetitions of the release, summed over the objects with "
    "ground truth (App. D); per_object: the same divided by their number (the paper's Table 1 "
    "satisfies SISE >= ISE^2, true of averages, in 12 of 15 cells and SISE <= ISE^2, true of "
    "sums, in 3); paper: Huai et al. Table 1 (population, stock, indoor; our "
    "stock_surrogate/indoor_surrogate are simulated sources).",
)
plot_table1(table, [snakemake.output.png, snakemake.output.svg])
