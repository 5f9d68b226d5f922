"""Adapter for rule priscrowd_timing: PrisCrowd Fig. 5 wall-clock times for one dataset.

Huai et al., IJCAI 2019, Sec. 5 "Computational Cost": run time of the synthetic-claims
generation (phase 2) for the objects with ground truth, vs m, with and without privacy test.
Median of fig5.timing_calls timed calls after a warm-up (``crowdpriv.priscrowd.timing_run``).
Wall-clock times depend on the machine and its load: they are plotted, never judged, and exempt
from byte identity.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.priscrowd import timing_run
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
dataset = snakemake.wildcards.dataset
table = timing_run(snakemake.params.config["priscrowd"], dataset, snakemake.input.claims,
                   snakemake.input.truth, seed=int(snakemake.params.seed))
write_csv(table, snakemake.output.csv)
logger.info("%s: %d timings", dataset, len(table))
finish_job()
