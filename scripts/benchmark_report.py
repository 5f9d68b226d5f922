"""Adapter for rule benchmark_report: the inference benchmark's tables, figures and claims
(crowdpriv.benchmark) from the per-dataset runs and crowd-kit's outputs on the same files."""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import pandas as pd

from crowdpriv.benchmark import (
    dataset_answer_type,
    evaluate_claims,
    plot_label_dataset,
    plot_value_dataset,
    report_tables,
)
from crowdpriv.claims import write_claims
from crowdpriv.labels import dataset_label
from crowdpriv.ldp_sparse import register_extra
from crowdpriv.plotting import save_figure
from crowdpriv.runtime import finish_job, start_job, write_csv, write_markdown
from crowdpriv.significance import Significance

logger = start_job(snakemake)
params = snakemake.params
register_extra(params.config["benchmark"].get("extra"))  # their defaults after a release
runs = pd.concat([pd.read_csv(path) for path in snakemake.input.runs], ignore_index=True)
crowdkit = pd.read_csv(snakemake.input.crowdkit)
thresholds = dict(params.thresholds)
significance = Significance.from_mapping(params.significance)
tables = report_tables(runs, crowdkit, kept_aside=thresholds["kept_aside"],
                       published=thresholds["published"], significance=significance,
                       tolerance=thresholds["non_inferiority"])
notes = {
    "no_privacy": "Accuracy (labels) and MAE/RMSE (numbers) of each method on the answers as "
    "collected, beside crowd-kit 1.4.2 run once on the same mirrored files "
    "(benchmarks/crowdkit/, benchmarks/crowdkit_reference.py) and crowd-kit's published "
    "D_Product column (JOSS 9(96):6227). Zheng et al.'s Table 5 is not shown: its numbers could "
    "not be verified.",
    "summary": "Mean, sd and R over the repetitions per dataset, mechanism, ε, method and metric.",
    "best_mechanism": "Per label dataset and ε, the mechanism whose best inference method has "
    "the highest mean accuracy, and the runner-up.",
    "defaults": "Mean accuracy and balanced accuracy per mechanism and method over the label "
    "datasets and ε of the sweep, the datasets the defaults were chosen on (kept_aside False) "
    "apart from those kept aside; rank 1 = best; default = crowdpriv.inference.DEFAULT_AFTER, "
    "chosen by accuracy (the Bayes rule of the 0-1 loss). On product (88 % one label) a "
    "method that answers the frequent label wherever the release carries little evidence "
    "scores high accuracy and a balanced accuracy near 0.5: read both.",
    "aware_vs_naive": "Each cell of the claims 'mechanism-aware inference is at least as "
    "accurate as naive inference': mean accuracy of each method over R releases, wins = "
    "releases where aware - naive + non_inferiority > 0, status of the cell's sign test "
    "(config claims).",
}
for name, table in tables.items():
    write_csv(table, snakemake.output[f"{name}_csv"])
    write_markdown(table, snakemake.output[f"{name}_md"], title=f"Inference benchmark: {name}",
                   notes=notes[name])
summary = tables["summary"]
for dataset, png in zip(params.datasets, snakemake.output.figures):
    kind, _ = dataset_answer_type(params.types, dataset)
    title = (f"{dataset_label(dataset)}: accuracy after each mechanism, per inference method"
             if kind == "categorical" else
             f"{dataset_label(dataset)}: MAE after each mechanism, per inference method")
    plot = plot_label_dataset if kind == "categorical" else plot_value_dataset
    fig = plot(summary, dataset=dataset, title=title)
    save_figure(fig, png, png[: -len(".png")] + ".svg")
claims = evaluate_claims({"runs": runs, "crowdkit": crowdkit}, thresholds=thresholds,
                         significance=significance,
                         figures=list(params.figures))
write_claims(claims, snakemake.output.claims_csv, snakemake.output.claims_md,
             title="Inference benchmark: claims checked",
             notes="Decided by scripts/crowdpriv/benchmark/_claims.py from results/benchmark/raw/ "
             "(docs/inference.md). Generalisation claims re-decide LDP-sparse's and PPTD's "
             "claims about real data on the benchmark datasets; the others are ours.")
logger.info("%s", claims[["claim_id", "status"]].to_string())
finish_job()
