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

#: method markers (colours: crowdpriv.plotting.METHOD_COLOURS, shared with the other papers)
_MARKERS = {"PrisCrowd": "o", "Uniform": "s", "Basic(Strong)": "^", "Basic(Normal)": "v",
            "Basic(Weak)": "D"}
_LETTERS = "abcdefghijklmnop"


def _colour(method: str):
    from crowdpriv.plotting import METHOD_COLOURS

    return METHOD_COLOURS.get(method)


def _figure_legend(fig, axes, **kw):
    """One legend for the whole figure (outside the panels), the paper's series after ours."""
    from crowdpriv.plotting import figure_legend

    figure_legend(fig, axes, last=lambda label: label.startswith("paper"), **kw)


def _plt():
    from crowdpriv.plotting import use_style

    use_style()  # the pipeline's one look (scripts/matplotlibrc), Agg backend
    import matplotlib.pyplot as plt

    return plt




def _save(fig, paths):
    from crowdpriv.plotting import save_figure

    save_figure(fig, *paths)


def plot_table1(summary: pd.DataFrame, paths):
    """Table 1, ours beside the paper's, per object: the paper's values read as averages over
    objects (its Table 1 violates SISE ≤ ISE² as sums; docs/results.md), so ours are drawn as
    ``per_object`` = our sum over objects / objects (mean ± 1 sd over R, filled markers) and the
    paper's as hollow black markers at the same x; log y axis, so markers rather than bars."""
    plt = _plt()
    methods = list(dict.fromkeys(summary["method"]))
    datasets = list(dict.fromkeys(summary["dataset"]))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    width = 0.8 / len(methods)
    for ax, measure, letter in zip(axes, ("ISE", "SISE"), "ab"):
        d = summary[summary["measure"] == measure]
        for j, meth in enumerate(methods):
            dm = d[d["method"] == meth].set_index("dataset").reindex(datasets)
            x = np.arange(len(datasets)) + (j - (len(methods) - 1) / 2) * width
            per_object_sd = dm["std"] * dm["per_object"] / dm["mean"]
            ax.errorbar(x, dm["per_object"], yerr=per_object_sd, fmt=_MARKERS.get(meth, "o"),
                        color=_colour(meth), capsize=2, label=f"{meth} (ours)")
            ax.plot(x, dm["paper"], linestyle="none", marker=_MARKERS.get(meth, "o"),
                    markerfacecolor="none", markeredgecolor="k", markersize=7,
                    label="paper, as printed (hollow black)" if j == 0 else "_nolegend_",
                    gid=None if j == 0 else "reference")
        ax.set_xticks(np.arange(len(datasets)), [dataset_label(g) for g in datasets])
        ax.grid(axis="x", visible=False)
        ax.set_yscale("log")
        ax.set_ylabel(f"{measure} per object")
        ax.set_title(f"({letter}) {measure} per object", fontsize=9)
    _figure_legend(fig, axes, loc="outside right center")
    R = int(summary["R"].max())
    fig.suptitle(f"PrisCrowd Table 1 per object on {', '.join(dataset_label(d) for d in datasets)}"
                 f"\nours: sum over the objects with truth / their number (mean ± 1 sd over "
                 f"R = {R}); paper: its printed values, read as per object", fontsize=10)
    _save(fig, paths)  # also closes the figure


def _paper_groups(d: pd.DataFrame) -> list[tuple[list[str], pd.DataFrame]]:
    """The paper's series of ``d`` grouped where they print the same values (within 1 %), so
    identical printed rows are drawn once, labelled with every method they stand for."""
    groups: list[tuple[list[str], pd.DataFrame]] = []
    for meth, dm in d.groupby("method", sort=False):
        values = dm.sort_values("p")["paper"].to_numpy(float)
        for names, first in groups:
            other = first.sort_values("p")["paper"].to_numpy(float)
            if len(other) == len(values) and np.allclose(values, other, rtol=0.01):
                names.append(meth)
                break
        else:
            groups.append(([meth], dm))
    return groups


