"""LDP-sparse Fig. 5: MAE change vs ε on one real dataset, all methods x repetitions.

Adapter: reads the processed claims/truth tables, calls
``crowdpriv.ldp_sparse.run_real_dataset``, writes the per-repetition CSV.
"""

from crowdpriv.runtime import log_to

logger = log_to(snakemake.log[0])  # noqa: F821

from crowdpriv.ldp_sparse import run_real_dataset  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402
from crowdpriv.tables import claims_to_matrix, read_claims, read_truth  # noqa: E402

p = snakemake.params  # noqa: F821
cm = claims_to_matrix(read_claims(snakemake.input.claims))  # noqa: F821
truth = (
    read_truth(snakemake.input.truth)  # noqa: F821
    .set_index("task")["truth"]
    .reindex(cm.tasks)
    .to_numpy()
)
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
)
logger.info("%d rows", len(raw))
write_csv(raw, snakemake.output[0])  # noqa: F821
