"""Adapter for rule priscrowd_release: how many objects Algorithm 1 released, per dataset.

Objects fully / partly / never released (m claims within the candidate cap), the privacy-test
pass rate, single-claim objects dropped before normalisation and objects with fewer than k
claims (PrisCrowd, Huai et al. IJCAI 2019, Alg. 1 and Theorem 2's |U_i| >= k).
"""

import pandas as pd

from crowdpriv.priscrowd import plot_release, summarise_release
from crowdpriv.aggregate import in_order
from crowdpriv.runtime import start_job, write_csv, write_markdown

logger = start_job(snakemake)
release = pd.concat([pd.read_csv(p) for p in snakemake.input.release], ignore_index=True)
info = pd.concat([pd.read_csv(p) for p in snakemake.input.info], ignore_index=True)
sim = pd.concat([pd.read_csv(p) for p in snakemake.input.simulated], ignore_index=True)
sim["dataset"] = "simulated_p" + sim.pop("p").astype(str)
release = pd.concat([release, sim], ignore_index=True)
table = in_order(summarise_release(release, info), "dataset", release["dataset"])
write_csv(table, snakemake.output.csv)
write_markdown(table, snakemake.output.md,
               title="PrisCrowd release counts (means over repetitions; surrogates marked)")
plot_release(table, [snakemake.output.png, snakemake.output.svg])
