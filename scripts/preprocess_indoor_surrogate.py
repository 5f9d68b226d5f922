"""Adapter for rule preprocess_indoor_surrogate (SURROGATE of the indoor floorplan data)."""

from crowdpriv.data import simulate_indoor
from crowdpriv.runtime import log_to, write_csv
from crowdpriv.seeds import derive_rng

logger = log_to(snakemake.log[0])
cfg = snakemake.params.cfg
claims, truth, users = simulate_indoor(
    **{key: tuple(v) if isinstance(v, list) else v for key, v in cfg.items()},
    rng=derive_rng(snakemake.params.seed, "dataset", "indoor_surrogate"),
)
logger.info("indoor_surrogate: %d claims by %d users on %d segments", len(claims),
            len(users), len(truth))
write_csv(claims, snakemake.output.claims)
write_csv(truth, snakemake.output.truth)
write_csv(users, snakemake.output.sources)
