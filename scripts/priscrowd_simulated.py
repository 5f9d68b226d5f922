"""Adapter for rule priscrowd_simulated: PrisCrowd Table 2 data for one fraction p.

Huai et al., IJCAI 2019, App. E: 30 users (30p unreliable, U(0, 10); the rest N(5, 0.5)), 50
objects, m = 30 released claims; R simulated datasets in one job.
"""

from crowdpriv.priscrowd import Params, run_simulated
from crowdpriv.runtime import start_job, write_csv
from crowdpriv.seeds import derive_rng

logger = start_job(snakemake)
p = float(snakemake.wildcards.p)
sim = dict(snakemake.params.sim)
out = run_simulated(
    p, Params.from_mapping(snakemake.params.cfg), n_users=sim["workers"],
    n_objects=sim["tasks"], mu=sim["mu"], sigma=sim["sigma"], low=sim["low"],
    high=sim["high"], rng=derive_rng(int(snakemake.params.seed), "priscrowd", "simulated", p),
)
for key in ("table", "release"):
    out[key].insert(0, "p", p)
    write_csv(out[key], getattr(snakemake.output, key))
logger.info("p = %s: %d rows", p, len(out["table"]))
