"""MF sensitivity to d and a ridge term λ (diagnostic for LDP-sparse Fig. 3; not in the paper).

Adapter: reads snakemake params, calls ``crowdpriv.ldp_sparse.run_mf_sensitivity``, writes the
per-repetition CSV.
"""

from crowdpriv.runtime import Progress, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import run_mf_sensitivity  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
exp, common = p.experiment, p.common
progress = Progress(logger, snakemake.output[0])  # noqa: F821
raw = run_mf_sensitivity(
    n_workers=exp["workers"],
    n_tasks=exp["tasks"],
    sparsity=exp["sparsity"],
    epsilons=exp["epsilons"],
    ds=exp["d"],
    ridges=exp["ridge"],
    repetitions=common["repetitions"],
    seed=p.seed,
    domain_size=common["synthetic_domain_size"],
    generator=common["generator"],
    mechanisms=common["mechanisms"],
    inference=common["inference"],
    max_batch_cells=common["max_batch_cells"],
    progress=progress,
)
write_csv(raw, snakemake.output[0])  # noqa: F821
