"""LDP-sparse Fig. 5: MAE change vs ε on one real dataset, all methods x repetitions.

Adapter: reads the processed claims/truth tables, calls ``crowdpriv.ldp_sparse.real_point``
(the function the readings job calls too), writes the per-repetition CSV.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import Progress, finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import load_real, real_point  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
block = p.config["ldp_sparse"]
answers, truth = load_real(snakemake.input.claims, snakemake.input.truth,  # noqa: F821
                           domain_size=block["real_domain_size"])
progress = Progress(logger, snakemake.output[0])  # noqa: F821
raw = real_point(
    block,
    snakemake.wildcards.dataset,  # noqa: F821
    answers,
    truth,
    seed=p.seed,
    progress=progress,
)
progress.finish()
logger.info("%d rows", len(raw))
write_csv(raw, snakemake.output[0])  # noqa: F821
finish_job()
