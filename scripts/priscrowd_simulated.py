"""Adapter for rule priscrowd_simulated: PrisCrowd Table 2 data for one fraction p.

Huai et al., IJCAI 2019, App. E: 30 users (30p unreliable, U(0, 10); the rest N(5, 0.5)), 50
objects, m = 30 released claims; R simulated datasets in one job. Built by
``crowdpriv.priscrowd.simulated_run``, which the readings job calls too.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.priscrowd import simulated_run
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
p = float(snakemake.wildcards.p)
out = simulated_run(snakemake.params.config["priscrowd"], p, seed=int(snakemake.params.seed))
for key in ("table", "release"):
    write_csv(out[key], getattr(snakemake.output, key))
logger.info("p = %s: %d rows", p, len(out["table"]))
finish_job()
