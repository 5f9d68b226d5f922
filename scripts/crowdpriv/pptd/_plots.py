"""Figures of the PPTD reproduction (Li et al., KDD 2018): data in, figure out, one style.

Original captions: Fig. 2 "Utility-Privacy Trade-off on Synthetic Dataset"; Fig. 3 "Effect of
λ1 (Parameter of Error Distribution in Original Data)"; Fig. 4 "Effect of S (Number of Users)";
Fig. 5 "Utility-Privacy Trade-off on Synthetic Dataset (GTM)"; Fig. 6 "Utility-Privacy
Trade-off on Indoor Floorplan Dataset" (here the indoor_surrogate); Fig. 7 "Weight
Comparison"; Fig. 8 "Efficiency Study".
"""

from __future__ import annotations

from math import log10

import pandas as pd

from crowdpriv.labels import dataset_label

__all__ = ["plot_tradeoff", "plot_weights", "plot_runtime"]

TRADEOFF_TITLES = {
    "fig2": "Utility-privacy trade-off (CRH)",
    "fig3": "Effect of λ1 (CRH)",
    "fig4": "Effect of S, the number of workers (CRH)",
    "fig5": "Utility-privacy trade-off (GTM)",
    "fig6": "Utility-privacy trade-off (CRH)",
}
#: Figs. 3 and 4: the column with one curve per value, and its symbol in the legend
TRADEOFF_GROUPS = {"fig3": ("lambda1", "λ1"), "fig4": ("workers", "S")}
#: one marker per curve (with its colour), so curves that coincide stay visible
GROUP_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: hollow group markers shrink from the first curve to the last (points), so markers of
#: coinciding curves nest instead of covering each other
GROUP_MARKER_SIZES = (11.0, 5.0)
#: a log y axis spanning at most this many decades is labelled at 1, 2 and 5 of each
DENSE_LOG_DECADES = 3
#: (largest time in seconds shown in the unit, seconds to unit factor, unit) of Fig. 8 (a)
TIME_UNITS = ((1e-3, 1e6, "µs"), (1.0, 1e3, "ms"), (float("inf"), 1.0, "s"))
#: room above the largest value (mean + sd) of a Fig. 8 panel, as a factor of it
HEADROOM = 1.15


def _pyplot():
    from crowdpriv.plotting import use_style

    use_style()  # the pipeline's one look (scripts/matplotlibrc), Agg backend
    import matplotlib.pyplot as plt

    return plt


def _save(fig, paths):
    from crowdpriv.plotting import save_figure

    save_figure(fig, *paths)


def _measure(sub: pd.DataFrame, measure: str) -> pd.DataFrame:
    return sub[sub["measure"] == measure].sort_values("epsilon")


def _group_look(index: int, count: int, colour: str) -> dict:
    """Colour and marker of curve ``index`` of ``count``: one filled circle alone, else a
    hollow marker of its own shape and size (:data:`GROUP_MARKERS`,
    :data:`GROUP_MARKER_SIZES`) on a thinner line."""
    if count == 1:
        return dict(color=colour, marker="o", ms=5)
    largest, smallest = GROUP_MARKER_SIZES
    size = largest - (largest - smallest) * index / (count - 1)
    return dict(color=colour, marker=GROUP_MARKERS[index % len(GROUP_MARKERS)], ms=size,
                mfc="none", lw=1.2)


def _tradeoff_curves(axes, sub: pd.DataFrame, labels, look: dict):
    """Draw one setting: MAE (with its plain-mean baseline) on ``axes[0]``, noise on
    ``axes[1]``; return the legend handles of (main series, baseline or None)."""
    main_label, plain_label = labels
    style = dict(capsize=2, label=main_label, **look)
    colour = look["color"]
    handle = None
    for ax, measure in zip(axes, ["mae", "noise"]):
        m = _measure(sub, measure)
        handle = ax.errorbar(m["epsilon"], m["mean"], yerr=m["std"], **style)
    plain = _measure(sub, "mae_plain_mean")
    baseline = None
    if len(plain):  # the pipeline's baseline (not in the paper): plain per-object mean
        (baseline,) = axes[0].plot(plain["epsilon"], plain["mean"], ls="--", lw=1,
                                   color=colour, label=plain_label)
    return handle, baseline


def _epsilon_axis(ax, epsilons) -> None:
    """Log ε axis labelled at the data's ε values (plain numbers, no minor labels)."""
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log")
    ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="x", labelsize=8)  # up to 3 labels per decade side by side
    ax.set_xlabel("ε (Theorem 4.10)")


