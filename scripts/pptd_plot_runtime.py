"""Plot PPTD Fig. 8 (Li et al., KDD 2018), original caption "Efficiency Study".

(a) Truth-discovery run time on original data (red line, ±1 sd band) and on perturbed data
(blue dots, ±1 sd over R) against the average added noise, same convergence threshold;
(b) the iterations to convergence. Run times are machine- and load-dependent.
"""

from crowdpriv.plotting import save_figure, use_style
from crowdpriv.runtime import log_to

import matplotlib.pyplot as plt  # noqa: E402, I001 - after crowdpriv.plotting selects Agg
import pandas as pd  # noqa: E402

logger = log_to(snakemake.log[0])
use_style()

df = pd.read_csv(snakemake.input.csv)


def series(measure, condition):
    return df[(df["measure"] == measure) & (df["condition"] == condition)].sort_values("epsilon")


noise = series("noise", "perturbed")["mean"].to_numpy()
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
for ax, measure, scale, ylabel in [
    (axes[0], "runtime_s", 1e3, "run time (ms)"),
    (axes[1], "iterations", 1, "iterations to convergence"),
]:
    o = series(measure, "original").iloc[0]
    p = series(measure, "perturbed")
    ax.axhline(o["mean"] * scale, color="red", lw=1.5, label="original data")
    ax.axhspan((o["mean"] - o["std"]) * scale, (o["mean"] + o["std"]) * scale, color="red",
               alpha=0.1)
    ax.errorbar(noise, p["mean"] * scale, yerr=p["std"] * scale, fmt="o", color="blue",
                capsize=2, label="perturbed data")
    ax.set_xscale("log")
    ax.set_xlabel("average added noise")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
axes[0].set_title("(a) run time (median of timed calls)")
axes[1].set_title("(b) iterations")
axes[0].legend(frameon=False)
r = df.iloc[0]
fig.suptitle(
    f"PPTD Fig. 8: efficiency, {r['method'].upper()} on synthetic data "
    f"({int(r['n_users'])} users × {int(r['n_objects'])} objects), R = {int(r['R'])}, "
    f"{int(r['n_timing'])} timed calls each",
    fontsize=10,
)
save_figure(fig, snakemake.output.png, snakemake.output.svg)
logger.info("wrote %s", snakemake.output)
