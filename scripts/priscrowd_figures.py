"""Adapter for rule priscrowd_figures: every PrisCrowd table and figure (Huai et al., IJCAI 2019)
in one job. Inputs, outputs and params are named ``<part>_<name>``; each part below reads only
its own.

- table1: Table 1 "Accuracy comparison on the real-world datasets" (ISE/SISE of PrisCrowd,
  Uniform, Basic(Strong/Normal/Weak) on population, stock and indoor; here stock_surrogate and
  indoor_surrogate), ours (mean, std, R) beside the paper's printed values;
- table2: Table 2 (App. E, simulated data), ours beside the paper's;
- fig3: Fig. 3, the estimated densities of example objects, with their claims and ISE;
- fig4: Fig. 4 "Accuracy w.r.t. Number of Sampled Claims" (ISE and SISE vs m, PrisCrowd and
  Uniform, per dataset);
- fig5: Fig. 5, candidates tested (judged) and wall-clock times (plotted, never judged) vs m;
- release: the release counts per dataset (surrogates marked) and the simulated data's;
- budget: Theorem 2's (ε, δ) per object, quantiles.
"""

from crowdpriv.jobserver import run_in_server

run_in_server(snakemake)  # noqa: F821  (with a job server, the job runs in its fork)

from types import SimpleNamespace

import pandas as pd

from crowdpriv.aggregate import in_order
from crowdpriv.priscrowd import (
    fig3_case_ise,
    plot_budget,
    plot_fig3,
    plot_fig4,
    plot_fig5,
    plot_release,
    plot_table1,
    plot_table2,
    summarise_budget,
    summarise_fig4,
    summarise_fig5,
    summarise_release,
    summarise_table1,
    summarise_table2,
)
from crowdpriv.runtime import finish_job, start_job, write_csv, write_markdown

logger = start_job(snakemake)


def part(name: str) -> tuple[SimpleNamespace, SimpleNamespace, SimpleNamespace]:
    """The inputs, outputs and params of one part, names without the ``<part>_`` prefix."""
    def strip(named):
        prefix = f"{name}_"
        return SimpleNamespace(**{k[len(prefix):]: v for k, v in named.items()
                                  if k.startswith(prefix)})
    return strip(snakemake.input), strip(snakemake.output), strip(snakemake.params)


def concat(paths) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


def table1() -> None:
    i, o, _ = part("table1")
    runs, info = concat(i.runs), concat(i.info)
    n_objects = info.set_index("dataset")["tasks_with_truth"]  # the tasks scored
    table = summarise_table1(runs, pd.read_csv(i.paper), n_objects=n_objects)
    table = in_order(table, "dataset", runs["dataset"])  # the config's (the paper's) order
    write_csv(table, o.csv)
    write_markdown(
        table[["measure", "dataset", "method", "mean", "std", "R", "paper", "ratio_to_paper",
               "per_object", "per_object_ratio_to_paper"]],
        o.md,
        title="PrisCrowd Table 1: ISE and SISE, ours vs paper (stock and indoor are surrogates)",
        notes="Ours: mean and std over R repetitions of the release, summed over the objects "
        "with ground truth (App. D); per_object: the same divided by their number (the paper's "
        "Table 1 satisfies SISE >= ISE^2, true of averages, in 12 of 15 cells and SISE <= "
        "ISE^2, true of sums, in 3); paper: Huai et al. Table 1 (population, stock, indoor; our "
        "stock_surrogate/indoor_surrogate are simulated sources).",
    )
    plot_table1(table, [o.png, o.svg])


def table2() -> None:
    i, o, _ = part("table2")
    table = summarise_table2(concat(i.runs), pd.read_csv(i.paper))
    write_csv(table, o.csv)
    write_markdown(
        table[["measure", "p", "method", "mean", "std", "R", "paper", "ratio_to_paper"]],
        o.md,
        title="PrisCrowd Table 2: simulated data, ours vs paper",
        notes="Ours: mean and std over R simulated datasets; paper: Huai et al. App. E, Table 2.",
    )
    plot_table2(table, [o.png, o.svg])


def fig3() -> None:
    i, o, p = part("fig3")
    curves, claims = concat(i.curves), concat(i.claims)
    write_csv(curves, o.csv)
    write_csv(claims, o.claims)
    write_csv(fig3_case_ise(curves), o.ise)
    plot_fig3(curves, claims, [o.png, o.svg], quantiles=list(p.quantiles))


def fig4() -> None:
    i, o, _ = part("fig4")
    runs = concat(i.runs)
    table = in_order(summarise_fig4(runs), "dataset", runs["dataset"])  # the config's order
    write_csv(table, o.csv)
    plot_fig4(table, [o.png, o.svg])


def fig5() -> None:
    i, o, p = part("fig5")
    work, timings = concat(i.work), concat(i.timings)
    ms = list(p.m)
    table = in_order(summarise_fig5(work, ms), "dataset", work["dataset"])  # the config's order
    write_csv(table, o.csv)
    write_csv(work.loc[work["m"].isin(ms)].reset_index(drop=True), o.reps)
    write_csv(timings, o.timings)
    # Alg. 1 stops an object after max(max_candidates, m) candidates: the ceiling of the top row
    release = concat(i.release)
    per_object = max(int(p.max_candidates), max(ms))
    cap = (release.groupby("dataset")["tasks"].max() * per_object).to_dict()
    plot_fig5(table, timings, [o.png, o.svg], cap=cap)


def release() -> None:
    i, o, _ = part("release")
    released, info, sim = concat(i.release), concat(i.info), concat(i.simulated)
    sim["dataset"] = "simulated_p" + sim.pop("p").astype(str)
    released = pd.concat([released, sim], ignore_index=True)
    table = in_order(summarise_release(released, info), "dataset", released["dataset"])
    write_csv(table, o.csv)
    write_markdown(table, o.md,
                   title="PrisCrowd release counts (means over repetitions; surrogates marked)")
    plot_release(table, [o.png, o.svg])


def budget() -> None:
    i, o, _ = part("budget")
    data = concat(i.budget)
    table = in_order(summarise_budget(data), "dataset", data["dataset"])
    write_csv(table, o.csv)
    write_markdown(table, o.md,
                   title="PrisCrowd Theorem 2 (epsilon, delta) per object: quantiles")
    plot_budget(data, [o.png, o.svg])


for draw in (table1, table2, fig3, fig4, fig5, release, budget):
    draw()
    logger.info("%s done", draw.__name__)
finish_job()
