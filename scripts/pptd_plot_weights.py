"""Plot PPTD Fig. 7 (Li et al., KDD 2018), original caption "Weight Comparison".

Estimated weights (blue dotted) vs true weights (black solid) of 7 random users on
(a) original and (b) perturbed data of the indoor_surrogate (a surrogate of the paper's indoor
floorplan data); true weights use the ground truth in CRH's weight formula.
"""

from crowdpriv.plotting import save_figure, use_style
from crowdpriv.runtime import log_to

import matplotlib.pyplot as plt  # noqa: E402, I001 - after crowdpriv.plotting selects Agg
import pandas as pd  # noqa: E402

logger = log_to(snakemake.log[0])
use_style()

df = pd.read_csv(snakemake.input.csv)
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True, constrained_layout=True)
for ax, (panel, title) in zip(axes, [("original", "(a) Original data"),
                                     ("perturbed", "(b) Perturbed data")]):
    sub = df[df["panel"] == panel].sort_values("user")
    ax.plot(sub["user"], sub["true_weight"], "k-", marker="s", ms=4, label="true weight")
    ax.plot(sub["user"], sub["estimated_weight"], "b:", marker="o", ms=4,
            label="estimated weight")
    ax.set_xticks(sub["user"])
    if panel == "perturbed":  # each user's own noise variance under its tick, clear of the lines
        ax.set_xticklabels(
            [f"{u}\nδ²={v:.3g}" for u, v in zip(sub["user"], sub["noise_variance"])], fontsize=7
        )
        ax.set_xlabel("user (δ² = the user's noise variance)")
    else:
        ax.set_xlabel("user")
    ax.set_title(title)
    ax.grid(alpha=0.3)
axes[0].set_ylabel("CRH weight")
axes[0].legend(frameon=False)
ds = df["dataset"].iloc[0]
label_ds = f"{ds} (surrogate)" if "surrogate" in ds else ds
fig.suptitle(
    f"PPTD Fig. 7: weight comparison on {label_ds}, ε = {df['epsilon'].iloc[0]:g} "
    f"(λ2 = {df['lambda2'].iloc[0]:.3g}), one perturbation",
    fontsize=10,
)
save_figure(fig, snakemake.output.png, snakemake.output.svg)
logger.info("wrote %s", snakemake.output)
