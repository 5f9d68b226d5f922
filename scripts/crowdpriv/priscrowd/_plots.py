"""Figures of the PrisCrowd reproduction (matplotlib Agg; imported lazily)."""

from __future__ import annotations

import numpy as np
import pandas as pd

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


def _label(ds):
    return f"{ds} (surrogate)" if str(ds).endswith("_surrogate") else str(ds)


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
        ax.scatter(x, dm["paper"], marker="_", s=120, color="k", zorder=3,
                   label="paper" if j == 0 else None)
    ax.set_xticks(np.arange(len(groups)), [_label(g) for g in groups])
    ax.set_yscale("log")


def plot_table1(summary: pd.DataFrame, paths):
    """Table 1 as bars (ours, mean ± std over R) with the paper's values as black ticks."""
    plt = _plt()
    methods = list(dict.fromkeys(summary["method"]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, measure in zip(axes, ("ISE", "SISE")):
        _bars(ax, summary[summary["measure"] == measure], "dataset", methods)
        ax.set_title(f"{measure} (log scale)")
    axes[0].legend(fontsize=7)
    R = int(summary["R"].max())
    fig.suptitle(f"PrisCrowd Table 1: accuracy on population, stock_surrogate, "
                 f"indoor_surrogate (surrogates; R = {R})", fontsize=10)
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
            ax.plot(dm["p"], dm["paper"], color=c, ls="--", alpha=0.6)
        ax.set_xlabel("fraction of unreliable users p")
        ax.set_title(f"{measure} (solid: ours, dashed: paper)")
        ax.set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"PrisCrowd Table 2: simulated data (R = {int(summary['R'].max())})",
                 fontsize=10)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure


def plot_fig3(curves: pd.DataFrame, claims: pd.DataFrame, paths):
    """Fig. 3 case studies: densities (combined red, global black, uniform green, reference
    blue) and the claims as magenta markers sized by their user's combined weight (crosses:
    weight below half the object's mean)."""
    plt = _plt()
    cases = list(dict.fromkeys(zip(curves["dataset"], curves["case"])))
    ncol = 2
    nrow = max(1, int(np.ceil(len(cases) / ncol)))
    fig, axes = plt.subplots(nrow, ncol, figsize=(10, 3 * nrow), squeeze=False)
    style = {"combined": ("tab:red", "combined weights"), "global": ("k", "global weights"),
             "uniform": ("tab:green", "uniform weights"), "reference": ("tab:blue", "reference")}
    for ax, (ds, case) in zip(axes.ravel(), cases):
        d = curves[(curves["dataset"] == ds) & (curves["case"] == case)]
        for curve, (c, lab) in style.items():
            dc = d[d["curve"] == curve]
            ax.plot(dc["x_normalised"], dc["density_normalised"], color=c, label=lab, lw=1.2)
        cl = claims[(claims["dataset"] == ds) & (claims["case"] == case)]
        w = cl["combined_weight"].to_numpy()
        low = w < 0.5 * w.mean()
        ax.scatter(cl["x_normalised"][~low], np.zeros((~low).sum()), marker="o",
                   facecolors="none", edgecolors="m", s=20 + 200 * w[~low])
        ax.scatter(cl["x_normalised"][low], np.zeros(low.sum()), marker="x", color="m", s=25)
        ax.set_title(f"{_label(ds)}: {d['task'].iloc[0]}", fontsize=8)
        ax.set_xlabel("normalised claim")
    for ax in axes.ravel()[len(cases):]:
        ax.axis("off")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("PrisCrowd Fig. 3: case studies (claims: o weighted, x low combined weight)",
                 fontsize=10)
    fig.tight_layout()
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
            ax.set_title(f"{_label(ds)}: {measure}", fontsize=9)
            ax.set_xlabel("released claims per object m")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"PrisCrowd Fig. 4 (R = {int(summary['R'].max())})", fontsize=10)
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
        ax.set_title(f"{_label(ds)}: candidates tested", fontsize=9)
        ax.set_ylabel("candidates (all objects)")
        ax = axes[1, col]
        t = timings[timings["dataset"] == ds]
        for test, dt in t.groupby("privacy_test", sort=False):
            ax.plot(dt["m"], dt["seconds"], marker="o", label=label[bool(test)])
        ax.set_title(f"{_label(ds)}: wall clock (median of {int(t['calls'].min())})", fontsize=9)
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
    """Objects fully / partly / never released (stacked) and the pass rate, per dataset."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 3.8))
    labels = [f"{_label(d)}\n{m}" for d, m in zip(summary["dataset"], summary["method"])]
    x = np.arange(len(summary))
    bottom = np.zeros(len(summary))
    for col, c in (("fully", "tab:green"), ("partly", "tab:orange"), ("never", "tab:red")):
        share = summary[col] / summary["tasks"]
        ax.bar(x, share, bottom=bottom, color=c, label=col)
        bottom += share.to_numpy()
    ax.plot(x, summary["pass_rate"], "k*", ms=9, label="pass rate")
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("share of released objects")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("PrisCrowd release: objects fully/partly/never released, privacy-test pass "
                 "rate (surrogates marked)", fontsize=9)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure


def plot_budget(budget: pd.DataFrame, paths):
    """Empirical CDFs of Theorem 2's epsilon and delta per dataset and method (finite ones)."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, measure in zip(axes, ("epsilon", "delta")):
        for (ds, meth), d in budget.groupby(["dataset", "method"], sort=False):
            v = np.sort(d[measure].to_numpy(float))
            v = v[np.isfinite(v)]
            if v.size:
                ax.step(v, np.arange(1, v.size + 1) / len(d), where="post",
                        ls="-" if meth == "PrisCrowd" else "--", label=f"{_label(ds)} {meth}")
        ax.set_xlabel(measure)
        ax.set_ylabel("share of objects (finite values)")
        ax.set_xscale("log")
    axes[0].legend(fontsize=6)
    fig.suptitle("PrisCrowd Theorem 2: per-object (epsilon, delta); missing mass = infinite or "
                 "not covered (|U_i| < k)", fontsize=9)
    fig.tight_layout()
    _save(fig, paths)  # also closes the figure
