"""LDP-sparse Fig. 2 (MAE change vs ε), Fig. 3/4 (vs sparsity), Fig. 5 (vs ε, real data) and
the MF sensitivity to d and a ridge term (not in the paper).

Adapter: for each figure, concatenates the per-point repetition CSVs, summarises them (mean,
std, R per point and method, ``crowdpriv.ldp_sparse.summarise`` = the shared aggregator) and
draws the figure (PNG and SVG). Rule ldp_sparse_figures draws them all in one job
(``params.figures``: {figure: how it is drawn}, inputs named by figure, outputs in that order).
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from crowdpriv.runtime import finish_job, start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.labels import dataset_label  # noqa: E402
from crowdpriv.ldp_sparse import plot_panels, save_figure, summarise  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402


def draw(inputs, csv, png, svg, p: dict) -> None:
    """Summarise the repetition CSVs ``inputs`` into ``csv`` and draw ``png`` and ``svg``."""
    raw = pd.concat([pd.read_csv(f) for f in inputs], ignore_index=True)
    keys = ["experiment", "workers", "tasks", "sparsity", "epsilon", "method"]
    if "dataset" in raw:
        keys.insert(1, "dataset")
    keys += list(p.get("extra_keys", []))
    summary = summarise(raw, keys)
    # panels in the config's order (the paper's), methods in the config's order
    ranks = {"method": p["methods"], p["panel"]: list(p.get("panel_order", []))}

    def by_config_order(column):
        rank = {v: i for i, v in enumerate(ranks.get(column.name, []))}
        if not rank:
            return column
        unknown = {v: len(rank) + i for i, v in enumerate(sorted(set(column) - set(rank)))}
        return column.map(lambda v: rank.get(v, unknown.get(v)))

    summary = summary.sort_values([p["panel"], p["x"], "method"], key=by_config_order)
    summary = summary.reset_index(drop=True)
    write_csv(summary, csv)

    def label(v):
        return p["panel_label"].format(dataset_label(v) if p["panel"] == "dataset" else v)

    fig = plot_panels(
        summary,
        panel=p["panel"],
        x=p["x"],
        panel_label=label,
        xlabel=p["xlabel"],
        title=p["title"],
        yscale=p.get("yscale", "linear"),
        logx=p.get("logx", False),
        mark_x=p.get("mark_x"),
    )
    save_figure(fig, png, svg)


out = snakemake.output  # noqa: F821
for i, (name, how) in enumerate(snakemake.params.figures.items()):  # noqa: F821
    draw(snakemake.input[name], out.csv[i], out.png[i], out.svg[i], how)  # noqa: F821
    logger.info("%s: %s, %s, %s", name, out.csv[i], out.png[i], out.svg[i])
finish_job()
