"""The inference benchmark's claims, through the same engine as the papers' (crowdpriv.claims).

Two kinds:

* **generalisation**: claims of LDP-sparse and PPTD about real data, re-decided on the
  benchmark datasets (the papers made them on web/adultcontent and on the indoor data);
* **ours**: that mechanism-aware inference is at least as accurate as naive inference, that
  the tool's defaults (:data:`crowdpriv.inference.DEFAULT_AFTER`, ``DEFAULT_PLAIN``) are the
  best choice within a tolerance on every dataset (datasets kept aside included), that our
  aggregators agree with crowd-kit's on the same files, and which mechanism is best per ε.

Tables read (:func:`evaluate_claims`): ``runs``, the long table of
:mod:`crowdpriv.benchmark._experiments` over all datasets; ``crowdkit``, crowd-kit's accuracies
on the same files (benchmarks/crowdkit/accuracy.csv). Thresholds (config
``benchmark.claims``): ``non_inferiority`` (accuracy points a method may lose and still count
as "at least as accurate"), ``most_quota``, ``mae_noise_ratio_max``, ``published`` (crowd-kit's
published accuracies by dataset and method) and ``kept_aside`` (datasets the defaults were not
chosen on).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .. import inference, mechanisms
from ..claims import Claim, NotTestable, evaluate, exact
from ..significance import decide_every, decide_most, format_number, paired
from ._experiments import BASE_RATE, NO_MECHANISM, RELEASE

__all__ = ["CLAIMS", "evaluate_claims", "claims_for", "best_table", "defaults_table", "aware_table",
           "NAIVE", "FIGURES"]

#: Registered figure and table labels (the benchmark's "paper" registry).
FIGURES = ("Table B1", "Fig. B1", "Fig. B2", "Table B2", "Table B3")
#: Naive methods per release type: what a practitioner runs without the channel.
NAIVE = {"categorical": ("majority", "ds"), "continuous": ("mean", "sun")}
#: crowd-kit's class names for our methods (benchmarks/crowdkit/accuracy.csv).
CROWDKIT_NAMES = {"majority": "MajorityVote", "ds": "DawidSkene"}


def _labels(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.loc[runs["metric"] == "accuracy"]


def _cells(df: pd.DataFrame, value_methods: list[str]) -> dict:
    """Per (ε) cell, the repetitions x methods table of ``value``."""
    df = df.loc[df["method"].isin(value_methods)]
    return paired(df, ["epsilon"], across="method", value="value")


def _release_type(df: pd.DataFrame) -> str:
    """Whether a mechanism's release was labels (a categorical method ran on it) or values."""
    ran = set(df["method"])
    return "categorical" if ran & {"majority", "ds", "one-coin-ds"} else "continuous"


# -- ours: agreement with the field ----------------------------------------------------------
def agrees_with_crowd_kit(ctx):
    runs = _labels(ctx.table("runs"))
    ck = ctx.table("crowdkit")
    gap = ctx.threshold("non_inferiority")
    published = ctx.threshold("published") or {}
    none = runs.loc[runs["mechanism"] == NO_MECHANISM]
    parts, ok, seen = [], True, 0
    for dataset in sorted(set(none["dataset"]) & set(ck["dataset"])):
        ours = none.loc[none["dataset"] == dataset].set_index("method")["value"]
        theirs = ck.loc[(ck["dataset"] == dataset) & (ck["metric"] == "accuracy")].set_index(
            "method")["value"]
        for ours_id, name in CROWDKIT_NAMES.items():
            if ours_id not in ours or name not in theirs:
                continue
            seen += 1
            diff = float(ours[ours_id] - theirs[name])
            within = abs(diff) <= (1e-6 if ours_id == "majority" else gap)
            ok &= within
            parts.append(f"{dataset} {ours_id}: ours {ours[ours_id]:.4f}, crowd-kit "
                         f"{theirs[name]:.4f} ({'equal' if abs(diff) <= 1e-6 else f'{diff:+.4f}'})")
            printed = (published.get(dataset) or {}).get(name)
            if printed is not None:
                close = abs(float(ours[ours_id]) - float(printed)) <= 0.0005 + 1e-9
                ok &= close
                parts.append(f"{dataset} {ours_id} against crowd-kit's published {printed}: "
                             f"{'within' if close else 'beyond'} its rounding")
    if not seen:
        raise NotTestable("no dataset of this run has crowd-kit's reference outputs")
    return exact(bool(ok), "; ".join(parts))


