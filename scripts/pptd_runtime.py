"""Adapter for rule pptd_runtime: PPTD Fig. 8 data (Li et al., KDD 2018), "Efficiency Study".

Truth discovery on original vs perturbed synthetic data across noise levels with the same
convergence threshold: the iterations to convergence per repetition (deterministic, judged) and
the wall-clock time of the call alone (median of fig8.timing_calls calls after a warm-up; NOT
deterministic, plotted only).
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.pptd import runtime_params, runtime_study
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
work, timings = runtime_study(seed=int(snakemake.params.seed),
                               **runtime_params(snakemake.params.config["pptd"]))
write_csv(work, snakemake.output.work)
write_csv(timings, snakemake.output.timings)
logger.info("%d conditions x repetitions", len(work))
finish_job()
