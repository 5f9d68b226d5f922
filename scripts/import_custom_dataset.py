"""Adapter for rule import_custom_dataset: a user's own claims/truth CSVs into data/processed."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import import_claims_table
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
claims, truth = import_claims_table(snakemake.input.claims, snakemake.input.get("truth"))
logger.info("%s: %d claims, %d objects with truth", snakemake.wildcards.dataset, len(claims),
            len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
finish_job()