# -- generalisation --------------------------------------------------------------------------
def _pptd_table(ctx):
    runs = ctx.table("runs")
    pptd = runs.loc[runs["mechanism"].isin(["pptd", "pptd-laplace"])]
    if pptd.empty:
        raise NotTestable("this run released no numeric dataset with PPTD")
    return runs, pptd


def weighted_beats_naive_original(ctx):
    runs = ctx.table("runs")
    none = runs.loc[(runs["mechanism"] == NO_MECHANISM) & (runs["metric"] == "mae")]
    parts, ok = [], True
    for dataset, g in none.groupby("dataset"):
        mae = g.set_index("method")["value"]
        if not {"crh", "mean", "median"} <= set(mae.index):
            continue
        beats = mae["crh"] < min(mae["mean"], mae["median"])
        ok &= beats
        parts.append(f"{dataset}: MAE CRH {format_number(mae['crh'])}, mean "
                     f"{format_number(mae['mean'])}, median {format_number(mae['median'])}")
    if not parts:
        raise NotTestable("this run has no numeric dataset with CRH, mean and median")
    return exact(bool(ok), "; ".join(parts))


def weighted_beats_naive_perturbed(ctx):
    _, pptd = _pptd_table(ctx)
    mae = pptd.loc[pptd["metric"] == "mae"]
    cells = {}
    for (dataset, eps), g in mae.groupby(["dataset", "epsilon"], sort=True):
        tab = g.pivot(index="rep", columns="method", values="value")
        if not {"crh", "mean", "median"} <= set(tab.columns):
            continue
        cells[f"{dataset}, ε {eps:g}"] = tab[["mean", "median"]].min(axis=1) - tab["crh"]
    if not cells:
        raise NotTestable("PPTD's releases were not aggregated by CRH, mean and median")
    return decide_every(cells, ctx.significance,
                        margin="the smaller of mean's and median's MAE - CRH's, per release")


def pptd_small_against_noise(ctx):
    _, pptd = _pptd_table(ctx)
    limit = ctx.threshold("mae_noise_ratio_max")
    cells = {}
    for (dataset, eps), g in pptd.groupby(["dataset", "epsilon"], sort=True):
        noise = g.loc[g["metric"] == "noise"].set_index("rep")["value"]
        loss = g.loc[(g["metric"] == "mae_to_original") & (g["method"] == "crh")].set_index(
            "rep")["value"]
        if loss.empty:
            continue
        cells[f"{dataset}, ε {eps:g}"] = limit - loss / noise.reindex(loss.index)
    if not cells:
        raise NotTestable("PPTD's releases were not aggregated by CRH")
    return decide_every(cells, ctx.significance,
                        margin=f"mae_noise_ratio_max {limit:g} - (CRH's truths on the release "
                               "against on the original) / average noise")


