"""Adapter for rule preprocess_stock_surrogate (SURROGATE: real gold, simulated workers)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import build_stock_dataset
from crowdpriv.runtime import finish_job, start_job, write_csv
from crowdpriv.seeds import derive_rng

logger = start_job(snakemake)
claims, truth, workers = build_stock_dataset(
    list(snakemake.input.gold),
    snakemake.params.config["datasets"]["stock_surrogate"],
    real_claims_files=list(snakemake.input.real_claims),
    rng=derive_rng(snakemake.params.seed, "dataset", "stock_surrogate"),
)
logger.info("stock_surrogate: %d claims, %d tasks", len(claims), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
write_csv(workers, snakemake.output.workers)
finish_job()
