"""Figures of LDP-sparse (matplotlib, Agg). Data in, figure out: no computation here."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["plot_panels", "plot_answer_distribution", "save_figure"]

_STYLE = {
    "LP": dict(color="tab:blue", marker="o"),
    "RR": dict(color="tab:orange", marker="s"),
    "MF": dict(color="tab:green", marker="^"),
    "2-Layer": dict(color="tab:red", marker="D"),
}


def _pyplot():
    from crowdpriv.plotting import use_style

    use_style()  # the pipeline's one look (scripts/matplotlibrc), Agg backend
    import matplotlib.pyplot as plt

    return plt


def plot_panels(summary: pd.DataFrame, *, panel: str, x: str, panel_label, xlabel: str, title: str,
                logx: bool = False, yscale: str = "linear"):
    """One panel per value of ``panel`` (in the order of ``summary``): mean MAE change vs ``x``
    per method, ±1 sd band over the R repetitions.

    ``summary`` has columns method, mean, std, R plus ``panel`` and ``x``. ``yscale="symlog"``
    follows the data: a log axis when every mean is positive, else a symlog axis whose linear
    part ends at the smallest nonzero |mean| (no empty decades).
    """
    plt = _pyplot()
    panels = list(dict.fromkeys(summary[panel]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, pv, letter in zip(axes[0], panels, "abcdefgh"):
        sub = summary[summary[panel] == pv]
        for meth, g in sub.groupby("method", sort=False):
            g = g.sort_values(x)
            style = _STYLE.get(meth, dict(marker="o"))
            (line,) = ax.plot(g[x], g["mean"], label=meth, **style)
            ax.fill_between(g[x], g["mean"] - g["std"].fillna(0), g["mean"] + g["std"].fillna(0),
                            color=line.get_color(), alpha=0.15, linewidth=0)
        positive = bool((sub["mean"] > 0).all())
        if not (yscale == "symlog" and positive):
            ax.axhline(0, color="0.6", linewidth=0.6)
        if {"mae_ref_own_mean_mean", "mae_original_mean"} <= set(sub.columns):
            # information-free reference (not in the paper): every worker sends his own mean
            ref = sub.groupby(x, sort=True)[["mae_ref_own_mean_mean", "mae_original_mean"]].mean()
            ax.plot(ref.index, ref["mae_ref_own_mean_mean"] - ref["mae_original_mean"],
                    color="0.4", linestyle=":", linewidth=1, label="own-mean sender")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("MAE change")
        if logx:
            ax.set_xscale("log")
            ax.set_xticks(sorted(set(sub[x])))
        if yscale == "symlog" and positive:
            ax.set_yscale("log")
        elif yscale == "symlog":
            smallest = sub["mean"].abs()[sub["mean"] != 0].min()
            ax.set_yscale("symlog", linthresh=10 ** np.floor(np.log10(smallest)))
        elif yscale != "linear":
            ax.set_yscale(yscale)
        r = sorted(set(int(v) for v in sub["R"]))
        ax.set_title(f"({letter}) {panel_label(pv)}  (R={','.join(map(str, r))})", fontsize=9)
        ax.legend(fontsize=8)
    repetitions = int(summary["R"].max())
    fig.suptitle(title + ("\n(band: ±1 sd over the R repetitions)" if repetitions > 1 else ""),
                 fontsize=10)
    fig.tight_layout()
    return fig


def plot_answer_distribution(dist: pd.DataFrame, *, title: str):
    """LDP-sparse Fig. 1: per dataset, the answer distribution for each gold label."""
    from crowdpriv.labels import dataset_label

    plt = _pyplot()
    datasets = list(dict.fromkeys(dist["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.5 * len(datasets), 3.4), squeeze=False)
    for ax, ds, letter in zip(axes[0], datasets, "abcdefgh"):
        sub = dist[dist["dataset"] == ds]
        groups = [
            g for g in dict.fromkeys(sub["truth"])
            if g != "task_gold" and sub[sub["truth"] == g]["count"].sum() > 0
        ]
        answers = sorted(set(sub["answer"]))
        width = 0.8 / max(len(groups), 1)
        for k, g in enumerate(groups):
            gg = sub[sub["truth"] == g].set_index("answer").reindex(answers)
            lab = "all answers" if g == "all" else f"gold = {g}"
            ax.bar(np.arange(len(answers)) + (k - (len(groups) - 1) / 2) * width,
                   gg["fraction"], width=width, label=lab)
        ax.set_xticks(np.arange(len(answers)), [str(a) for a in answers])
        ax.set_xlabel("answer")
        ax.set_ylabel("fraction of answers")
        ax.set_title(f"({letter}) {dataset_label(ds)}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def save_figure(fig, *paths):
    """Save one figure to every path (PNG/SVG by extension) with fixed metadata, then close it."""
    from crowdpriv.plotting import save_figure as _save_figure

    _save_figure(fig, *paths)