def mf_smallest_change_most(ctx):
    runs = ctx.table("runs")
    codes = runs.loc[(runs["metric"] == "mae_codes") & (runs["method"] == "sun")]
    quota = ctx.threshold("most_quota")
    # MF against LDP-sparse's other mechanisms (its float-safe release samplers aside)
    mf = mechanisms.get("mf").id
    paper_own = [m.id for m in mechanisms.members(paper="ldp_sparse", part="sweep")
                 if not m.float_safe and m.id != mf]
    cells = {}
    for dataset, g in codes.groupby("dataset"):
        base = g.loc[g["mechanism"] == NO_MECHANISM, "value"]
        if base.empty:
            continue
        change = g.loc[g["mechanism"] != NO_MECHANISM].assign(
            value=lambda d: d["value"] - float(base.iloc[0]))
        others = [m for m in paper_own if m in set(change["mechanism"])]
        if mf not in set(change["mechanism"]) or not others:
            continue
        for eps, e in change.groupby("epsilon", sort=True):
            tab = e.pivot(index="rep", columns="mechanism", values="value")
            cells[f"{dataset}, ε {eps:g}"] = tab[others].min(axis=1) - tab[mf]
    if not cells:
        raise NotTestable("this run has no label dataset released by MF, LP and RR with Sun's "
                          "inference")
    return decide_most(cells, ctx.significance, quota=quota,
                       margin="the smallest MAE change (Sun's truths, codes) of LP, RR, 2-Layer "
                              "- MF's, per repetition")


# -- ours: mechanism-aware against naive, per dataset and mechanism -------------------------
def _aware_not_worse(dataset: str, mechanism: str):
    def check(ctx):
        runs = ctx.table("runs")
        tol = ctx.threshold("non_inferiority")
        df = runs.loc[(runs["dataset"] == dataset) & (runs["mechanism"] == mechanism)
                      & (runs["metric"] == "accuracy")]
        if df.empty:
            raise NotTestable(f"this run did not release {dataset} with {mechanism}")
        kind = _release_type(df)
        aware = [m for m in dict.fromkeys(df["method"]) if inference.METHODS[m].needs]
        naive = [m for m in NAIVE[kind] if m in set(df["method"])]
        if not aware or not naive:
            raise NotTestable(f"{mechanism} on {dataset}: no mechanism-aware method ran "
                              "(the release's channel or noise variance is not public)")
        cells = {}
        for label, tab in _cells(df, aware + naive).items():
            for a in aware:
                for n in naive:
                    cells[f"{label}, {a} vs {n}"] = tab[a] - tab[n] + tol
        return decide_every(cells, ctx.significance,
                            margin=f"accuracy of the aware method - of the naive one + "
                                   f"non_inferiority {tol:g}, per release")
    return check


# -- ours: the defaults ------------------------------------------------------------------------
def _default_after(mechanism: str):
    def check(ctx):
        runs = ctx.table("runs")
        tol = ctx.threshold("non_inferiority")
        aside = set(ctx.threshold("kept_aside") or ())
        df = runs.loc[(runs["mechanism"] == mechanism) & (runs["metric"] == "accuracy")]
        if df.empty:
            raise NotTestable(f"this run has no release by {mechanism}")
        default = inference.DEFAULT_AFTER[mechanism]
        cells = {}
        for dataset, g in df.groupby("dataset", sort=True):
            if default not in set(g["method"]):
                raise NotTestable(f"the default after {mechanism}, {default}, did not run on "
                                  f"{dataset} (config benchmark.methods)")
            tag = f"{dataset}{' (kept aside)' if dataset in aside else ''}"
            for label, tab in paired(g, ["epsilon"], across="method", value="value").items():
                others = [m for m in tab.columns if m != default]
                if not others:
                    continue
                best = tab[others].mean().idxmax()
                cells[f"{tag}, {label}, against {best}"] = tab[default] - tab[best] + tol
        if not cells:
            raise NotTestable(f"no other method ran after {mechanism}")
        return decide_every(cells, ctx.significance,
                            margin=f"accuracy of the default {default} - of the best other "
                                   f"method at that point (by mean) + non_inferiority {tol:g}")
    return check