def _log_y_ticks(ax) -> None:
    """Log y axis with major ticks at 1, 2 and 5 of each decade when it spans few decades
    (one label per decade leaves 1-2 labels on a short range)."""
    from matplotlib.ticker import LogLocator

    ax.set_yscale("log")
    low, high = ax.get_ylim()
    if log10(high / low) <= DENSE_LOG_DECADES:
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))


def _tradeoff_legend(fig, main, baselines, title) -> None:
    """One legend for the figure, main series first, then the plain-mean baselines."""
    entries = main + [b for b in baselines if b is not None]
    fig.legend(entries, [e.get_label() for e in entries], loc="outside right center",
               frameon=False, fontsize=8, title=title, title_fontsize=7)


def plot_tradeoff(summary: pd.DataFrame, fig_id: str, paths, *, unit: str = "") -> None:
    """PPTD Figs. 2–6: (a) MAE and (b) average added noise against ε on one shared log y
    scale (the paper shares the scale; log keeps both readable); bars = ±1 sd over R (none
    when R = 1). One curve per λ1 (Fig. 3) or S (Fig. 4), with its own colour and marker in
    both panels, and one legend for the figure; ``unit`` of the values (Fig. 6: metres) on
    the y axes."""
    plt = _pyplot()
    group, symbol = TRADEOFF_GROUPS.get(fig_id, (None, ""))
    method = summary["method"].iloc[0].upper()
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8), sharey=True, constrained_layout=True)
    groups = [(None, summary)] if group is None else list(summary.groupby(group, sort=False))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    main, baselines = [], []
    for index, (key, sub) in enumerate(groups):
        setting = f"{symbol} = {key:g}" if group else "original vs perturbed"
        labels = ((f"{method}, {setting}", f"plain mean, {setting}") if group else
                  (f"{method} ({setting})", f"plain mean ({setting})"))
        look = _group_look(index, len(groups), colours[index % len(colours)])
        handle, baseline = _tradeoff_curves(axes, sub, labels, look)
        main.append(handle)
        baselines.append(baseline)
    in_units = f" ({unit})" if unit else ""
    epsilons = sorted(summary["epsilon"].unique())
    for ax, title, ylabel in zip(axes, ["(a) MAE", "(b) Noise"],
                                 ["MAE", "average |added noise|"]):
        _epsilon_axis(ax, epsilons)
        _log_y_ticks(ax)
        ax.set_ylabel(ylabel + in_units)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[1].tick_params(labelleft=True)  # the shared log scale read on both panels
    repetitions = int(summary.loc[summary["measure"] == "mae", "R"].max())
    title = "MAE: original vs perturbed" if group else None
    if repetitions > 1:
        title = "\n".join(filter(None, [title, f"bars: ±1 sd over R = {repetitions}"]))
    _tradeoff_legend(fig, main, baselines, title)
    extra = ""
    if "lambda1_source" in summary:
        extra = (f", λ1 = {summary['lambda1'].iloc[0]:.3g} "
                 f"({summary['lambda1_source'].iloc[0]})")
    elif group != "lambda1":
        extra = f", λ1 = {summary['lambda1'].iloc[0]:g}"
    fig.suptitle(f"PPTD Fig. {fig_id[3:]}: {TRADEOFF_TITLES[fig_id]} on "
                 f"{dataset_label(summary['dataset'].iloc[0])}, R = {repetitions}{extra}",
                 fontsize=10)
    _save(fig, paths)


def plot_weights(shown: pd.DataFrame, paths, *, unit: str = "") -> None:
    """PPTD Fig. 7: estimated (blue dotted) vs true (black solid) weights of the shown workers
    on (a) original and (b) perturbed data; true weights use the ground truth in CRH's weight
    formula. Under (b), each worker's noise variance δ² in ``unit`` squared (indoor: m²)."""
    plt = _pyplot()
    squared = f" {unit}²" if unit else ""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True, constrained_layout=True)
    for ax, (panel, title) in zip(axes, [("original", "(a) Original data"),
                                         ("perturbed", "(b) Perturbed data")]):
        sub = shown[shown["panel"] == panel].sort_values("user")
        ax.plot(sub["user"], sub["true_weight"], "k-", marker="s", ms=4, label="true weight")
        ax.plot(sub["user"], sub["estimated_weight"], "b:", marker="o", ms=4,
                label="estimated weight")
        ax.set_xticks(sub["user"])
        if panel == "perturbed":  # each worker's own noise variance under its tick
            ax.set_xticklabels(
                [f"{u}\n{v:.3g}{squared}" for u, v in zip(sub["user"], sub["noise_variance"])],
                fontsize=8)
            ax.set_xlabel("worker (below it: δ², the worker's noise variance)")
        else:
            ax.set_xlabel("worker")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("CRH weight")
    axes[0].legend(frameon=False)
    fig.suptitle(
        f"PPTD Fig. 7: weight comparison on {dataset_label(shown['dataset'].iloc[0])}, "
        f"ε = {shown['epsilon'].iloc[0]:g} (λ2 = {shown['lambda2'].iloc[0]:.3g}), one "
        "perturbation", fontsize=10)
    _save(fig, paths)


