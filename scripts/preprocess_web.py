"""Adapter for rule preprocess_web (LDP-sparse's Web; Zhou et al.'s full version)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import read_web_mat
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
claims, truth = read_web_mat(snakemake.input.mat)
logger.info("web: %d answers, %d gold tasks", len(claims), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
finish_job()