def default_plain(ctx):
    runs = ctx.table("runs")
    tol = ctx.threshold("non_inferiority")
    none = runs.loc[(runs["mechanism"] == NO_MECHANISM) & (runs["method"] != BASE_RATE)]
    parts, ok = [], True
    for dataset, g in none.groupby("dataset", sort=True):
        acc = g.loc[g["metric"] == "accuracy"].set_index("method")["value"]
        mae = g.loc[g["metric"] == "mae"].set_index("method")["value"]
        if not acc.empty:
            default = inference.DEFAULT_PLAIN["categorical"]
            if default not in acc or len(acc) == 1:  # nothing to compare the default with
                continue
            best = acc.drop(default).idxmax()
            good = acc[default] >= acc[best] - tol
            parts.append(f"{dataset}: {default} {acc[default]:.4f}, best other {best} "
                         f"{acc[best]:.4f}")
        elif not mae.empty:
            default = inference.DEFAULT_PLAIN["continuous"]
            if default not in mae or len(mae) == 1:
                continue
            best = mae.drop(default).idxmin()
            good = mae[default] <= mae[best] * (1 + tol)
            parts.append(f"{dataset}: MAE {default} {format_number(mae[default])}, best other "
                         f"{best} {format_number(mae[best])}")
        else:
            continue
        ok &= bool(good)
    if not parts:
        raise NotTestable("this run has no answers as collected aggregated by the default and "
                          "another method")
    return exact(bool(ok), "; ".join(parts))


