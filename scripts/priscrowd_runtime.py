"""Adapter for rule priscrowd_runtime: PrisCrowd Fig. 5 timings for one dataset.

Huai et al., IJCAI 2019, Sec. 5 "Computational Cost": run time of the synthetic-claims
generation (phase 2) for the objects with ground truth, vs m, with and without privacy test.
Wall-clock times: not byte-reproducible.
"""

from crowdpriv.priscrowd import Params, drop_single_claim_objects, time_phase2
from crowdpriv.runtime import log_to, write_csv
from crowdpriv.seeds import derive_rng
from crowdpriv.tables import read_claims, read_truth

logger = log_to(snakemake.log[0])
dataset = snakemake.wildcards.dataset
cfg = dict(snakemake.params.cfg)
claims, _ = drop_single_claim_objects(read_claims(snakemake.input.claims))
table = time_phase2(
    claims, read_truth(snakemake.input.truth), Params.from_mapping(cfg), ms=cfg["fig5_m"],
    repeats=cfg["fig5_repeats"],
    rng=derive_rng(int(snakemake.params.seed), "priscrowd", "runtime", dataset),
)
table.insert(0, "dataset", dataset)
write_csv(table, snakemake.output.csv)
logger.info("%s: %d timings", dataset, len(table))
