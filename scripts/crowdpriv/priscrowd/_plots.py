"""Figures of the PrisCrowd reproduction (matplotlib Agg; imported lazily)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from crowdpriv.labels import dataset_label

__all__ = [
    "plot_table1",
    "plot_table2",
    "plot_fig3",
    "plot_fig4",
    "plot_fig5",
    "plot_release",
    "plot_budget",
]

_COLORS = {"PrisCrowd": "tab:red", "Uniform": "tab:green", "Basic(Strong)": "tab:purple",
           "Basic(Normal)": "tab:blue", "Basic(Weak)": "tab:gray"}


def _plt():
    from crowdpriv.plotting import use_style

    use_style()  # the pipeline's one look (scripts/matplotlibrc), Agg backend
    import matplotlib.pyplot as plt

    return plt




def _save(fig, paths):
    from crowdpriv.plotting import save_figure

    save_figure(fig, *paths)


def _bars(ax, d, group_col, methods):
    groups = list(dict.fromkeys(d[group_col]))
    width = 0.8 / len(methods)
    for j, meth in enumerate(methods):
        dm = d[d["method"] == meth].set_index(group_col).reindex(groups)
        x = np.arange(len(groups)) + (j - (len(methods) - 1) / 2) * width
        ax.bar(x, dm["mean"], width, yerr=dm["std"], color=_COLORS.get(meth), label=meth,
               capsize=2)
        ax.scatter(x, dm["paper"], marker="_", s=120, color="k", zorder=3, label="paper",
                   gid=None if j == 0 else "reference")  # one legend entry for the ticks
    ax.set_xticks(np.arange(len(groups)), [dataset_label(g) for g in groups])
    ax.set_yscale("log")


def plot_table1(summary: pd.DataFrame, paths):
    """Table 1 as bars (ours, mean ± std over R) with the paper's values as black ticks."""
    plt = _plt()
    methods = list(dict.fromkeys(summary["method"]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, measure in zip(axes, ("ISE", "SISE")):
        _bars(ax, summary[summary["measure"] == measure], "dataset", methods)
        ax.set_title(f"{measure} (log scale; bars: mean ± 1 sd over R)")
        ax.set_ylabel(measure)
    handles, labels = axes[0].get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    axes[0].legend(unique.values(), unique.keys(), fontsize=7)
    R = int(summary["R"].max())
    names = ", ".join(dataset_label(d) for d in dict.fromkeys(summary["dataset"]))
    fig.suptitle(f"PrisCrowd Table 1: accuracy on {names} (R = {R})", fontsize=10)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure


def plot_table2(summary: pd.DataFrame, paths):
    """Table 2 as lines over p (ours ± std) with the paper's values dashed."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, measure in zip(axes, ("ISE", "SISE")):
        d = summary[summary["measure"] == measure]
        for meth, dm in d.groupby("method", sort=False):
            c = _COLORS.get(meth)
            ax.errorbar(dm["p"], dm["mean"], yerr=dm["std"], color=c, marker="o", label=meth,
                        capsize=2)
            ax.plot(dm["p"], dm["paper"], color=c, ls="--", alpha=0.6, gid="reference")
        ax.plot([], [], color="0.4", ls="--", label="paper (dashed, same colour)")
        ax.set_xlabel("fraction of unreliable users p")
        ax.set_ylabel(measure)
        ax.set_title(f"{measure} (solid: ours ± 1 sd over R; dashed: paper)")
        ax.set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"PrisCrowd Table 2: simulated data (R = {int(summary['R'].max())})",
                 fontsize=10)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure


def plot_fig3(curves: pd.DataFrame, claims: pd.DataFrame, paths):
    """Fig. 3 case studies: densities (combined red, global black, uniform green, reference
    blue, drawn last and dashed so a curve that coincides with it stays visible) and the
    claims as magenta markers sized by their user's combined weight (crosses: weight below half
    the object's mean). The x range is the case's view (``view_lo``/``view_hi``); claims beyond
    it are counted in the panel."""
    plt = _plt()
    cases = list(dict.fromkeys(zip(curves["dataset"], curves["case"])))
    ncol = 2
    nrow = max(1, int(np.ceil(len(cases) / ncol)))
    fig, axes = plt.subplots(nrow, ncol, figsize=(10, 3 * nrow + 0.6), squeeze=False,
                             layout="constrained")
    style = {"combined": ("tab:red", "combined weights", "-", 2.2),
             "global": ("k", "global weights", "-", 1.2),
             "uniform": ("tab:green", "uniform weights", "-", 1.2),
             "reference": ("tab:blue", "reference K_h(x − truth)", "--", 1.2)}
    for ax, (ds, case) in zip(axes.ravel(), cases):
        d = curves[(curves["dataset"] == ds) & (curves["case"] == case)]
        for curve, (c, lab, ls, lw) in style.items():
            dc = d[d["curve"] == curve]
            ax.plot(dc["x_normalised"], dc["density_normalised"], color=c, label=lab, lw=lw,
                    ls=ls)
        cl = claims[(claims["dataset"] == ds) & (claims["case"] == case)]
        w = cl["combined_weight"].to_numpy()
        low = w < 0.5 * w.mean()
        ax.scatter(cl["x_normalised"][~low], np.zeros((~low).sum()), marker="o",
                   facecolors="none", edgecolors="m", s=20 + 200 * w[~low],
                   label="claim (size ∝ combined weight)")
        ax.scatter(cl["x_normalised"][low], np.zeros(low.sum()), marker="x", color="m", s=25,
                   label="claim, combined weight < ½ mean")
        if "view_lo" in d and d["view_lo"].notna().any():
            lo, hi = float(d["view_lo"].iloc[0]), float(d["view_hi"].iloc[0])
            ax.set_xlim(lo, hi)
            outside = int(((cl["x_normalised"] < lo) | (cl["x_normalised"] > hi)).sum())
            if outside:
                ax.text(0.99, 0.97, f"{outside} of {len(cl)} claims outside the view",
                        transform=ax.transAxes, ha="right", va="top", fontsize=7)
        ax.set_title(f"{dataset_label(ds)}: {d['task'].iloc[0]}", fontsize=8)
        ax.set_xlabel("normalised claim")
        ax.set_ylabel("density")
    for ax in axes.ravel()[len(cases):]:
        ax.axis("off")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=7)
    fig.suptitle("PrisCrowd Fig. 3: case studies (objects at the configured quantiles of the "
                 "uniform density's ISE)", fontsize=10)
    _save(fig, paths)  # also closes the figure


def plot_fig4(summary: pd.DataFrame, paths):
    """Fig. 4: ISE and SISE vs number of released claims m, per dataset (mean ± std)."""
    plt = _plt()
    dsets = list(dict.fromkeys(summary["dataset"]))
    fig, axes = plt.subplots(len(dsets), 2, figsize=(10, 2.8 * len(dsets)), squeeze=False)
    for row, ds in zip(axes, dsets):
        for ax, measure in zip(row, ("ISE", "SISE")):
            d = summary[(summary["dataset"] == ds) & (summary["measure"] == measure)]
            for meth, dm in d.groupby("method", sort=False):
                ax.plot(dm["m"], dm["mean"], marker=".", color=_COLORS.get(meth), label=meth)
                ax.fill_between(dm["m"], dm["mean"] - dm["std"], dm["mean"] + dm["std"],
                                color=_COLORS.get(meth), alpha=0.2)
            ax.set_title(f"{dataset_label(ds)}: {measure}", fontsize=9)
            ax.set_xlabel("released claims per object m")
            ax.set_ylabel(measure)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"PrisCrowd Fig. 4: accuracy vs m (R = {int(summary['R'].max())}; band: ±1 sd "
                 "over R)", fontsize=10)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure


def plot_fig5(work: pd.DataFrame, timings: pd.DataFrame, paths):
    """Fig. 5 per dataset: (top) candidates Alg. 1 tests vs m, with and without the privacy test
    (deterministic, mean ± 1 sd over repetitions); (bottom) the wall-clock time of phase 2,
    median of the timed calls (machine- and load-dependent, never judged)."""
    plt = _plt()
    dsets = list(dict.fromkeys(work["dataset"]))
    fig, axes = plt.subplots(2, len(dsets), figsize=(4 * len(dsets), 6.4), squeeze=False)
    label = {True: "with privacy test", False: "without privacy test"}
    for col, ds in enumerate(dsets):
        ax = axes[0, col]
        d = work[(work["dataset"] == ds) & (work["measure"] == "candidates")]
        for test, dt in d.groupby("privacy_test", sort=False):
            ax.errorbar(dt["m"], dt["mean"], yerr=dt["std"], marker="o", capsize=2,
                        label=label[bool(test)])
        ax.set_title(f"{dataset_label(ds)}: candidates tested", fontsize=9)
        ax.set_ylabel("candidates (all objects)")
        ax = axes[1, col]
        t = timings[timings["dataset"] == ds]
        for test, dt in t.groupby("privacy_test", sort=False):
            ax.plot(dt["m"], dt["seconds"], marker="o", label=label[bool(test)])
        ax.set_title(f"{dataset_label(ds)}: wall clock (median of {int(t['calls'].min())})", fontsize=9)
        ax.set_ylabel("seconds")
        for ax in axes[:, col]:
            ax.set_xlabel("released claims per object m")
            ax.set_ylim(bottom=0)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("PrisCrowd Fig. 5: cost of phase 2 vs m (top: deterministic work, judged; "
                 "bottom: wall clock, load-dependent, not judged)", fontsize=10)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure


def plot_release(summary: pd.DataFrame, paths):
    """Objects fully / partly / never released (stacked horizontal bars, one row per dataset
    and method, in the table's order) and the privacy-test pass rate."""
    plt = _plt()
    n = len(summary)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.32 * n), layout="constrained")
    labels = [f"{dataset_label(d)} · {m}" for d, m in zip(summary["dataset"], summary["method"])]
    y = np.arange(n)[::-1]  # first row on top
    left = np.zeros(n)
    for col, c in (("fully", "tab:green"), ("partly", "tab:orange"), ("never", "tab:red")):
        share = (summary[col] / summary["tasks"]).to_numpy()
        ax.barh(y, share, left=left, color=c, label=f"{col} released", height=0.7)
        left += share
    ax.plot(summary["pass_rate"], y, "k*", ms=8, label="privacy-test pass rate")
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of objects / pass rate")
    ax.set_ylabel("dataset · method")
    fig.legend(loc="outside lower center", ncol=4, fontsize=7)
    ax.set_title("PrisCrowd release: objects fully / partly / never released, privacy-test "
                 "pass rate", fontsize=9)
    _save(fig, paths)  # also closes the figure


def plot_budget(budget: pd.DataFrame, paths):
    """PrisCrowd Theorem 2 per object. (a) epsilon: the share of objects whose epsilon is finite
    (its range written on the bar), infinite (a claim of zero weight) or not covered
    (|U_i| < k), per dataset and method; (b) the empirical CDF of delta, colour = dataset, line
    style = method; the curves stop below 1 by the share of objects not covered."""
    plt = _plt()
    groups = list(budget.groupby(["dataset", "method"], sort=False))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(11, 1.6 + 0.45 * len(groups)), layout="constrained",
        gridspec_kw={"width_ratios": [1.1, 1]})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    datasets = list(dict.fromkeys(budget["dataset"]))
    methods = list(dict.fromkeys(budget["method"]))
    styles = ["-", "--", ":", "-."]
    y = np.arange(len(groups))[::-1]
    shares = []
    for (ds, meth), d in groups:
        eps = d["epsilon"].to_numpy(float)
        covered = np.isfinite(d["delta"].to_numpy(float))  # as summarise_budget counts them
        finite = covered & np.isfinite(eps)
        shares.append((finite.mean(), (covered & ~finite).mean(), (~covered).mean(),
                       eps[finite]))
    start = np.zeros(len(groups))
    for k, (name, colour) in enumerate((("finite ε", "tab:green"), ("infinite ε", "tab:red"),
                                        ("not covered (|U_i| < k)", "0.7"))):
        width = np.array([sh[k] for sh in shares])
        left.barh(y, width, left=start, color=colour, label=name, height=0.7)
        start += width
    for yi, sh in zip(y, shares):
        if sh[3].size:
            lo, hi = sh[3].min(), sh[3].max()
            text = f"ε = {lo:.3g}" if np.isclose(lo, hi) else f"ε ∈ [{lo:.3g}, {hi:.3g}]"
            left.text(0.01, yi, text, va="center", fontsize=7)
    left.set_yticks(y, [f"{dataset_label(ds)} · {meth}" for (ds, meth), _ in groups], fontsize=7)
    left.set_xlim(0, 1)
    left.set_xlabel("share of objects")
    left.set_ylabel("dataset · method")
    left.set_title("(a) per-object epsilon", fontsize=9)
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=7)
    for (ds, meth), d in groups:
        v = np.sort(d["delta"].to_numpy(float))
        v = v[np.isfinite(v)]
        if v.size:
            right.step(v, np.arange(1, v.size + 1) / len(d), where="post",
                       color=colours[datasets.index(ds) % len(colours)],
                       ls=styles[methods.index(meth) % len(styles)], label=f"{dataset_label(ds)}, {meth}")
    right.set_xlabel("per-object delta (Theorem 2)")
    right.set_ylabel("share of objects")
    right.set_ylim(0, 1.02)
    right.set_title("(b) per-object delta, empirical CDF", fontsize=9)
    right.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    fig.suptitle("PrisCrowd Theorem 2: the per-object (epsilon, delta) of the releases",
                 fontsize=10)
    _save(fig, paths)  # also closes the figure
