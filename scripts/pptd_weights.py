"""Adapter for rule pptd_weights: PPTD Fig. 7 data (Li et al., KDD 2018).

"Weight Comparison": CRH's estimated weights vs the true weights (ground truth in place of the
aggregated results) of 7 random workers, on original and perturbed indoor data (here the
indoor_surrogate); per perturbation, the agreement of the two over all workers and the error of
CRH, mean and median against the ground truth; the same once on the original data.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.pptd import weight_comparison, weights_params
from crowdpriv.runtime import finish_job, start_job, write_csv
from crowdpriv.tables import align_truth, claims_to_matrix, read_claims, read_truth

logger = start_job(snakemake)
matrix = claims_to_matrix(read_claims(snakemake.input.claims))
truth = align_truth(read_truth(snakemake.input.truth), matrix.tasks, snakemake.input.truth,
                    require="all")
shown, perturbed, original = weight_comparison(
    matrix.values,
    truth,
    seed=int(snakemake.params.seed),
    **weights_params(snakemake.params.config["pptd"]),
)
shown.insert(shown.columns.get_loc("worker_index") + 1, "worker",
             matrix.workers[shown["worker_index"].to_numpy()])
write_csv(shown, snakemake.output.shown)
write_csv(perturbed, snakemake.output.reps)
write_csv(original, snakemake.output.original)
logger.info("original data:\n%s", original.to_string())
finish_job()
