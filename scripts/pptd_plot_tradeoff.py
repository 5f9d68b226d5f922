"""Plot PPTD Figs. 2-6 (Li et al., KDD 2018) from their CSV.

Original captions: Fig. 2 "Utility-Privacy Trade-off on Synthetic Dataset"; Fig. 3 "Effect of
λ1 (Parameter of Error Distribution in Original Data)"; Fig. 4 "Effect of S (Number of Users)";
Fig. 5 "Utility-Privacy Trade-off on Synthetic Dataset (GTM)"; Fig. 6 "Utility-Privacy
Trade-off on Indoor Floorplan Dataset" (here the indoor_surrogate). Panels (a) MAE and
(b) average added noise against ε, same y scale as in the paper; bars = ±1 sd over R.
"""

from crowdpriv.plotting import save_figure, use_style
from crowdpriv.runtime import log_to

import matplotlib.pyplot as plt  # noqa: E402, I001 - after crowdpriv.plotting selects Agg
import pandas as pd  # noqa: E402

logger = log_to(snakemake.log[0])
use_style()

TITLES = {
    "fig2": "Utility-privacy trade-off (CRH)",
    "fig3": "Effect of λ1 (CRH)",
    "fig4": "Effect of S, the number of users (CRH)",
    "fig5": "Utility-privacy trade-off (GTM)",
    "fig6": "Utility-privacy trade-off (CRH)",
}
fig_id = snakemake.wildcards.fig
df = pd.read_csv(snakemake.input.csv)
group = {"fig3": "lambda1", "fig4": "n_users"}.get(fig_id)
dataset = df["dataset"].iloc[0]
label_ds = f"{dataset} (surrogate)" if "surrogate" in dataset else dataset
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True, constrained_layout=True)
groups = [(None, df)] if group is None else list(df.groupby(group))
for key, sub in groups:
    name = {"lambda1": "λ1", "n_users": "S"}.get(group, "")
    label = f"{name} = {key:g}" if group else None
    for ax, measure in zip(axes, ["mae", "noise"]):
        m = sub[sub["measure"] == measure].sort_values("epsilon")
        ax.errorbar(m["epsilon"], m["mean"], yerr=m["std"], marker="o", ms=4, capsize=2,
                    label=label)
for ax, title in zip(axes, ["(a) MAE", "(b) Noise (average |added noise|)"]):
    ax.set_xscale("log")
    ax.set_xlabel("ε (Theorem 4.10)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
axes[0].set_ylabel("MAE / average noise")
if group:
    axes[1].legend(frameon=False)
R = int(df.loc[df["measure"] == "mae", "R"].max())
extra = ""
if "lambda1_source" in df:
    extra = f", λ1 = {df['lambda1'].iloc[0]:.3g} ({df['lambda1_source'].iloc[0]})"
elif group != "lambda1":
    extra = f", λ1 = {df['lambda1'].iloc[0]:g}"
fig.suptitle(
    f"PPTD Fig. {fig_id[3:]}: {TITLES[fig_id]} on {label_ds}, R = {R}{extra}", fontsize=10
)
save_figure(fig, snakemake.output.png, snakemake.output.svg)
logger.info("wrote %s", snakemake.output)
