"""LDP-sparse Fig. 5: MAE change vs ε on one real dataset, all methods x repetitions.

Adapter: reads the processed claims/truth tables, calls
``crowdpriv.ldp_sparse.run_real_dataset``, writes the per-repetition CSV.
"""

from crowdpriv.runtime import Progress, start_job

logger = start_job(snakemake)  # noqa: F821

from crowdpriv.ldp_sparse import run_real_dataset  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402
from crowdpriv.tables import align_truth, claims_to_matrix, read_claims, read_truth  # noqa: E402

p = snakemake.params  # noqa: F821
labels = dict(domain_size=p.common["real_domain_size"], domain_key="ldp_sparse.real_domain_size")
cm = claims_to_matrix(read_claims(snakemake.input.claims, **labels))  # noqa: F821
truth = align_truth(read_truth(snakemake.input.truth, **labels), cm.tasks,  # noqa: F821
                    snakemake.input.truth)  # noqa: F821
progress = Progress(logger, snakemake.output[0])  # noqa: F821
raw = run_real_dataset(
    cm.values,
    truth,
    dataset=snakemake.wildcards.dataset,  # noqa: F821
    epsilons=p.experiment["epsilons"],
    methods=p.experiment["methods"],
    repetitions=p.common["repetitions"],
    seed=p.seed,
    domain_size=p.common["real_domain_size"],
    d=p.common["d"],
    mechanisms=p.common["mechanisms"],
    inference=p.common["inference"],
    max_batch_cells=p.common["max_batch_cells"],
    progress=progress,
)
progress.finish()
logger.info("%d rows", len(raw))
write_csv(raw, snakemake.output[0])  # noqa: F821
