"""Figures of the PPTD reproduction (Li et al., KDD 2018): data in, figure out, one style.

Original captions: Fig. 2 "Utility-Privacy Trade-off on Synthetic Dataset"; Fig. 3 "Effect of
λ1 (Parameter of Error Distribution in Original Data)"; Fig. 4 "Effect of S (Number of Users)";
Fig. 5 "Utility-Privacy Trade-off on Synthetic Dataset (GTM)"; Fig. 6 "Utility-Privacy
Trade-off on Indoor Floorplan Dataset" (here the indoor_surrogate); Fig. 7 "Weight
Comparison"; Fig. 8 "Efficiency Study".
"""

from __future__ import annotations

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


def _pyplot():
    from crowdpriv.plotting import use_style

    use_style()  # the pipeline's one look (scripts/matplotlibrc), Agg backend
    import matplotlib.pyplot as plt

    return plt


def _save(fig, paths):
    from crowdpriv.plotting import save_figure

    save_figure(fig, *paths)




def plot_tradeoff(summary: pd.DataFrame, fig_id: str, paths, *, unit: str = "") -> None:
    """PPTD Figs. 2–6: (a) MAE and (b) average added noise against ε, same y scale as the
    paper; bars = ±1 sd over R (none when R = 1). One curve per λ1 (Fig. 3) or S (Fig. 4),
    coloured alike in both panels, with one legend for the figure; ``unit`` of the values (Fig.
    6: metres) on the y axis."""
    plt = _pyplot()
    group = {"fig3": "lambda1", "fig4": "workers"}.get(fig_id)
    dataset = summary["dataset"].iloc[0]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True, constrained_layout=True)
    groups = [(None, summary)] if group is None else list(summary.groupby(group, sort=False))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, (key, sub) in enumerate(groups):
        name = {"lambda1": "λ1", "workers": "S"}.get(group, "")
        label = f"{name} = {key:g}" if group else "perturbed data"
        colour = colours[index % len(colours)]
        for ax, measure in zip(axes, ["mae", "noise"]):
            m = sub[sub["measure"] == measure].sort_values("epsilon")
            ax.errorbar(m["epsilon"], m["mean"], yerr=m["std"], marker="o", ms=4,
                        capsize=2, label=label, color=colour)
            plain = sub[sub["measure"] == "mae_plain_mean"].sort_values("epsilon")
            if measure == "mae" and len(plain):
                # baseline (not in the paper): the plain mean of the claims, original vs perturbed
                ax.plot(plain["epsilon"], plain["mean"], ls="--", lw=1, color=colour,
                        label="plain mean" if group is None else f"{label}, plain mean")
    in_units = f" ({unit})" if unit else ""
    for ax, title in zip(axes, ["(a) MAE", "(b) Noise (average |added noise|)"]):
        ax.set_xscale("log")
        ax.set_xlabel("ε (Theorem 4.10)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"MAE / average noise{in_units}")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", frameon=False, fontsize=8,
               title="bars: ±1 sd over R" if int(summary["R"].max()) > 1 else None,
               title_fontsize=7)
    repetitions = int(summary.loc[summary["measure"] == "mae", "R"].max())
    extra = ""
    if "lambda1_source" in summary:
        extra = (f", λ1 = {summary['lambda1'].iloc[0]:.3g} "
                 f"({summary['lambda1_source'].iloc[0]})")
    elif group != "lambda1":
        extra = f", λ1 = {summary['lambda1'].iloc[0]:g}"
    fig.suptitle(f"PPTD Fig. {fig_id[3:]}: {TRADEOFF_TITLES[fig_id]} on "
                 f"{dataset_label(dataset)}, R = {repetitions}{extra}", fontsize=10)
    _save(fig, paths)


def plot_weights(shown: pd.DataFrame, paths) -> None:
    """PPTD Fig. 7: estimated (blue dotted) vs true (black solid) weights of the shown workers
    on (a) original and (b) perturbed data; true weights use the ground truth in CRH's weight
    formula."""
    plt = _pyplot()
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
                [f"{u}\nδ²={v:.3g}" for u, v in zip(sub["user"], sub["noise_variance"])],
                fontsize=7)
            ax.set_xlabel("worker (δ² = the worker's noise variance)")
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


def plot_runtime(fig8: pd.DataFrame, timings: pd.DataFrame, paths) -> None:
    """PPTD Fig. 8: (a) wall-clock time of truth discovery on original data (red line, ±1 sd
    band) and on perturbed data (blue dots) against the average added noise — median of the
    timed calls, machine- and load-dependent, never judged; (b) the iterations to convergence,
    deterministic, on which the claims are judged."""
    from matplotlib.ticker import MaxNLocator

    plt = _pyplot()
    noise = fig8[(fig8["measure"] == "noise") & (fig8["condition"] == "perturbed")].sort_values(
        "epsilon")["mean"].to_numpy()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    series = [
        (axes[0], timings, 1e3, "run time (ms)"),
        (axes[1], fig8[fig8["measure"] == "iterations"], 1, "iterations to convergence"),
    ]
    for ax, table, scale, ylabel in series:
        original = table[table["condition"] == "original"].iloc[0]
        perturbed = table[table["condition"] == "perturbed"].sort_values("epsilon")
        ax.axhline(original["mean"] * scale, color="red", lw=1.5, label="original data")
        spread = original["std"] if pd.notna(original["std"]) else 0.0
        ax.axhspan((original["mean"] - spread) * scale, (original["mean"] + spread) * scale,
                   color="red", alpha=0.1)
        ax.errorbar(noise, perturbed["mean"] * scale, yerr=perturbed["std"] * scale, fmt="o",
                    color="blue", capsize=2, label="perturbed data")
        ax.set_xscale("log")
        ax.set_xlabel("average added noise")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        if scale == 1:  # iterations are whole numbers
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    axes[0].set_title("(a) run time (median of timed calls; not judged)")
    axes[1].set_title("(b) iterations (judged)")
    axes[0].legend(frameon=False, title="band / bars: ±1 sd", title_fontsize=7)
    row = fig8.iloc[0]
    fig.suptitle(
        f"PPTD Fig. 8: efficiency, {row['method'].upper()} on synthetic data "
        f"({int(row['workers'])} workers × {int(row['tasks'])} tasks), "
        f"R = {int(fig8['R'].max())}, {int(timings['calls'].iloc[0])} timed calls each",
        fontsize=10)
    _save(fig, paths)