def plot_table2(summary: pd.DataFrame, paths):
    """Table 2 as lines over p: ours (solid, mean ± 1 sd over R) and the paper's (dashed, in
    its method's colour; rows the paper prints alike are one grey line, labelled with all of
    them). Log y axes, x ticks at the p values."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    for ax, measure, letter in zip(axes, ("ISE", "SISE"), "ab"):
        d = summary[summary["measure"] == measure]
        for meth, dm in d.groupby("method", sort=False):
            ax.errorbar(dm["p"], dm["mean"], yerr=dm["std"], color=_colour(meth),
                        marker=_MARKERS.get(meth, "o"), label=meth, capsize=2)
        for names, dm in _paper_groups(d):
            merged = len(names) > 1  # rows printed alike: one neutral line for all of them
            ax.plot(dm["p"], dm["paper"], color="0.45" if merged else _colour(names[0]), ls="--",
                    alpha=0.7,
                    marker=_MARKERS.get(names[0], "o"), markerfacecolor="none",
                    label=f"paper: {' = '.join(names)}")
        ax.set_xticks(sorted(set(d["p"])))
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
        ax.set_xlabel("fraction of unreliable users p")
        ax.set_ylabel(measure)
        ax.set_title(f"({letter}) {measure} (solid: ours ± 1 sd over R; dashed: paper)",
                     fontsize=9)
        ax.set_yscale("log")
    _figure_legend(fig, axes, loc="outside right center")
    fig.suptitle(f"PrisCrowd Table 2: simulated data (R = {int(summary['R'].max())})",
                 fontsize=10)
    _save(fig, paths)  # also closes the figure


def plot_fig3(curves: pd.DataFrame, claims: pd.DataFrame, paths, quantiles=None):
    """Fig. 3 case studies: densities (combined red, global black, uniform green, reference
    blue, drawn last and dashed so a curve that coincides with it stays visible) and the
    claims as magenta markers sized by their user's combined weight (crosses: weight below half
    the object's mean). The x range is the case's view (``view_lo``/``view_hi``); claims beyond
    it are counted under the axis. Panels are lettered (a), (b), … in the paper's order and
    name the ISE quantile (``quantiles``, Fig. 3's config) that picked the object."""
    plt = _plt()
    cases = list(dict.fromkeys(zip(curves["dataset"], curves["case"])))
    ncol = 2
    nrow = max(1, int(np.ceil(len(cases) / ncol)))
    fig, axes = plt.subplots(nrow, ncol, figsize=(10, 3.1 * nrow + 0.7), squeeze=False,
                             layout="constrained")
    style = {"combined": (_colour("PrisCrowd"), "combined weights", "-", 2.2),
             "global": ("k", "global weights", "-", 1.2),
             "uniform": (_colour("Uniform"), "uniform weights", "-", 1.2),
             "reference": ("#0072B2", "reference K_h(x − truth)", "--", 1.2)}
    for ax, (ds, case), letter in zip(axes.ravel(), cases, _LETTERS):
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
        xlabel = "normalised claim"
        if "view_lo" in d and d["view_lo"].notna().any():
            lo, hi = float(d["view_lo"].iloc[0]), float(d["view_hi"].iloc[0])
            ax.set_xlim(lo, hi)
            outside = int(((cl["x_normalised"] < lo) | (cl["x_normalised"] > hi)).sum())
            if outside:
                xlabel += f"  ({outside} of {len(cl)} claims outside the view)"
        picked = (f", ISE quantile {quantiles[int(case)]:g}"
                  if quantiles is not None and int(case) < len(quantiles) else "")
        ax.set_title(f"({letter}) {dataset_label(ds)}{picked}: {d['task'].iloc[0]}", fontsize=8)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("density")
    for ax in axes.ravel()[len(cases):]:
        ax.axis("off")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=7)
    fig.suptitle("PrisCrowd Fig. 3: case studies (objects at the configured quantiles of the "
                 "uniform density's ISE)", fontsize=10)
    _save(fig, paths)  # also closes the figure


def plot_fig4(summary: pd.DataFrame, paths):
    """Fig. 4: ISE and SISE vs number of released claims m, per dataset (mean ± 1 sd over R),
    on log y axes (m = 1 is tens of times m = 30 on some datasets), panels (a)-(f) in the
    paper's order (rows: datasets; columns: ISE, SISE)."""
    plt = _plt()
    dsets = list(dict.fromkeys(summary["dataset"]))
    fig, axes = plt.subplots(len(dsets), 2, figsize=(10, 2.9 * len(dsets) + 0.5),
                             squeeze=False, layout="constrained")
    letters = iter(_LETTERS)
    for row, ds in zip(axes, dsets):
        for ax, measure in zip(row, ("ISE", "SISE")):
            d = summary[(summary["dataset"] == ds) & (summary["measure"] == measure)]
            for meth, dm in d.groupby("method", sort=False):
                ax.plot(dm["m"], dm["mean"], marker=_MARKERS.get(meth, "o"), ms=3.5,
                        markerfacecolor="none", color=_colour(meth), label=meth)
                ax.fill_between(dm["m"], dm["mean"] - dm["std"], dm["mean"] + dm["std"],
                                color=_colour(meth), alpha=0.2, linewidth=0)
            ax.set_yscale("log")
            ax.set_title(f"({next(letters)}) {dataset_label(ds)}: {measure}", fontsize=9)
            ax.set_xlabel("released claims per object m")
            ax.set_ylabel(f"{measure} (log scale)")
    _figure_legend(fig, axes, loc="outside lower center", ncol=4)
    fig.suptitle(f"PrisCrowd Fig. 4: accuracy vs m (R = {int(summary['R'].max())}; band: ±1 sd "
                 "over R)", fontsize=10)
    _save(fig, paths)  # also closes the figure