def _time_unit(seconds: float) -> tuple[float, str]:
    """(factor, unit) that shows ``seconds`` in µs below 1 ms, in ms below 1 s, else in s."""
    return next((factor, unit) for bound, factor, unit in TIME_UNITS if seconds < bound)


def _runtime_panel(ax, table: pd.DataFrame, noise, scale: float) -> None:
    """One Fig. 8 panel: the original data as a red line with its ±1 sd band, the perturbed
    data as blue dots (±1 sd bars) at their average noise; y from 0 with headroom."""
    original = table[table["condition"] == "original"].iloc[0]
    perturbed = table[table["condition"] == "perturbed"].sort_values("epsilon")
    spread = original["std"] if pd.notna(original["std"]) else 0.0
    ax.axhline(original["mean"] * scale, color="red", lw=1, label="original data")
    ax.axhspan((original["mean"] - spread) * scale, (original["mean"] + spread) * scale,
               color="red", alpha=0.25)
    ax.errorbar(noise, perturbed["mean"] * scale, yerr=perturbed["std"] * scale, fmt="o",
                color="blue", capsize=2, label="perturbed data")
    largest = max(original["mean"] + spread,
                  (perturbed["mean"] + perturbed["std"].fillna(0)).max())
    ax.set_ylim(0, HEADROOM * largest * scale)
    ax.set_xscale("log")
    ax.set_xlabel("average added noise")
    ax.grid(alpha=0.3)


def _same_iterations_note(ax, iterations: pd.DataFrame) -> None:
    """Say in panel (b) when every perturbed run took exactly the original's iterations."""
    original = iterations[iterations["condition"] == "original"]
    perturbed = iterations[iterations["condition"] == "perturbed"]
    value = original["mean"].iloc[0]
    if (perturbed["mean"] == value).all() and not iterations["std"].fillna(0).any():
        ax.text(0.5, 0.4, f"every run converges in {value:g} iterations:\non perturbed data "
                "at every noise level\nas on the original data", transform=ax.transAxes,
                ha="center", va="center", fontsize=8)


def plot_runtime(fig8: pd.DataFrame, timings: pd.DataFrame, paths) -> None:
    """PPTD Fig. 8: (a) wall-clock time of truth discovery on original data (red line, ±1 sd
    band) and on perturbed data (blue dots) against the average added noise — median of the
    timed calls, machine- and load-dependent, never judged; in µs, ms or s by size; (b) the
    iterations to convergence, deterministic, on which the claims are judged, with a note
    when they are the same at every noise level."""
    from matplotlib.ticker import MaxNLocator

    plt = _pyplot()
    noise = fig8[(fig8["measure"] == "noise") & (fig8["condition"] == "perturbed")].sort_values(
        "epsilon")["mean"].to_numpy()
    iterations = fig8[fig8["measure"] == "iterations"]
    factor, unit = _time_unit((timings["mean"] + timings["std"].fillna(0)).max())
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6), constrained_layout=True)
    _runtime_panel(axes[0], timings, noise, factor)
    _runtime_panel(axes[1], iterations, noise, 1)
    axes[0].set_ylabel(f"run time ({unit})")
    axes[1].set_ylabel("iterations to convergence")
    axes[1].yaxis.set_major_locator(MaxNLocator(integer=True))  # whole numbers
    _same_iterations_note(axes[1], iterations)
    axes[0].set_title("(a) run time (median of timed calls; not judged)")
    axes[1].set_title("(b) iterations (judged)")
    repetitions = int(fig8["R"].max())
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", frameon=False, fontsize=8,
               title=f"band / bars: ±1 sd\nover R = {repetitions}", title_fontsize=7)
    row = fig8.iloc[0]
    fig.suptitle(
        f"PPTD Fig. 8: efficiency, {row['method'].upper()} on synthetic data "
        f"({int(row['workers'])} workers × {int(row['tasks'])} tasks), "
        f"R = {repetitions}, {int(timings['calls'].iloc[0])} timed calls each",
        fontsize=10)
    _save(fig, paths)
