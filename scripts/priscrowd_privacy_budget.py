"""Adapter for rule priscrowd_privacy_budget: distribution of Theorem 2's (epsilon, delta).

PrisCrowd (Huai et al., IJCAI 2019) Theorem 2, per object, for the combined (PrisCrowd) and
equal (Uniform) seed weights; quantiles per dataset, plus counts of objects outside the theorem
(|U_i| < k) and with infinite epsilon (a zero seed weight).
"""

import pandas as pd

from crowdpriv.priscrowd import plot_budget, summarise_budget
from crowdpriv.aggregate import in_order
from crowdpriv.runtime import start_job, write_csv, write_markdown

logger = start_job(snakemake)
budget = pd.concat([pd.read_csv(p) for p in snakemake.input.budget], ignore_index=True)
table = in_order(summarise_budget(budget), "dataset", budget["dataset"])
write_csv(table, snakemake.output.csv)
write_markdown(table, snakemake.output.md,
               title="PrisCrowd Theorem 2 (epsilon, delta) per object: quantiles")
plot_budget(budget, [snakemake.output.png, snakemake.output.svg])
