"""Adapter for rule priscrowd_run: PrisCrowd Table 1 / Fig. 3 / Fig. 4 data for one dataset.

Huai et al., IJCAI 2019, Sec. 5 "Accuracy comparison", "Case study", "The effect of the number
of sampled claims". Fits the weights (phase 1), releases m claims per object with ground truth
by Algorithm 1 (PrisCrowd, Uniform) and by Laplace noise (Basic), R repetitions in one job, and
writes the per-repetition tables, including Fig. 5's deterministic work (candidates tested).
Built by ``crowdpriv.priscrowd.dataset_run``, which the readings job calls too.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.priscrowd import dataset_run
from crowdpriv.runtime import Progress, finish_job, start_job, write_csv

logger = start_job(snakemake)
dataset = snakemake.wildcards.dataset
out, dropped = dataset_run(
    snakemake.params.config["priscrowd"], dataset, snakemake.input.claims, snakemake.input.truth,
    seed=int(snakemake.params.seed),
    progress=Progress(logger, f"PrisCrowd on {dataset}", total=3, every=0.0),
)
logger.info("%s: dropped %d single-claim objects", dataset, dropped)
for key, df in out.items():
    write_csv(df, getattr(snakemake.output, key))
logger.info("%s: %s", dataset, out["info"].to_dict("records"))
finish_job()
