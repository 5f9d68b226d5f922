"""Plot PPTD Fig. 7 (Li et al., KDD 2018), original caption "Weight Comparison".

Estimated weights (blue dotted) vs true weights (black solid) of 7 random users on
(a) original and (b) perturbed data of the indoor_surrogate (a surrogate of the paper's indoor
floorplan data); true weights use the ground truth in CRH's weight formula.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from crowdpriv.runtime import log_to  # noqa: E402

logger = log_to(snakemake.log[0])
rc = Path(snakemake.scriptdir) / "matplotlibrc"
if rc.exists():
    matplotlib.rc_file(rc)
matplotlib.rcParams["svg.hashsalt"] = "crowdpriv"

df = pd.read_csv(snakemake.input.csv)
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True, constrained_layout=True)
for ax, (panel, title) in zip(axes, [("original", "(a) Original data"),
                                     ("perturbed", "(b) Perturbed data")]):
    sub = df[df["panel"] == panel].sort_values("user")
    ax.plot(sub["user"], sub["true_weight"], "k-", marker="s", ms=4, label="true weight")
    ax.plot(sub["user"], sub["estimated_weight"], "b:", marker="o", ms=4,
            label="estimated weight")
    if panel == "perturbed":
        for u, w, v in zip(sub["user"], sub["estimated_weight"], sub["noise_variance"]):
            ax.annotate(f"δ²={v:.3g}", (u, w), textcoords="offset points", xytext=(0, 6),
                        ha="center", fontsize=6)
    ax.set_xticks(sub["user"])
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
for path in (snakemake.output.png, snakemake.output.svg):
    fig.savefig(path, dpi=150, metadata={"Date": None} if path.endswith(".svg") else None)
logger.info("wrote %s", snakemake.output)
