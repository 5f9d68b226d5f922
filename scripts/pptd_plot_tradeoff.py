"""Adapter for rule pptd_plot_tradeoff: PPTD Figs. 2-6 (Li et al., KDD 2018), all in one job.

For each figure, summarises its per-repetition table into the figure CSV (mean, std, R per
setting, ε and measure) and draws (a) MAE and (b) average added noise against ε
(crowdpriv.pptd.plot_tradeoff).
"""

import pandas as pd

from crowdpriv.pptd import plot_tradeoff, summarise_tradeoff
from crowdpriv.runtime import start_job, write_csv

logger = start_job(snakemake)
out = snakemake.output
for fig, raw, csv, png, svg in zip(snakemake.params.figures, snakemake.input.raw, out.csv,
                                   out.png, out.svg, strict=True):
    summary = summarise_tradeoff(pd.read_csv(raw))
    write_csv(summary, csv)
    plot_tradeoff(summary, fig, [png, svg], unit=snakemake.params.units.get(fig, ""))
    logger.info("%s: %s, %s, %s", fig, csv, png, svg)
