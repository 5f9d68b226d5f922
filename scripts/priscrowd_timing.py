"""Adapter for rule priscrowd_timing: PrisCrowd Fig. 5 wall-clock times for one dataset.

Huai et al., IJCAI 2019, Sec. 5 "Computational Cost": run time of the synthetic-claims
generation (phase 2) for the objects with ground truth, vs m, with and without privacy test.
Median of fig5.timing_calls timed calls after a warm-up. Wall-clock times depend on the
machine and its load: they are plotted, never judged, and exempt from byte identity.
"""

from crowdpriv.priscrowd import Params, drop_single_claim_objects, time_phase2
from crowdpriv.runtime import start_job, write_csv
from crowdpriv.seeds import derive_rng
from crowdpriv.tables import read_claims, read_truth

logger = start_job(snakemake)
dataset = snakemake.wildcards.dataset
fig5 = dict(snakemake.params.fig5)
claims, _ = drop_single_claim_objects(read_claims(snakemake.input.claims))
table = time_phase2(
    claims, read_truth(snakemake.input.truth), Params.from_mapping(snakemake.params.cfg),
    ms=fig5["m"], calls=fig5["timing_calls"],
    rng=derive_rng(int(snakemake.params.seed), "priscrowd", "runtime", dataset),
)
table.insert(0, "dataset", dataset)
write_csv(table, snakemake.output.csv)
logger.info("%s: %d timings", dataset, len(table))
