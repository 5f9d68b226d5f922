"""LDP-sparse Fig. 2-4: one synthetic sparsity point, all ε x methods x repetitions.

Adapter: reads snakemake params, calls ``crowdpriv.ldp_sparse.run_synthetic_point``, writes the
per-repetition CSV.
"""

from crowdpriv.runtime import Progress, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import run_synthetic_point  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
exp = p.experiment
progress = Progress(logger, snakemake.output[0])  # noqa: F821
raw = run_synthetic_point(
    experiment=snakemake.wildcards.experiment,  # noqa: F821
    n_workers=exp["workers"],
    n_tasks=exp["tasks"],
    sparsity=float(snakemake.wildcards.sparsity),  # noqa: F821
    epsilons=exp["epsilons"],
    methods=exp["methods"],
    repetitions=p.common["repetitions"],
    seed=p.seed,
    domain_size=p.common["synthetic_domain_size"],
    d=p.common["d"],
    generator=p.common["generator"],
    mechanisms=p.common["mechanisms"],
    inference=p.common["inference"],
    max_batch_cells=p.common["max_batch_cells"],
    progress=progress,
)
progress.finish()
logger.info("%d rows", len(raw))
write_csv(raw, snakemake.output[0])  # noqa: F821
