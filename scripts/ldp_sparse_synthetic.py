"""LDP-sparse Fig. 2-4: one synthetic sparsity point, all ε x methods x repetitions.

Adapter: reads snakemake params, calls ``crowdpriv.ldp_sparse.synthetic_point`` (the function
the readings job calls too), writes the per-repetition CSV.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import Progress, finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import synthetic_point  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
experiment = snakemake.wildcards.experiment  # noqa: F821
progress = Progress(logger, snakemake.output[0])  # noqa: F821
raw = synthetic_point(
    p.config["ldp_sparse"],
    experiment,
    float(snakemake.wildcards.sparsity),  # noqa: F821
    seed=p.seed,
    progress=progress,
)
progress.finish()
logger.info("%d rows", len(raw))
write_csv(raw, snakemake.output[0])  # noqa: F821
finish_job()
