"""Adapter for rule preprocess_adultcontent (LDP-sparse's AdultContent)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import read_adultcontent
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
claims, truth = read_adultcontent(
    snakemake.input.labels,
    snakemake.input.gold,
    snakemake.input.categories,
    duplicate_policy=snakemake.params.cfg["duplicate_policy"],
)
logger.info("adultcontent: %d answers, %d gold tasks", len(claims), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
finish_job()
