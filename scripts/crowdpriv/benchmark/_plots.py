"""The inference benchmark's figures: accuracy against ε per label dataset (Fig. B1), one
panel per mechanism, one line per inference method; MAE against ε on the numeric dataset
under PPTD (Fig. B2). The no-privacy accuracy of each method is a dotted line of its colour."""

from __future__ import annotations

import pandas as pd

from ._experiments import BASE_RATE, NO_MECHANISM

__all__ = ["plot_label_dataset", "plot_value_dataset", "summarise", "METHOD_STYLES"]

#: One look per inference method in every benchmark figure (Okabe-Ito colours, distinct
#: markers and line styles, so coinciding methods stay visible).
METHOD_STYLES = {
    "majority": dict(color="#000000", marker="o", linestyle="-"),
    "weighted-vote": dict(color="#999999", marker="h", linestyle="-"),
    "ds": dict(color="#0072B2", marker="s", linestyle="--"),
    "one-coin-ds": dict(color="#56B4E9", marker="p", linestyle="--"),
    "aware-ds": dict(color="#D55E00", marker="^", linestyle="-."),
    "aware-one-coin-ds": dict(color="#E69F00", marker="v", linestyle=":"),
    "sun": dict(color="#009E73", marker="D", linestyle=(0, (5, 1))),
    "mean": dict(color="#CC79A7", marker="x", linestyle="-"),
    "median": dict(color="#F0E442", marker="+", linestyle="--"),
    "crh": dict(color="#0072B2", marker="s", linestyle="-"),
    "gtm": dict(color="#009E73", marker="D", linestyle="-."),
    "aware-mean": dict(color="#D55E00", marker="*", linestyle=":"),
}


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, sd and R per (dataset, mechanism, ε, method, metric) over the repetitions."""
    keys = ["dataset", "mechanism", "epsilon", "method", "metric"]
    g = runs.groupby(keys, sort=False)["value"]
    out = g.agg(mean="mean", std="std", R="count").reset_index()
    return out


def _pyplot():
    from crowdpriv.plotting import use_style

    use_style()
    import matplotlib.pyplot as plt

    return plt


def _style(method: str) -> dict:
    return dict(METHOD_STYLES.get(method, dict(color="0.3", marker=".", linestyle="-")),
                markerfacecolor="none", markeredgewidth=1.1, linewidth=1.2, markersize=5)


def plot_label_dataset(summary: pd.DataFrame, *, dataset: str, title: str,
                       metrics=("accuracy", "balanced_accuracy")):
    """One row per metric, one panel per mechanism: mean over R against ε per method, the
    no-privacy value as a dotted horizontal line in the method's colour."""
    from matplotlib.ticker import FuncFormatter

    from crowdpriv.plotting import REFERENCE, figure_legend

    plt = _pyplot()
    s = summary.loc[summary["dataset"] == dataset]
    mechanisms = [m for m in dict.fromkeys(s["mechanism"]) if m != NO_MECHANISM]
    fig, axes = plt.subplots(len(metrics), len(mechanisms), squeeze=False, sharey="row",
                             figsize=(2.6 * len(mechanisms) + 1.8, 2.6 * len(metrics)),
                             layout="constrained")
    for row, metric in enumerate(metrics):
        plain = s.loc[(s["mechanism"] == NO_MECHANISM) & (s["metric"] == metric)]
        for col, mech in enumerate(mechanisms):
            ax = axes[row, col]
            sub = s.loc[(s["mechanism"] == mech) & (s["metric"] == metric)]
            for method, g in sub.groupby("method", sort=False):
                g = g.sort_values("epsilon")
                ax.plot(g["epsilon"], g["mean"], label=method, **_style(method))
                base = plain.loc[plain["method"] == method, "mean"]
                if not base.empty:
                    ax.axhline(float(base.iloc[0]), color=_style(method)["color"],
                               linestyle=(0, (1, 2)), linewidth=0.8, gid=REFERENCE)
            rate = plain.loc[plain["method"] == BASE_RATE, "mean"]
            if not rate.empty:
                ax.axhline(float(rate.iloc[0]), color="0.55", linestyle=(0, (6, 3)),
                           linewidth=1.0, gid=REFERENCE)
            ax.set_xscale("log", base=2)
            ticks = sorted(set(sub["epsilon"]))
            ax.set_xticks(ticks)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
            ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _p: ""))
            if row == len(metrics) - 1:
                ax.set_xlabel("ε")
            if row == 0:
                r = sorted(set(int(v) for v in sub["R"])) or [0]
                ax.set_title(f"{mech} (R={','.join(map(str, r))})", fontsize=9)
        axes[row, 0].set_ylabel(metric.replace("_", " "))
    figure_legend(fig, axes, loc="outside right center",
                  title="dotted: no mechanism\ngrey dashed: always the\nmost frequent label",
                  title_fontsize=7)
    fig.suptitle(title, fontsize=10)
    return fig


def plot_value_dataset(summary: pd.DataFrame, *, dataset: str, title: str):
    """MAE against the gold values, and against the method's truths on the original answers,
    per method against ε under each mechanism (PPTD); the no-privacy MAE dotted."""
    from matplotlib.ticker import FuncFormatter

    from crowdpriv.plotting import REFERENCE, figure_legend

    plt = _pyplot()
    s = summary.loc[summary["dataset"] == dataset]
    mechanisms = [m for m in dict.fromkeys(s["mechanism"]) if m != NO_MECHANISM]
    metrics = ("mae", "mae_to_original")
    fig, axes = plt.subplots(len(mechanisms), 2, squeeze=False,
                             figsize=(8.2, 2.9 * len(mechanisms)), layout="constrained")
    plain = s.loc[(s["mechanism"] == NO_MECHANISM) & (s["metric"] == "mae")]
    for row, mech in enumerate(mechanisms):
        for col, metric in enumerate(metrics):
            ax = axes[row, col]
            sub = s.loc[(s["mechanism"] == mech) & (s["metric"] == metric)]
            for method, g in sub.groupby("method", sort=False):
                g = g.sort_values("epsilon")
                ax.plot(g["epsilon"], g["mean"], label=method, **_style(method))
                base = plain.loc[plain["method"] == method, "mean"]
                if metric == "mae" and not base.empty:
                    ax.axhline(float(base.iloc[0]), color=_style(method)["color"],
                               linestyle=(0, (1, 2)), linewidth=0.8, gid=REFERENCE)
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted(set(sub["epsilon"])))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
            ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _p: ""))
            ax.set_xlabel("ε")
            ax.set_ylabel("MAE against the gold values" if metric == "mae"
                          else "MAE against the truths on the original answers")
            r = sorted(set(int(v) for v in sub["R"])) or [0]
            ax.set_title(f"{mech} (R={','.join(map(str, r))})", fontsize=9)
    figure_legend(fig, axes, loc="outside right center",
                  title="dotted: no mechanism", title_fontsize=7)
    fig.suptitle(title, fontsize=10)
    return fig

