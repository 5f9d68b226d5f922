"""Adapter for rule priscrowd_fig5: PrisCrowd Fig. 5 "Running time vs. number of sampled claims".

Per dataset and m (fig5.m), with and without the privacy test: the candidates Algorithm 1 tests
and the kernel evaluations of the test (deterministic work, from the release runs; fig5.csv
mean/std/R and fig5_reps.csv per repetition, which the claims judge), and the wall-clock time
of phase 2 (fig5_timings.csv, median of the timed calls; machine-dependent, never judged).
"""

import pandas as pd

from crowdpriv.priscrowd import plot_fig5, summarise_fig5
from crowdpriv.aggregate import in_order
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
work = pd.concat([pd.read_csv(p) for p in snakemake.input.work], ignore_index=True)
timings = pd.concat([pd.read_csv(p) for p in snakemake.input.timings], ignore_index=True)
ms = list(snakemake.params.m)
table = in_order(summarise_fig5(work, ms), "dataset", work["dataset"])  # the config's order
write_csv(table, snakemake.output.csv)
write_csv(work.loc[work["m"].isin(ms)].reset_index(drop=True), snakemake.output.reps)
write_csv(timings, snakemake.output.timings)
# Alg. 1 stops an object after max(max_candidates, m) candidates: the ceiling of the top row
release = pd.concat([pd.read_csv(p) for p in snakemake.input.release], ignore_index=True)
per_object = max(int(snakemake.params.max_candidates), max(ms))
cap = (release.groupby("dataset")["tasks"].max() * per_object).to_dict()
plot_fig5(table, timings, [snakemake.output.png, snakemake.output.svg], cap=cap)
