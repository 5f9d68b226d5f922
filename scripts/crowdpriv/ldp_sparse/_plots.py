"""Figures of LDP-sparse (matplotlib, Agg). Data in, figure out: no computation here."""

from __future__ import annotations

import numpy as np
import pandas as pd

from crowdpriv import mechanisms

__all__ = ["plot_panels", "plot_answer_distribution", "save_figure"]

#: line style and marker per method (colour: crowdpriv.plotting.METHOD_COLOURS); markers are
#: hollow, so a method drawn over another that coincides with it leaves both visible
_STYLE = {
    mechanisms.LP.label: dict(linestyle="-", marker="o"),
    mechanisms.RR.label: dict(linestyle="--", marker="s"),
    mechanisms.MF.label: dict(linestyle="-.", marker="^"),
    mechanisms.TwoLayer.label: dict(linestyle=":", marker="D"),
}
_OTHER_MARKERS = "ovsDP*X<>"


def _pyplot():
    from crowdpriv.plotting import use_style

    use_style()  # the pipeline's one look (scripts/matplotlibrc), Agg backend
    import matplotlib.pyplot as plt

    return plt


def method_style(method: str, index: int, n_methods: int) -> dict:
    """Colour, line style and hollow marker of a method, the same in every LDP figure.

    The paper's methods take their fixed style; the MF sensitivity's ``"MF, λ=<r>"`` series are
    darker shades of MF's colour (λ = 0, the paper's MF, in MF's own); other (user) mechanisms take
    the remaining markers in order."""
    from matplotlib.colors import to_rgb

    from crowdpriv.plotting import METHOD_COLOURS

    if method in _STYLE:
        style = dict(_STYLE[method], color=METHOD_COLOURS[method])
    elif method.startswith(f"{mechanisms.MF.label}, λ="):
        base = np.array(to_rgb(METHOD_COLOURS[mechanisms.MF.label]))
        shade = 0.7 * index / max(n_methods - 1, 1)  # λ = 0 in MF's colour, then darker
        style = dict(linestyle="-", marker=_OTHER_MARKERS[index % len(_OTHER_MARKERS)],
                     color=tuple(base * (1 - shade) + 0.2 * shade))
    else:
        style = dict(linestyle="-", marker=_OTHER_MARKERS[index % len(_OTHER_MARKERS)],
                     color=f"C{index % 8}")
    return dict(style, markerfacecolor="none", markeredgewidth=1.2)