def plot_fig5(work: pd.DataFrame, timings: pd.DataFrame, paths, cap=None):
    """Fig. 5 per dataset: (top) candidates Alg. 1 tests vs m, with and without the privacy test
    (deterministic, mean ± 1 sd over repetitions), with the ceiling Alg. 1's candidate cap puts
    on it where the curves reach half of it (``cap``: dataset → objects × ``max_candidates``;
    a curve bending towards it is the cap binding, not the algorithm's cost); (bottom) the
    wall-clock time of phase 2, median of the timed calls (machine- and load-dependent, never
    judged)."""
    plt = _plt()
    dsets = list(dict.fromkeys(work["dataset"]))
    fig, axes = plt.subplots(2, len(dsets), figsize=(4.2 * len(dsets), 6.6), squeeze=False,
                             layout="constrained")
    label = {True: "with privacy test", False: "without privacy test"}
    colour = {True: "k", False: "0.55"}  # not the methods' colours
    marker = {True: "o", False: "s"}
    letters = iter(_LETTERS)
    for col, ds in enumerate(dsets):
        ax = axes[0, col]
        d = work[(work["dataset"] == ds) & (work["measure"] == "candidates")]
        for test, dt in d.groupby("privacy_test", sort=False):
            ax.errorbar(dt["m"], dt["mean"], yerr=dt["std"], marker=marker[bool(test)],
                        color=colour[bool(test)], capsize=2, label=label[bool(test)])
        top = float((d["mean"] + d["std"].fillna(0)).max())
        if cap is not None and ds in cap and top >= 0.5 * cap[ds]:  # drawn where it binds
            ax.axhline(cap[ds], color="0.45", linestyle="--", linewidth=1)
            ax.text(0.02, cap[ds], "candidate cap (objects × max_candidates)",
                    transform=ax.get_yaxis_transform(), va="bottom", fontsize=7, color="0.3")
            ax.set_ylim(0, 1.12 * cap[ds])
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
        ax.set_title(f"({next(letters)}) {dataset_label(ds)}: candidates tested", fontsize=9)
        ax.set_ylabel("candidates (all objects)")
    for col, ds in enumerate(dsets):
        ax = axes[1, col]
        t = timings[timings["dataset"] == ds]
        for test, dt in t.groupby("privacy_test", sort=False):
            ax.plot(dt["m"], 1e3 * dt["seconds"], marker=marker[bool(test)],
                    color=colour[bool(test)], label=label[bool(test)])
        ax.set_title(f"({next(letters)}) {dataset_label(ds)}: wall clock "
                     f"(median of {int(t['calls'].min())})", fontsize=9)
        ax.set_ylabel("milliseconds")
    for ax in axes.ravel():
        ax.set_xlabel("released claims per object m")
        ax.set_ylim(bottom=0)
    _figure_legend(fig, axes, loc="outside lower center", ncol=2)
    fig.suptitle("PrisCrowd Fig. 5: cost of phase 2 vs m (top: deterministic work, judged; "
                 "bottom: wall clock, load-dependent, not judged)", fontsize=10)
    _save(fig, paths)  # also closes the figure


def _row_label(dataset: str, method: str) -> str:
    """'population · PrisCrowd'; the simulated datasets of Table 2 as 'simulated, p = 0.1'."""
    name = str(dataset)
    if name.startswith("simulated_p"):
        name = f"simulated, p = {name[len('simulated_p'):]}"
    else:
        name = dataset_label(name)
    return f"{name} · {method}"


def plot_release(summary: pd.DataFrame, paths):
    """Objects fully / partly / never released (stacked horizontal bars, one row per dataset
    and method, in the table's order) and the privacy-test pass rate (stars)."""
    plt = _plt()
    n = len(summary)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.32 * n), layout="constrained")
    labels = [_row_label(d, m) for d, m in zip(summary["dataset"], summary["method"])]
    y = np.arange(n)[::-1]  # first row on top
    left = np.zeros(n)
    for col, c in (("fully", "#009E73"), ("partly", "#E69F00"), ("never", "#CC79A7")):
        share = (summary[col] / summary["tasks"]).to_numpy()
        ax.barh(y, share, left=left, color=c, label=f"{col} released", height=0.7)
        left += share
    ax.plot(summary["pass_rate"], y, "k*", ms=8, label="privacy-test pass rate")
    ax.set_axisbelow(True)
    ax.grid(axis="y", visible=False)
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of objects / pass rate")
    ax.set_ylabel("dataset · method")
    fig.legend(loc="outside lower center", ncol=4, fontsize=7)
    ax.set_title("PrisCrowd release: objects fully / partly / never released, privacy-test "
                 "pass rate (means over R)", fontsize=9)
    _save(fig, paths)  # also closes the figure


