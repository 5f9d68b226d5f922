"""Adapter for rule preprocess_indoor_surrogate (SURROGATE of the indoor floorplan data)."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.data import simulate_indoor
from crowdpriv.runtime import finish_job, start_job, write_csv
from crowdpriv.seeds import derive_rng

logger = start_job(snakemake)
cfg = {key: tuple(v) if isinstance(v, list) else v
       for key, v in snakemake.params.config["datasets"]["indoor_surrogate"].items()}
claims, truth, users = simulate_indoor(
    n_tasks=cfg.pop("tasks"),
    n_workers=cfg.pop("workers"),
    **cfg,
    rng=derive_rng(snakemake.params.seed, "dataset", "indoor_surrogate"),
)
logger.info("indoor_surrogate: %d claims by %d workers on %d segments", len(claims),
            len(users), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
write_csv(users, snakemake.output.workers)
finish_job()
