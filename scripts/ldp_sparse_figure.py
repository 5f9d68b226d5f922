"""LDP-sparse Fig. 2 (MAE change vs ε), Fig. 3/4 (vs sparsity), Fig. 5 (vs ε, real data) and
the MF sensitivity to d and a ridge term (not in the paper).

Adapter: concatenates the per-point repetition CSVs, summarises them (mean, std, R per point and
method, ``crowdpriv.ldp_sparse.summarise`` = the shared aggregator) and draws the figure (PNG and SVG).
"""

from crowdpriv.runtime import start_job

logger = start_job(snakemake)  # noqa: F821

import pandas as pd  # noqa: E402

from crowdpriv.labels import dataset_label  # noqa: E402
from crowdpriv.ldp_sparse import plot_panels, save_figure, summarise  # noqa: E402
from crowdpriv.runtime import write_csv  # noqa: E402

p = snakemake.params  # noqa: F821
raw = pd.concat([pd.read_csv(f) for f in snakemake.input], ignore_index=True)  # noqa: F821
keys = ["experiment", "workers", "tasks", "sparsity", "epsilon", "method"]
if "dataset" in raw:
    keys.insert(1, "dataset")
keys += list(getattr(p, "extra_keys", []))
summary = summarise(raw, keys)
# panels in the config's order (the paper's), methods in the config's order
ranks = {"method": p.methods, p.panel: list(getattr(p, "panel_order", []))}


def by_config_order(column):
    rank = {v: i for i, v in enumerate(ranks.get(column.name, []))}
    if not rank:
        return column
    unknown = {v: len(rank) + i for i, v in enumerate(sorted(set(column) - set(rank)))}
    return column.map(lambda v: rank.get(v, unknown.get(v)))


summary = summary.sort_values([p.panel, p.x, "method"], key=by_config_order).reset_index(drop=True)
write_csv(summary, snakemake.output.csv)  # noqa: F821


def label(v):
    return p.panel_label.format(dataset_label(v) if p.panel == "dataset" else v)


fig = plot_panels(
    summary,
    panel=p.panel,
    x=p.x,
    panel_label=label,
    xlabel=p.xlabel,
    title=p.title,
    yscale=getattr(p, "yscale", "linear"),
    logx=getattr(p, "logx", False),
    mark_x=getattr(p, "mark_x", None),
)
save_figure(fig, snakemake.output.png, snakemake.output.svg)  # noqa: F821
