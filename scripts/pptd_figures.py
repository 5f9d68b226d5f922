"""Adapter for rule pptd_figures: PPTD Figs. 2-8 (Li et al., KDD 2018), all in one job.

- Figs. 2-6: each per-repetition table summarised into the figure CSV (mean, std, R per
  setting, ε and measure), drawn as (a) MAE and (b) average added noise against ε
  (crowdpriv.pptd.plot_tradeoff).
- Fig. 7 "Weight Comparison": the CSV summarises the per-perturbation agreement and errors
  (mean, std, R per measure); the figure shows the estimated and true weights of the shown
  workers.
- Fig. 8 "Efficiency Study": fig8.csv holds iterations to convergence and average noise per
  condition (mean, std, R); fig8_timings.csv the wall-clock medians (machine- and
  load-dependent, never judged).
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

import pandas as pd

from crowdpriv.aggregate import summarise
from crowdpriv.pptd import (
    plot_runtime,
    plot_tradeoff,
    plot_weights,
    summarise_runtime,
    summarise_tradeoff,
)
from crowdpriv.runtime import finish_job, start_job, write_csv

logger = start_job(snakemake)
inp, out, units = snakemake.input, snakemake.output, snakemake.params.units
for fig, raw, csv, png, svg in zip(snakemake.params.figures, inp.raw, out.csv, out.png,
                                   out.svg, strict=True):
    summary = summarise_tradeoff(pd.read_csv(raw))
    write_csv(summary, csv)
    plot_tradeoff(summary, fig, [png, svg], unit=units.get(fig, ""))
    logger.info("%s: %s, %s, %s", fig, csv, png, svg)

reps = pd.read_csv(inp.reps)
keys = ["dataset", "epsilon", "lambda1", "lambda2"]
long = reps.melt(id_vars=keys + ["rep"], var_name="measure")
write_csv(summarise(long, keys + ["measure"], "value"), out.fig7_csv)
plot_weights(pd.read_csv(inp.shown), [out.fig7_png, out.fig7_svg], unit=units.get("fig7", ""))

fig8, timings = summarise_runtime(pd.read_csv(inp.work), pd.read_csv(inp.timings))
write_csv(fig8, out.fig8_csv)
write_csv(timings, out.fig8_timings)
plot_runtime(fig8, timings, [out.fig8_png, out.fig8_svg])
finish_job()
