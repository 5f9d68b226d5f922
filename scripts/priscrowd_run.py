"""Adapter for rule priscrowd_run: PrisCrowd Table 1 / Fig. 3 / Fig. 4 data for one dataset.

Huai et al., IJCAI 2019, Sec. 5 "Accuracy comparison", "Case study", "The effect of the number
of sampled claims". Fits the weights (phase 1), releases m claims per object with ground truth
by Algorithm 1 (PrisCrowd, Uniform) and by Laplace noise (Basic), R repetitions in one job, and
writes the per-repetition tables, including Fig. 5's deterministic work (candidates tested).
"""

from crowdpriv.priscrowd import Params, run_real_dataset, usable_claims
from crowdpriv.runtime import Progress, start_job, write_csv
from crowdpriv.seeds import derive_rng
from crowdpriv.tables import read_claims, read_truth

logger = start_job(snakemake)
dataset = snakemake.wildcards.dataset
params = Params.from_mapping(snakemake.params.cfg)
truth = read_truth(snakemake.input.truth)
claims, dropped = usable_claims(read_claims(snakemake.input.claims), truth,
                                claims_path=snakemake.input.claims,
                                truth_path=snakemake.input.truth)
logger.info("%s: dropped %d single-claim objects", dataset, dropped)
out = run_real_dataset(
    claims, truth, params, fig3=dict(snakemake.params.fig3),
    fig4_m=list(snakemake.params.fig4["m"]),
    rng=derive_rng(int(snakemake.params.seed), "priscrowd", "real", dataset),
    progress=Progress(logger, f"PrisCrowd on {dataset}", total=3, every=0.0),
)
out["info"]["dropped_single_claim"] = dropped
for key, df in out.items():
    df.insert(0, "dataset", dataset)
    write_csv(df, getattr(snakemake.output, key))
logger.info("%s: %s", dataset, out["info"].to_dict("records"))