def plot_budget(budget: pd.DataFrame, paths):
    """PrisCrowd Theorem 2 per object, one row per dataset and method. (a) ε: the share of
    objects whose ε is finite, infinite (a claim of zero weight) or not covered (|U_i| < k),
    with the finite values and their count written beside the bar; (b) δ of the covered
    objects: range (whisker), quartiles (box) and median (tick), on the same rows, so methods
    whose δ coincide (Uniform's is one value) stay apart."""
    from matplotlib.ticker import MaxNLocator

    plt = _plt()
    groups = list(budget.groupby(["dataset", "method"], sort=False))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(12, 1.8 + 0.45 * len(groups)), layout="constrained", sharey=True,
        gridspec_kw={"width_ratios": [1.25, 1]})
    y = np.arange(len(groups))[::-1]
    shares, deltas = [], []
    for (ds, meth), d in groups:
        eps = d["epsilon"].to_numpy(float)
        delta = d["delta"].to_numpy(float)
        covered = np.isfinite(delta)  # as summarise_budget counts them
        finite = covered & np.isfinite(eps)
        shares.append((finite.mean(), (covered & ~finite).mean(), (~covered).mean(),
                       eps[finite]))
        deltas.append(delta[covered])
    start = np.zeros(len(groups))
    for k, (name, colour) in enumerate((("finite ε", "#88CCEE"), ("infinite ε", "#882255"),
                                        ("not covered (|U_i| < k)", "0.75"))):
        width = np.array([sh[k] for sh in shares])
        left.barh(y, width, left=start, color=colour, label=name, height=0.7)
        start += width
    for yi, sh in zip(y, shares):
        count = sh[3].size
        if count:
            lo, hi = sh[3].min(), sh[3].max()
            values = f"ε = {lo:.3g}" if np.isclose(lo, hi) else f"ε ∈ [{lo:.3g}, {hi:.3g}]"
            text = f"finite: {values}" + (f" ({count} object{'s' * (count > 1)})"
                                            if sh[0] < 0.05 else "")
        else:
            text = "no object has a finite ε"
        left.text(1.02, yi, text, va="center", fontsize=7, transform=left.get_yaxis_transform())
    left.set_yticks(y, [_row_label(ds, meth) for (ds, meth), _ in groups], fontsize=7)
    left.set_xlim(0, 1)
    left.set_axisbelow(True)
    left.grid(axis="y", visible=False)
    left.set_xlabel("share of objects")
    left.set_ylabel("dataset · method")
    left.set_title("(a) per-object ε (Theorem 2)", fontsize=9)
    for yi, v in zip(y, deltas):
        if not v.size:
            continue
        q0, q1, q2, q3, q4 = np.quantile(v, [0, 0.25, 0.5, 0.75, 1])
        if np.isclose(q0, q4):  # one value for every object (equal seed weights)
            right.plot([q2], [yi], marker="D", color="k", linestyle="none",
                       label="δ: one value for every object")
            right.annotate(f"δ = {q2:.3g}", (q2, yi), xytext=(6, 0), textcoords="offset points",
                           va="center", fontsize=7)
            continue
        right.plot([q0, q4], [yi, yi], color="0.3", lw=1, label="δ: range over objects")
        right.barh(yi, q3 - q1, left=q1, height=0.45, color="#56B4E9", edgecolor="0.3",
                   label="δ: quartiles (box)")
        right.plot([q2, q2], [yi - 0.25, yi + 0.25], color="k", lw=1.6, label="δ: median")
    right.margins(x=0.08)
    right.xaxis.set_major_locator(MaxNLocator(4))  # a narrow panel: few, readable ticks
    right.set_axisbelow(True)
    right.grid(axis="y", visible=False)
    right.set_xlabel("per-object δ (Theorem 2), covered objects")
    right.set_title("(b) per-object δ", fontsize=9)
    _figure_legend(fig, [left, right], loc="outside lower center", ncol=6, fontsize=7)
    fig.suptitle("PrisCrowd Theorem 2: the per-object (ε, δ) of the releases", fontsize=10)
    _save(fig, paths)  # also closes the figure
