"""Summaries of the PrisCrowd runs into the paper's tables/figures, and the claim checks.

Every function takes the tidy per-repetition tables written by the experiment jobs and returns
tidy tables with mean, std (ddof=1) and R per point, with the paper's printed numbers beside.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "PAPER_DATASET",
    "METHOD_ORDER",
    "summarise_table1",
    "summarise_table2",
    "summarise_fig4",
    "summarise_fig5",
    "summarise_release",
    "summarise_budget",
    "fig3_case_ise",
    "evaluate_claims",
]

#: Our dataset name -> the column of the paper's Table 1.
PAPER_DATASET = {"population": "population", "stock_surrogate": "stock",
                 "indoor_surrogate": "indoor"}
METHOD_ORDER = ["PrisCrowd", "Uniform", "Basic(Strong)", "Basic(Normal)", "Basic(Weak)"]


def _agg(df, keys, value):
    g = df.groupby(keys, sort=False)[value]
    out = g.agg(mean="mean", std="std", R="count").reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def _method_rank(s):
    return s.map({m: i for i, m in enumerate(METHOD_ORDER)}).fillna(len(METHOD_ORDER))


def summarise_table1(runs: pd.DataFrame, paper: pd.DataFrame, n_objects=None) -> pd.DataFrame:
    """Table 1: ISE/SISE per dataset and method, mean/std/R, paper value and ratio ours/paper.

    ``runs``: dataset, method, rep, ISE, SISE. ``paper``: measure, method, population, stock,
    indoor (the paper's Table 1 as printed). ``n_objects`` (optional mapping dataset -> number
    of scored objects) adds ``per_object`` = mean / N and its ratio to the paper: the paper's
    Table 1 satisfies SISE >= ISE^2 (Jensen, true for averages over objects) in 12 of 15
    cells but SISE <= ISE^2 (true for sums, App. D's definition) in only 3, so it looks
    averaged over objects (its Table 2, 25 of 25 consistent with sums, does not).
    """
    long = runs.melt(id_vars=["dataset", "method", "rep"], value_vars=["ISE", "SISE"],
                     var_name="measure")
    out = _agg(long, ["measure", "dataset", "method"], "value")
    pl = paper.melt(id_vars=["measure", "method"], var_name="paper_dataset", value_name="paper")
    out["paper_dataset"] = out["dataset"].map(PAPER_DATASET)
    out = out.merge(pl, on=["measure", "method", "paper_dataset"], how="left")
    out["ratio_to_paper"] = out["mean"] / out["paper"]
    if n_objects is not None:
        n = out["dataset"].map(dict(n_objects)).astype(float)
        out["per_object"] = out["mean"] / n
        out["per_object_ratio_to_paper"] = out["per_object"] / out["paper"]
    out["surrogate"] = out["dataset"].str.endswith("_surrogate")
    out = out.assign(_r=_method_rank(out["method"])).sort_values(
        ["measure", "dataset", "_r"], kind="stable").drop(columns="_r")
    return out.reset_index(drop=True)


def summarise_table2(runs: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Table 2: ISE/SISE per p and method on simulated data, with the paper's values.

    The paper calls the weakest Basic level "Low" in Table 2 and "Weak" in Table 1; both are
    epsilon = 10 and are matched here.
    """
    long = runs.melt(id_vars=["p", "method", "rep"], value_vars=["ISE", "SISE"],
                     var_name="measure")
    out = _agg(long, ["measure", "p", "method"], "value")
    pl = paper.melt(id_vars=["p", "method"], var_name="measure", value_name="paper")
    pl["method"] = pl["method"].replace({"Basic(Low)": "Basic(Weak)"})
    out["p"] = out["p"].astype(float).round(10)
    pl["p"] = pl["p"].astype(float).round(10)
    out = out.merge(pl, on=["measure", "p", "method"], how="left")
    out["ratio_to_paper"] = out["mean"] / out["paper"]
    out = out.assign(_r=_method_rank(out["method"])).sort_values(
        ["measure", "p", "_r"], kind="stable").drop(columns="_r")
    return out.reset_index(drop=True)


def summarise_fig4(runs: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4: ISE/SISE vs m per dataset and method (mean/std/R over repetitions)."""
    long = runs.melt(id_vars=["dataset", "method", "rep", "m"], value_vars=["ISE", "SISE"],
                     var_name="measure")
    out = _agg(long, ["dataset", "method", "measure", "m"], "value")
    out["surrogate"] = out["dataset"].str.endswith("_surrogate")
    return out.sort_values(["dataset", "method", "measure", "m"], kind="stable").reset_index(
        drop=True)


def summarise_fig5(runs: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5: phase-2 seconds vs m, with/without privacy test (wall clock: not reproducible)."""
    out = _agg(runs, ["dataset", "privacy_test", "m"], "seconds")
    out["surrogate"] = out["dataset"].str.endswith("_surrogate")
    return out.sort_values(["dataset", "privacy_test", "m"], kind="stable").reset_index(drop=True)


def summarise_release(release: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Objects fully / partly / never released and pass rate, per dataset and method.

    ``release``: dataset, method, rep, objects, fully, partly, never, candidates, passed.
    ``info``: dataset, dropped_single_claim, objects_below_k_with_truth, ... (one row per
    dataset). Counts are means over repetitions.
    """
    g = release.groupby(["dataset", "method"], sort=False)
    out = g[["objects", "fully", "partly", "never", "candidates", "passed"]].mean().reset_index()
    out["R"] = g.size().to_numpy()
    out["pass_rate"] = out["passed"] / out["candidates"]
    cols = [c for c in ("dataset", "dropped_single_claim", "objects_below_k_with_truth")
            if c in info.columns]
    out = out.merge(info[cols], on="dataset", how="left")
    return out


def summarise_budget(budget: pd.DataFrame, quantiles=(0.0, 0.25, 0.5, 0.75, 1.0)) -> pd.DataFrame:
    """Distribution of Theorem 2's epsilon and delta per dataset and method.

    Objects with fewer than k claims are outside the theorem (counted as ``not_covered``);
    objects with a zero seed weight have epsilon = inf (counted as ``infinite``). Quantiles are
    over the covered objects (inf included).
    """
    rows = []
    for (ds, meth), d in budget.groupby(["dataset", "method"], sort=False):
        cov = d[np.isfinite(d["delta"])]
        for measure in ("epsilon", "delta"):
            v = cov[measure].to_numpy(float)
            rec = {"dataset": ds, "method": meth, "measure": measure, "objects": len(d),
                   "not_covered": int(len(d) - len(cov)), "infinite": int(np.isinf(v).sum())}
            for q in quantiles:
                rec[f"q{int(round(q * 100)):02d}"] = (
                    float(np.quantile(v, q, method="lower")) if v.size else np.nan)
            fin = v[np.isfinite(v)]
            rec["mean_finite"] = float(fin.mean()) if fin.size else np.nan
            rows.append(rec)
    return pd.DataFrame(rows)


def fig3_case_ise(curves: pd.DataFrame) -> pd.DataFrame:
    """ISE of each Fig. 3 density to the reference, on the plotted grid (trapezoid rule)."""
    rows = []
    for (ds, case), d in curves.groupby(["dataset", "case"], sort=False):
        ref = d[d["curve"] == "reference"]
        x = ref["x_normalised"].to_numpy()
        for curve in ("combined", "global", "uniform"):
            y = d[d["curve"] == curve]["density_normalised"].to_numpy()
            err = np.trapezoid((y - ref["density_normalised"].to_numpy()) ** 2, x)
            rows.append({"dataset": ds, "case": case, "object": ref["object"].iloc[0],
                         "curve": curve, "ISE_to_reference": err})
    return pd.DataFrame(rows)


def _fmt(x):
    return f"{x:.4g}"


def evaluate_claims(table1, table2, fig4, fig5, fig3_ise, paper1, *, flat_from_m=10,
                    flat_tolerance=0.1, linear_r2=0.9):
    """Check the paper's claims on our summaries; return (claim, status, evidence) rows.

    Statuses: "holds", "fails", or "not testable". Thresholds (config ``claims``): relative
    change of ISE/SISE from ``flat_from_m`` to the largest m at most ``flat_tolerance`` for
    "flat"; R² of a straight-line fit of time vs m at least ``linear_r2`` for "linear".
    """
    rows = []

    def add(claim, ok, evidence, figure):
        status = "not testable" if ok is None else ("holds" if ok else "fails")
        rows.append({"claim": claim, "figure": figure, "status": status, "evidence": evidence})

    # 1. PrisCrowd beats every baseline on ISE and SISE, per dataset and per p
    for label, tab, key, figure in (("dataset", table1, "dataset", "Table 1"),
                                    ("p", table2, "p", "Table 2")):
        for val, d in tab.groupby(key, sort=False):
            ok, ev = True, []
            for measure, dm in d.groupby("measure", sort=False):
                means = dm.set_index("method")["mean"]
                ours = means.get("PrisCrowd", np.nan)
                base = means.drop("PrisCrowd", errors="ignore")
                best = base.idxmin()
                ok &= bool(ours < base.min())
                ev.append(f"{measure}: PrisCrowd {_fmt(ours)} vs best baseline {best} "
                          f"{_fmt(base.min())}")
            add(f"PrisCrowd beats every baseline on ISE and SISE ({label} {val})", ok,
                "; ".join(ev), figure)
    # 2. advantage largest on stock. "The advantages of our proposed approach on the Stock
    # dataset is larger ... the baseline methods are very sensitive to [outliers]": the
    # advantage over the baselines as a group, i.e. the geometric mean over all baselines of
    # baseline / PrisCrowd, for ISE and SISE. (Against the *best* baseline alone the paper's own
    # Table 1 fails its claim: Basic(Weak) ISE ratio 1.25 on stock < Uniform's 1.31 on
    # population.)
    adv = {}
    for col, label in (("mean", "ours"), ("paper", "paper")):
        for (measure, ds), d in table1.groupby(["measure", "dataset"], sort=False):
            vals = d.set_index("method")[col]
            if "PrisCrowd" not in vals or vals.drop("PrisCrowd").empty:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                ratios = vals.drop("PrisCrowd") / vals["PrisCrowd"]
                gmean = float(np.exp(np.log(ratios).mean()))
            adv.setdefault((label, measure), {})[ds] = gmean
    ours_adv = {key: v for key, v in adv.items() if key[0] == "ours"}
    if ours_adv and all("stock_surrogate" in v and len(v) > 1 for v in ours_adv.values()):
        ok = all(max(v, key=v.get) == "stock_surrogate" for v in ours_adv.values())
        ev = "; ".join(
            f"{label} {measure}: " + ", ".join(f"{k} {_fmt(x)}" for k, x in v.items())
            for (label, measure), v in adv.items())
        add("PrisCrowd's advantage (geometric mean over baselines of baseline / PrisCrowd, ISE "
            "and SISE) is largest on stock", ok, ev, "Table 1")
    else:
        add("PrisCrowd's advantage is largest on stock", None, "stock_surrogate not run",
            "Table 1")
    # 3. all methods degrade as p grows
    ok, bad = True, []
    for (measure, meth), d in table2.groupby(["measure", "method"], sort=False):
        v = d.sort_values("p")["mean"].to_numpy()
        if np.any(np.diff(v) < 0):
            ok = False
            bad.append(f"{meth} {measure}: " + " ".join(_fmt(x) for x in v))
    n_p = table2["p"].nunique()
    add("All methods degrade as p grows (ISE and SISE non-decreasing in p)",
        ok if n_p > 1 else None,
        "every method and measure non-decreasing over p = "
        + ", ".join(str(p) for p in sorted(table2["p"].unique())) if ok else
        "decreasing somewhere: " + "; ".join(bad), "Table 2")
    # 4. ISE and SISE flatten as m grows (little change beyond m = 10 on population)
    f = fig4[fig4["method"] == "PrisCrowd"]
    for ds, d in f.groupby("dataset", sort=False):
        ev, ok = [], True
        m_max = d["m"].max()
        if flat_from_m not in set(d["m"]) or m_max <= flat_from_m:
            add(f"ISE and SISE flatten beyond m = {flat_from_m} ({ds})", None,
                f"m = {flat_from_m} not in the sweep", "Fig. 4")
            continue
        for measure, dm in d.groupby("measure", sort=False):
            s = dm.set_index("m")["mean"]
            rel = abs(s[m_max] - s[flat_from_m]) / s[flat_from_m]
            first = abs(s[flat_from_m] - s[d["m"].min()]) / s[d["m"].min()]
            ok &= bool(rel <= flat_tolerance)
            ev.append(f"{measure}: m={d['m'].min()} {_fmt(s[d['m'].min()])}, m={flat_from_m} "
                      f"{_fmt(s[flat_from_m])}, m={m_max} {_fmt(s[m_max])} (change "
                      f"{flat_from_m}->{m_max}: {rel:.1%}, {d['m'].min()}->{flat_from_m}: "
                      f"{first:.1%}; tolerance {flat_tolerance:.0%})")
        add(f"ISE and SISE flatten beyond m = {flat_from_m} ({ds})", ok, "; ".join(ev), "Fig. 4")
    # 5. run time about linear in m, privacy test adds cost
    for ds, d in fig5.groupby("dataset", sort=False):
        ev, ok = [], True
        for test, dt in d.groupby("privacy_test", sort=False):
            m, t = dt["m"].to_numpy(float), dt["mean"].to_numpy(float)
            if len(m) < 3:
                ok = None
                continue
            coef = np.polyfit(m, t, 1)
            r2 = 1 - np.sum((t - np.polyval(coef, m)) ** 2) / np.sum((t - t.mean()) ** 2)
            ok = ok and bool(r2 >= linear_r2)
            ev.append(f"{'with' if test else 'without'} test: R2 {r2:.3f}, slope "
                      f"{coef[0] * 1e3:.3g} ms per claim")
        add(f"Phase-2 run time is about linear in m ({ds}; wall clock, not reproducible)", ok,
            "; ".join(ev) + f"; threshold R2 >= {linear_r2}", "Fig. 5")
        piv = d.pivot(index="m", columns="privacy_test", values="mean")
        if True in piv and False in piv:
            more = piv[True] > piv[False]
            add(f"The privacy test adds run time ({ds}; wall clock)", bool(more.all()),
                f"with > without at {int(more.sum())} of {len(more)} m values; at m = "
                f"{piv.index.max()}: {_fmt(piv[True].iloc[-1])} s vs {_fmt(piv[False].iloc[-1])} s",
                "Fig. 5")
    # 6. Fig. 3: combined weights give the density closest to the reference
    if len(fig3_ise):
        piv = fig3_ise.pivot_table(index=["dataset", "case"], columns="curve",
                                   values="ISE_to_reference")
        best = piv.idxmin(axis=1)
        n_ok = int((best == "combined").sum())
        add("Fig. 3: the combined-weight density is the closest to the reference density",
            n_ok == len(piv),
            f"closest in {n_ok} of {len(piv)} case studies; "
            + "; ".join(f"{ds} case {c}: combined {_fmt(r['combined'])}, global "
                        f"{_fmt(r['global'])}, uniform {_fmt(r['uniform'])}"
                        for (ds, c), r in piv.iterrows()), "Fig. 3")
    # 7. internal consistency of the paper's Table 1: SISE <= ISE^2 for non-negative terms
    p1 = paper1.set_index(["measure", "method"])
    incons = []
    for col in [c for c in paper1.columns if c not in ("measure", "method")]:
        for meth in paper1["method"].unique():
            ise, sise = p1.loc[("ISE", meth), col], p1.loc[("SISE", meth), col]
            if sise > ise**2 * (1 + 1e-9):
                incons.append(f"{col}/{meth}: SISE {sise} > ISE^2 {ise**2:.4g}")
    add("The paper's Table 1 is consistent with its definitions (SISE = sum ISE_i^2 <= ISE^2)",
        not incons, f"{len(incons)} of {len(paper1) // 2 * (len(paper1.columns) - 2)} cells "
        "violate it: " + "; ".join(incons[:4]) + (" ..." if len(incons) > 4 else ""), "Table 1")
    return pd.DataFrame(rows)
