"""Adapter for rule benchmark_dataset: one dataset of the inference benchmark (docs/inference.md)
released by every configured mechanism at every ε, R times, and every inference method that
applies on the same releases (crowdpriv.benchmark). Writes the long per-repetition table."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.benchmark import run_dataset_job
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
table = run_dataset_job(snakemake.input.claims, snakemake.input.truth, snakemake.params.config,
                        seed=int(snakemake.params.seed), progress=logger.info)
logger.info("%s: %d rows", snakemake.output.csv, len(table))
write_csv(table, snakemake.output.csv)
finish_job()