# -- which mechanism is best per ε -------------------------------------------------------------
def best_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (label dataset, ε): each mechanism's best method by mean accuracy, the best
    mechanism and the runner-up (means over repetitions)."""
    acc = _labels(runs)
    acc = acc.loc[acc["mechanism"] != NO_MECHANISM]
    mean = acc.groupby(["dataset", "epsilon", "mechanism", "method"], sort=True)["value"].mean()
    rows = []
    for (dataset, eps), g in mean.groupby(level=[0, 1], sort=True):
        per_mech = g.groupby(level=2).max().sort_values(ascending=False)
        best_method = {m: g.xs(m, level=2).idxmax()[-1] for m in per_mech.index}
        rows.append({"dataset": dataset, "epsilon": eps, "best": per_mech.index[0],
                     "best_method": best_method[per_mech.index[0]],
                     "accuracy": per_mech.iloc[0],
                     "runner_up": per_mech.index[1] if len(per_mech) > 1 else "",
                     "runner_up_accuracy": per_mech.iloc[1] if len(per_mech) > 1 else np.nan})
    return pd.DataFrame(rows)


def best_mechanism_consistent(ctx):
    table = best_table(ctx.table("runs"))
    if table.empty:
        raise NotTestable("this run released no label dataset")
    parts, ok = [], True
    for eps, g in table.groupby("epsilon", sort=True):
        best = set(g["best"])
        ok &= len(best) == 1
        parts.append(f"ε {eps:g}: " + ", ".join(f"{r.dataset} {r.best} ({r.best_method}, "
                                                 f"{r.accuracy:.3f})" for r in g.itertuples()))
    return exact(bool(ok), "; ".join(parts))


def defaults_table(runs: pd.DataFrame, kept_aside=()) -> pd.DataFrame:
    """The table the defaults are chosen from: per (mechanism, method), the mean accuracy and
    balanced accuracy over the label datasets (those kept aside apart) and the ε of the sweep,
    and the rank by each (the defaults follow accuracy: the Bayes rule of the 0-1 loss)."""
    acc = runs.loc[runs["metric"].isin(["accuracy", "balanced_accuracy"])
                   & (runs["mechanism"] != NO_MECHANISM)]
    acc = acc.assign(kept_aside=acc["dataset"].isin(list(kept_aside)))
    table = (acc.groupby(["mechanism", "kept_aside", "method", "metric"], sort=True)["value"]
             .mean().unstack("metric").reset_index())
    table = table.rename(columns={"accuracy": "mean_accuracy",
                                  "balanced_accuracy": "mean_balanced_accuracy"})
    for column, rank in (("mean_accuracy", "rank"), ("mean_balanced_accuracy",
                                                      "rank_balanced")):
        table[rank] = table.groupby(["mechanism", "kept_aside"])[column].rank(
            ascending=False, method="min").astype(int)
    table["default"] = [inference.DEFAULT_AFTER.get(m) == meth
                        for m, meth in zip(table["mechanism"], table["method"])]
    table.columns.name = None
    return table


def aware_table(runs: pd.DataFrame, significance, tolerance: float) -> pd.DataFrame:
    """Per (dataset, mechanism, ε, aware method, naive method): the mean accuracy of each, the
    paired margin (aware - naive + tolerance) decided per cell (:func:`decide_cell`)."""
    from ..significance import decide_cell

    acc = _labels(runs)
    acc = acc.loc[acc["mechanism"] != NO_MECHANISM]
    rows = []
    for (dataset, mechanism), df in acc.groupby(["dataset", "mechanism"], sort=False):
        kind = _release_type(df)
        aware = [m for m in dict.fromkeys(df["method"]) if inference.METHODS[m].needs]
        naive = [m for m in NAIVE[kind] if m in set(df["method"])]
        for label, tab in _cells(df, aware + naive).items() if aware and naive else ():
            for a in aware:
                for n in naive:
                    cell = decide_cell(label, tab[a] - tab[n] + tolerance, significance,
                                       alpha_fails=significance.alpha)
                    rows.append({"dataset": dataset, "mechanism": mechanism,
                                 "epsilon": float(label.split("ε ")[-1]), "aware": a,
                                 "naive": n, "aware_accuracy": tab[a].mean(),
                                 "naive_accuracy": tab[n].mean(),
                                 "wins": cell.wins, "R": cell.n, "status": cell.status})
    return pd.DataFrame(rows)


# -- the claims --------------------------------------------------------------------------------
_GEN = ("generalisation: LDP-sparse's and PPTD's claims about real data, on the benchmark "
        "datasets")


def claims_for(datasets_mechanisms) -> tuple[Claim, ...]:
    """Every claim of a run whose (dataset, mechanism) pairs are ``datasets_mechanisms``."""
    released_by = list(dict.fromkeys(m for _, m in datasets_mechanisms))
    claims = [
        Claim("benchmark.none.agrees_with_crowd_kit",
              "Our aggregators agree with the field's on the same files: majority vote equals "
              "crowd-kit's MajorityVote (lowest-label ties), Dawid-Skene is within "
              "non_inferiority of crowd-kit's DawidSkene, and both match crowd-kit's "
              "published D_Product accuracies (JOSS 9(96):6227: MV 0.897, DS 0.940)",
              ("Table B1",),
              "exact: the no-privacy accuracies against benchmarks/crowdkit/accuracy.csv "
              "(crowd-kit 1.4.2 run once on the mirrored files) and the published table "
              "(±0.0005, its rounding)",
              agrees_with_crowd_kit),
        Claim("benchmark.none.default_is_best_plain",
              "Without a mechanism, the default of each answer type (Dawid-Skene on labels, "
              "GTM on values) is the best method within non_inferiority on every dataset",
              ("Table B1",),
              "exact on the answers as collected: labels, the default's accuracy >= the best "
              "other's - non_inferiority; values, its MAE <= the best other's x "
              "(1 + non_inferiority)",
              default_plain),
        Claim("benchmark.gen.weighted_beats_naive_original",
              "PPTD: \"weighted aggregation can outperform naive aggregation solutions such as "
              "mean or median in finding true information\" (Sec. 5.2), on the numeric "
              "benchmark data as collected",
              ("Table B1",),
              f"{_GEN}: CRH's MAE against the gold values is below the per-task mean's and "
              "median's (exact)",
              weighted_beats_naive_original),
        Claim("benchmark.gen.weighted_beats_naive_perturbed",
              "PPTD: the same after PPTD's perturbation (Sec. 5.2)",
              ("Fig. B2",),
              f"{_GEN}: at every ε, per release, CRH's MAE is below the smaller of the mean's "
              "and the median's",
              weighted_beats_naive_perturbed),
        Claim("benchmark.gen.pptd_small_against_noise",
              "PPTD: \"the utility changes very slowly and the magnitude is quite small compared "
              "with the added noise\" (Sec. 5.1)",
              ("Fig. B2",),
              f"{_GEN}: at every ε, CRH's truths on the release differ from its truths on the "
              "original answers by at most mae_noise_ratio_max of the average added noise",
              pptd_small_against_noise),
        Claim("benchmark.gen.mf_lowest_most_cases",
              "LDP-sparse: \"our MF approach has the lowest MAE change for most of the cases\" "
              "(Sec. VI-D, Fig. 5), on the benchmark's label datasets",
              ("Fig. B1",),
              f"{_GEN}: at more than most_quota of the (dataset, ε) points, MF's MAE change "
              "(Sun's truths as codes, release - original) is below LP's, RR's and 2-Layer's",
              mf_smallest_change_most),
        Claim("benchmark.best_mechanism_consistent",
              "The mechanism that gives the best accuracy at an ε (with its best inference "
              "method) is the same on every label dataset",
              ("Table B2",),
              "exact on the means over repetitions (results/benchmark/best_mechanism.csv)",
              best_mechanism_consistent),
    ]
    claims = [replace(c, category="ours") for c in claims]
    for dataset, mechanism in datasets_mechanisms:
        claims.append(Claim(
            f"benchmark.{dataset}.{mechanism}.aware_not_worse",
            f"Mechanism-aware inference is at least as accurate as naive inference after "
            f"{mechanism} on {dataset}, at every ε",
            ("Fig. B1",),
            "ours: at every ε, every mechanism-aware method ran (aware-ds, aware-one-coin-ds "
            "behind the channel; aware-mean with the public noise variance) is at least as "
            "accurate as each naive one (majority vote and Dawid-Skene on labels; mean and "
            "Sun's on values), within non_inferiority, paired by release",
            _aware_not_worse(dataset, mechanism), category="ours"))
    for mechanism in released_by:
        # the check compares accuracies: releases of labels only (the member owns its type)
        if (mechanism not in inference.DEFAULT_AFTER
                or mechanisms.get(mechanism).answer_type != "categorical"):
            continue
        claims.append(Claim(
            f"benchmark.default_after.{mechanism}",
            f"The default after a release by {mechanism}, "
            f"{inference.DEFAULT_AFTER[mechanism]}, is the most accurate method within "
            "non_inferiority on every dataset (datasets kept aside included) at every ε",
            ("Table B3",),
            "ours: per (dataset, ε), the default's accuracy - the best other method's (by "
            "mean) + non_inferiority, paired by release; the defaults were chosen on the "
            "other datasets (Table B3)",
            _default_after(mechanism), category="ours"))
    return tuple(claims)


#: The claims of a default run (product, dog, web released by the five label mechanisms).
CLAIMS = claims_for([])


def evaluate_claims(tables, *, thresholds, significance, figures=None, absent=None
                    ) -> pd.DataFrame:
    """Check the benchmark's claims on its tables (``runs``, ``crowdkit``)."""
    runs = tables.get("runs")
    pairs = []
    if runs is not None and len(runs):
        labels = runs.loc[(runs["mechanism"] != NO_MECHANISM) & (runs["method"] != RELEASE)
                          & (runs["metric"] == "accuracy")]
        released = labels[["dataset", "mechanism"]]
        pairs = list(dict.fromkeys(map(tuple, released.to_numpy().tolist())))
    return evaluate(claims_for(pairs), tables, thresholds=thresholds, significance=significance,
                    figures=figures, absent=absent)