def plot_panels(summary: pd.DataFrame, *, panel: str, x: str, panel_label, xlabel: str, title: str,
                logx: bool = False, yscale: str = "linear", mark_x=None):
    """One panel per value of ``panel`` (in the order of ``summary``): mean MAE change vs ``x``
    per method, ±1 sd band over the R repetitions; the panels share their y axis (the paper
    compares them), the x ticks are the sweep's values, and one legend outside the panels names
    every series.

    ``summary`` has columns method, mean, std, R plus ``panel`` and ``x``. ``yscale="symlog"``
    follows the data: a log axis when every mean is positive, else a symlog axis whose linear
    part ends at the smallest nonzero |mean| (no empty decades). The information-free
    reference (every worker sends his own mean answer; not in the paper) is a thin black dotted
    line drawn on top, so it stays visible where a method coincides with it. ``mark_x`` =
    ``(value, text)`` marks one x value in every panel (a dashed grey line and its text).
    """
    from matplotlib.ticker import FuncFormatter

    from crowdpriv.plotting import figure_legend

    plt = _pyplot()
    panels = list(dict.fromkeys(summary[panel]))
    methods = list(dict.fromkeys(summary["method"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.9 * len(panels) + 1.6, 3.5),
                             squeeze=False, sharey=True, layout="constrained")
    positive = bool((summary["mean"] > 0).all())
    for ax, pv, letter in zip(axes[0], panels, "abcdefgh"):
        sub = summary[summary[panel] == pv]
        for meth, g in sub.groupby("method", sort=False):
            g = g.sort_values(x)
            style = method_style(meth, methods.index(meth), len(methods))
            ax.plot(g[x], g["mean"], label=meth, **style)
            ax.fill_between(g[x], g["mean"] - g["std"].fillna(0), g["mean"] + g["std"].fillna(0),
                            color=style["color"], alpha=0.12, linewidth=0)
        if not (yscale == "symlog" and positive):
            ax.axhline(0, color="0.6", linewidth=0.6)
        if {"mae_ref_own_mean_mean", "mae_original_mean"} <= set(sub.columns):
            ref = sub.groupby(x, sort=True)[["mae_ref_own_mean_mean", "mae_original_mean"]].mean()
            ax.plot(ref.index, ref["mae_ref_own_mean_mean"] - ref["mae_original_mean"],
                    color="k", linestyle=(0, (1, 1.5)), linewidth=1.1, zorder=5,
                    label="own-mean sender (reference)")
        if mark_x is not None:
            ax.axvline(mark_x[0], color="0.5", linestyle="--", linewidth=0.8)
            ax.text(mark_x[0], 0.98, f" {mark_x[1]}", transform=ax.get_xaxis_transform(),
                    ha="left", va="top", fontsize=7, color="0.35")
        ax.set_xlabel(xlabel)
        if logx:
            ax.set_xscale("log")
        ax.set_xticks(sorted(set(sub[x])))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        if yscale == "symlog" and positive:
            ax.set_yscale("log")
        elif yscale == "symlog":
            smallest = summary["mean"].abs()[summary["mean"] != 0].min()
            ax.set_yscale("symlog", linthresh=10 ** np.floor(np.log10(smallest)))
        elif yscale != "linear":
            ax.set_yscale(yscale)
        r = sorted(set(int(v) for v in sub["R"]))
        ax.set_title(f"({letter}) {panel_label(pv)}  (R={','.join(map(str, r))})", fontsize=9)
    axes[0, 0].set_ylabel("MAE change" + (" (log scale)" if yscale == "symlog" and positive
                                          else ""))
    repetitions = int(summary["R"].max())
    figure_legend(fig, axes, loc="outside right center",
                  title="band: ±1 sd over R" if repetitions > 1 else None, title_fontsize=7)
    fig.suptitle(title, fontsize=10)
    return fig


def plot_answer_distribution(dist: pd.DataFrame, *, title: str, paper_gold_zero_share=None):
    """LDP-sparse Fig. 1: per dataset, the distribution of all answers (grey) and of the answers
    to tasks of each gold label; each panel states the share of reference-labelled tasks whose
    label is 0 beside the paper's "more than 72 %" (``paper_gold_zero_share``), and how many
    tasks carry a reference label. An answer value nobody gives (AdultContent's label 4: four
    categories in a domain of five) keeps its empty slot, so both panels share one x axis."""
    from crowdpriv.labels import dataset_label
    from crowdpriv.plotting import figure_legend

    plt = _pyplot()
    datasets = list(dict.fromkeys(dist["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.3 * len(datasets) + 1.4, 3.6),
                             squeeze=False, sharey=True, layout="constrained")
    gold_labels = sorted(g for g in set(dist["truth"]) if g not in ("all", "task_gold"))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    style = {"all": dict(color="0.35", label="all answers")}
    style.update({g: dict(color=colours[i % len(colours)], label=f"answers to gold = {g}")
                  for i, g in enumerate(gold_labels)})
    for ax, ds, letter in zip(axes[0], datasets, "abcdefgh"):
        sub = dist[dist["dataset"] == ds]
        groups = [g for g in ["all"] + gold_labels if sub[sub["truth"] == g]["count"].sum() > 0]
        answers = sorted(set(sub["answer"]))
        width = 0.8 / max(len(groups), 1)
        for k, g in enumerate(groups):
            gg = sub[sub["truth"] == g].set_index("answer").reindex(answers)
            ax.bar(np.arange(len(answers)) + (k - (len(groups) - 1) / 2) * width,
                   gg["fraction"], width=width, **style[g])
        ax.set_xticks(np.arange(len(answers)), [str(a) for a in answers])
        ax.set_xlabel("answer (label)")
        gold = sub[sub["truth"] == "task_gold"]
        note = ""
        if gold["count"].sum() > 0:
            zero = gold.loc[gold["answer"] == 0, "count"].sum() / gold["count"].sum()
            note = (f"reference label 0 on {zero:.0%} of {int(gold['count'].sum()):,} tasks"
                    + (f" (paper: > {paper_gold_zero_share:.0%})"
                       if paper_gold_zero_share is not None else ""))
        ax.set_title(f"({letter}) {dataset_label(ds)}\n{note}", fontsize=9)
    axes[0, 0].set_ylabel("fraction of answers")
    figure_legend(fig, axes, loc="outside right center")
    fig.suptitle(title, fontsize=10)
    return fig


def save_figure(fig, *paths):
    """Save one figure to every path (PNG/SVG by extension) with fixed metadata, then close it."""
    from crowdpriv.plotting import save_figure as _save_figure

    _save_figure(fig, *paths)
