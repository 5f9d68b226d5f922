"""Adapter for rules pptd_synthetic_tradeoff / pptd_indoor_tradeoff: PPTD Figs. 2-6 data.

Li et al., KDD 2018, "Utility-Privacy Trade-off": MAE between truth discovery on original and
perturbed data, and the average added noise, against the privacy level ε (Figs. 2-5 on
synthetic data with CRH / several λ1 / several S / GTM; Fig. 6 on the indoor data, here the
indoor_surrogate). Writes one per-repetition table (one row per setting, ε and repetition).
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import numpy as np

from crowdpriv.pptd import real_tradeoff, synthetic_tradeoff, tradeoff_params
from crowdpriv.runtime import finish_job, start_job, write_csv
from crowdpriv.tables import align_truth, claims_to_matrix, read_claims, read_truth

logger = start_job(snakemake)
fig = snakemake.wildcards.get("fig", "fig6")  # rule pptd_indoor_tradeoff makes Fig. 6 only
exp = tradeoff_params(snakemake.params.config["pptd"], fig)
seed = int(snakemake.params.seed)
if hasattr(snakemake.input, "claims"):
    matrix = claims_to_matrix(read_claims(snakemake.input.claims))
    truth = align_truth(read_truth(snakemake.input.truth), matrix.tasks, snakemake.input.truth,
                        require="all")
    table = real_tradeoff(matrix.values, truth, seed=seed, **exp)
else:
    table = synthetic_tradeoff(seed=seed, **exp)
logger.info("%s: %d rows, lambda1 %s", snakemake.output.csv, len(table),
            np.unique(table["lambda1"]))
write_csv(table, snakemake.output.csv)
finish_job()
