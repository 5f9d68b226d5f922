"""Each LDP-sparse claim check on small hand-built tables: one where it holds, one where it fails.

Ten repetitions per cell: enough for the sign test at α = 0.05 to decide a claim over up to
twenty cells either way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from crowdpriv.ldp_sparse import CLAIMS, evaluate_claims
from crowdpriv.claims import evaluate
from crowdpriv.significance import Significance

SIGN = Significance("sign", 0.05)
R = 10
THRESHOLDS = {"mf_max_change": 0.5, "insensitive_tolerance": 0.1, "lp_flat_fraction": 0.5,
              "most_quota": 0.5, "small_epsilon": 0.1,
              "comparable_rel_tol": 0.25, "sharp_drop_at": 3, "sharp_drop_ratio": 2,
              "gold_zero_share_min": 0.72, "bound_example_tol": 0.01}


def verdict(claim_id, tables, thresholds=THRESHOLDS):
    """The claims row of one claim (only that claim is evaluated: the tests stay fast)."""
    (claim,) = [c for c in CLAIMS if c.claim_id == claim_id]
    return evaluate([claim], tables, thresholds=thresholds, significance=SIGN).iloc[0]


def status(claim_id, tables, thresholds=THRESHOLDS):
    return verdict(claim_id, tables, thresholds)["status"]


def base(method, point, eps):
    """A pattern in which every claim about synthetic data holds: MF small and flat, LP drops
    from ε 0.1 to 1 and then stays, RR falls with ε, LP and RR grow with sparsity."""
    return {"MF": 0.1,
            "LP": (5.0 if eps < 1 else 1.0) + point,
            "RR": 3.0 / eps ** 0.5 + point}[method]


def synthetic(value=base, points=(0.5, 0.9), epsilons=(0.1, 1.0, 2.0),
              methods=("LP", "RR", "MF"), experiment="fig2", bound=lambda m, s, e: 100.0):
    rows = []
    for s in points:
        for e in epsilons:
            for m in methods:
                for r in range(R):
                    v = value(m, s, e) + 0.001 * np.sin(r + e + len(str(s)))
                    rows.append({"experiment": experiment, "sparsity": s, "epsilon": e,
                                 "method": m, "rep": r, "mae_change": v,
                                 "mae_perturbed": v + 0.3, "bound": bound(m, s, e)})
    return pd.DataFrame(rows)


def real(value, datasets=("web", "adultcontent"), epsilons=(0.5, 1.0, 2.0, 3.0, 4.0, 5.0),
         methods=("LP", "RR", "MF", "2-Layer")):
    df = synthetic(lambda m, d, e: value(m, d, e), points=datasets, epsilons=epsilons,
                   methods=methods, experiment="fig5")
    return df.rename(columns={"sparsity": "dataset"})


def changed(fn, **override):
    """``base`` with some (method, point, eps) -> value overrides given as a function."""
    def value(m, s, e):
        for key, new in override.items():
            if key == m:
                return new(s, e)
        return fn(m, s, e)
    return value


# --- Fig. 2 -----------------------------------------------------------------------------------


def test_mf_always_smallest_fig2_and_fig3():
    for fig in ("fig2", "fig3"):
        claim = f"ldp_sparse.{fig}.mf_always_smallest"
        assert status(claim, {fig: synthetic(experiment=fig)}) == "holds"
        worse = changed(base, MF=lambda s, e: 2.0 if (s, e) == (0.9, 2.0) else 0.1)
        assert status(claim, {fig: synthetic(worse, experiment=fig)}) == "fails"
        no_mf = synthetic(methods=("LP", "RR"), experiment=fig)
        assert status(claim, {fig: no_mf}) == "not testable"
        only_mf = synthetic(methods=("MF",), experiment=fig)
        assert status(claim, {fig: only_mf}) == "not testable"
        two = synthetic(methods=("LP", "MF"), experiment=fig)
        assert status(claim, {fig: two}) == "holds"


def test_mf_insensitive_to_budget():
    assert status("ldp_sparse.fig2.mf_insensitive_to_budget", {"fig2": synthetic()}) == "holds"
    varying = changed(base, MF=lambda s, e: 0.1 + 0.1 * e)  # 0.11 .. 0.3: range 0.19
    assert status("ldp_sparse.fig2.mf_insensitive_to_budget",
                  {"fig2": synthetic(varying)}) == "fails"
    loose = {**THRESHOLDS, "insensitive_tolerance": 0.25}
    assert status("ldp_sparse.fig2.mf_insensitive_to_budget", {"fig2": synthetic(varying)},
                  loose) == "holds"
    one_eps = synthetic(epsilons=(1.0,))
    assert status("ldp_sparse.fig2.mf_insensitive_to_budget", {"fig2": one_eps}) == (
        "not testable")
    # every pair of the sweep is compared once
    evidence = verdict("ldp_sparse.fig2.mf_insensitive_to_budget", {"fig2": synthetic()})[
        "evidence"]
    labels = [part.split(":")[0] for part in evidence.split("; ")]
    assert labels == [f"sparsity {s}, ε {a} vs {b}" for s in (0.5, 0.9)
                      for a, b in (("0.1", "1"), ("0.1", "2"), ("1", "2"))]


def test_lp_drops_then_stays():
    assert status("ldp_sparse.fig2.lp_drops_from_01_to_1", {"fig2": synthetic()}) == "holds"
    assert status("ldp_sparse.fig2.lp_stable_after_1", {"fig2": synthetic()}) == "holds"
    rising = changed(base, LP=lambda s, e: e)
    assert status("ldp_sparse.fig2.lp_drops_from_01_to_1", {"fig2": synthetic(rising)}) == (
        "fails")
    # drop 4 from 0.1 to 1, then a further change of 3 > 0.5 x 4: not stable
    moving = changed(base, LP=lambda s, e: {0.1: 5.0, 1.0: 1.0, 2.0: 4.0}[e])
    assert status("ldp_sparse.fig2.lp_stable_after_1", {"fig2": synthetic(moving)}) == "fails"
    lax = {**THRESHOLDS, "lp_flat_fraction": 0.8}
    assert status("ldp_sparse.fig2.lp_stable_after_1", {"fig2": synthetic(moving)}, lax) == (
        "holds")
    no_01 = synthetic(epsilons=(1.0, 2.0))
    assert status("ldp_sparse.fig2.lp_drops_from_01_to_1", {"fig2": no_01}) == "not testable"
    assert status("ldp_sparse.fig2.lp_stable_after_1", {"fig2": no_01}) == "not testable"
    two = synthetic(epsilons=(0.1, 1.0))
    assert status("ldp_sparse.fig2.lp_stable_after_1", {"fig2": two}) == "not testable"
    assert status("ldp_sparse.fig2.lp_drops_from_01_to_1", {"fig2": two}) == "holds"


def test_rr_keeps_decreasing():
    assert status("ldp_sparse.fig2.rr_keeps_decreasing", {"fig2": synthetic()}) == "holds"
    rebound = changed(base, RR=lambda s, e: {0.1: 3.0, 1.0: 2.0, 2.0: 2.5}[e])
    assert status("ldp_sparse.fig2.rr_keeps_decreasing", {"fig2": synthetic(rebound)}) == (
        "fails")
    assert status("ldp_sparse.fig2.rr_keeps_decreasing",
                  {"fig2": synthetic(epsilons=(1.0,))}) == "not testable"


def test_lp_lower_at_lower_sparsity_and_mf_unaffected():
    assert status("ldp_sparse.fig2.lp_lower_at_lower_sparsity", {"fig2": synthetic()}) == (
        "holds")
    reversed_ = changed(base, LP=lambda s, e: 2.0 - s)
    assert status("ldp_sparse.fig2.lp_lower_at_lower_sparsity",
                  {"fig2": synthetic(reversed_)}) == "fails"
    assert status("ldp_sparse.fig2.mf_unaffected_by_sparsity", {"fig2": synthetic()}) == "holds"
    sparse_hurts = changed(base, MF=lambda s, e: s)
    assert status("ldp_sparse.fig2.mf_unaffected_by_sparsity",
                  {"fig2": synthetic(sparse_hurts)}) == "fails"
    evidence = verdict("ldp_sparse.fig2.mf_unaffected_by_sparsity", {"fig2": synthetic()})[
        "evidence"]
    assert evidence.startswith("ε 0.1, sparsity 0.5 vs 0.9: ")


# --- Fig. 3 -----------------------------------------------------------------------------------

SPARSITIES = (0.1, 0.5, 0.9)


def fig3(value=base, **kw):
    return synthetic(value, points=SPARSITIES, epsilons=(0.1, 1.0), experiment="fig3", **kw)


def test_mf_never_above_half():
    assert status("ldp_sparse.fig3.mf_never_above_half", {"fig3": fig3()}) == "holds"
    once = changed(base, MF=lambda s, e: 0.6 if (s, e) == (0.9, 0.1) else 0.1)
    assert status("ldp_sparse.fig3.mf_never_above_half", {"fig3": fig3(once)}) == "fails"
    assert status("ldp_sparse.fig3.mf_never_above_half", {"fig3": fig3(once)},
                  {**THRESHOLDS, "mf_max_change": 0.7}) == "holds"


def test_mf_insensitive_to_sparsity():
    assert status("ldp_sparse.fig3.mf_insensitive_to_sparsity", {"fig3": fig3()}) == "holds"
    grows = changed(base, MF=lambda s, e: s)
    assert status("ldp_sparse.fig3.mf_insensitive_to_sparsity", {"fig3": fig3(grows)}) == (
        "fails")
    assert status("ldp_sparse.fig3.mf_insensitive_to_sparsity",
                  {"fig3": synthetic(points=(0.5,), experiment="fig3")}) == "not testable"


@pytest.mark.parametrize("method", ["LP", "RR"])
def test_lp_and_rr_grow_with_sparsity(method):
    claim = f"ldp_sparse.fig3.{method.lower()}_grows_with_sparsity"
    assert status(claim, {"fig3": fig3()}) == "holds"
    dips_in_between = changed(base, **{method: lambda s, e: {0.1: 1.0, 0.5: 0.5, 0.9: 2.0}[s]})
    assert status(claim, {"fig3": fig3(dips_in_between)}) == "holds"  # overall, not each step
    falls = changed(base, **{method: lambda s, e: 1.0 - s})
    assert status(claim, {"fig3": fig3(falls)}) == "fails"
    assert status(claim, {"fig3": synthetic(points=(0.5,), experiment="fig3")}) == (
        "not testable")


# --- Fig. 4 -----------------------------------------------------------------------------------


def test_fig4_resembles_fig3():
    claim = "ldp_sparse.fig4.resembles_fig3"
    same = {"fig3": fig3(), "fig4": fig3().assign(experiment="fig4")}
    assert status(claim, same) == "holds"  # every observation holds in both
    assert "5 agree, 0 differ" in verdict(claim, same)["evidence"]
    # MF large at one point of Fig. 4: "MF always smallest" and "never above 0.5" differ
    mf_large = changed(base, MF=lambda s, e: 9.0 if (s, e) == (0.9, 0.1) else 0.1)
    row = verdict(claim, {"fig3": fig3(), "fig4": fig3(mf_large)})
    assert row["status"] == "fails"
    assert "MF always smallest: Fig. 3 holds, Fig. 4 fails" in row["evidence"]
    # two repetitions decide nothing on Fig. 4: inconclusive, not a resemblance
    few = fig3().query("rep < 2").assign(experiment="fig4")
    assert status(claim, {"fig3": fig3(), "fig4": few}) == "inconclusive"
    assert status(claim, {"fig3": fig3()}) == "not testable"


def test_lp_smaller_on_larger_data():
    smaller = changed(base, LP=lambda s, e: base("LP", s, e) - 0.5)
    assert status("ldp_sparse.fig4.lp_smaller_on_larger_data",
                  {"fig3": fig3(), "fig4": fig3(smaller)}) == "holds"
    larger = changed(base, LP=lambda s, e: base("LP", s, e) + (0.5 if e == 0.1 else -1))
    assert status("ldp_sparse.fig4.lp_smaller_on_larger_data",
                  {"fig3": fig3(), "fig4": fig3(larger)}) == "fails"
    at_one = {**THRESHOLDS, "small_epsilon": 1.0}  # at ε = 1 the larger data win here
    assert status("ldp_sparse.fig4.lp_smaller_on_larger_data",
                  {"fig3": fig3(), "fig4": fig3(larger)}, at_one) == "holds"
    at_two = {**THRESHOLDS, "small_epsilon": 2.0}
    assert status("ldp_sparse.fig4.lp_smaller_on_larger_data",
                  {"fig3": fig3(), "fig4": fig3(larger)}, at_two) == "not testable"
    no_01_on_large = fig3(smaller).query("epsilon == 1.0")
    assert status("ldp_sparse.fig4.lp_smaller_on_larger_data",
                  {"fig3": fig3(), "fig4": no_01_on_large}) == "not testable"


# --- Fig. 5 -----------------------------------------------------------------------------------


def real_base(m, d, e):
    return {"MF": 0.2, "LP": 1.5, "RR": 1.0, "2-Layer": 1.1}[m] * (1.0 if e <= 3 else 0.5)


def test_mf_lowest_in_most_cases():
    assert status("ldp_sparse.fig5.mf_lowest_most_cases", {"fig5": real(real_base)}) == "holds"
    worst = changed(real_base, MF=lambda d, e: 3.0)
    assert status("ldp_sparse.fig5.mf_lowest_most_cases", {"fig5": real(worst)}) == "fails"
    # lowest in 7 of 12 points: more than half, but not more than 60 %
    mixed = changed(real_base, MF=lambda d, e: 0.2 if d == "web" or e == 5.0 else 3.0)
    assert status("ldp_sparse.fig5.mf_lowest_most_cases", {"fig5": real(mixed)}) == "holds"
    assert status("ldp_sparse.fig5.mf_lowest_most_cases", {"fig5": real(mixed)},
                  {**THRESHOLDS, "most_quota": 0.6}) == "fails"


def test_two_layer_comparable_to_rr():
    assert status("ldp_sparse.fig5.two_layer_comparable_to_rr", {"fig5": real(real_base)}) == (
        "holds")
    apart = changed(real_base, **{"2-Layer": lambda d, e: 2.0})
    assert status("ldp_sparse.fig5.two_layer_comparable_to_rr", {"fig5": real(apart)}) == (
        "fails")
    assert status("ldp_sparse.fig5.two_layer_comparable_to_rr", {"fig5": real(real_base)},
                  {**THRESHOLDS, "comparable_rel_tol": 0.05}) == "fails"
    # relative to the larger of the two: 11 vs 10 is within 25 %, whatever the scale
    large = changed(real_base, RR=lambda d, e: 10.0, **{"2-Layer": lambda d, e: 11.0})
    assert status("ldp_sparse.fig5.two_layer_comparable_to_rr", {"fig5": real(large)}) == (
        "holds")
    no_2l = real(real_base, methods=("LP", "RR", "MF"))
    assert status("ldp_sparse.fig5.two_layer_comparable_to_rr", {"fig5": no_2l}) == (
        "not testable")


def test_rr_sharp_drop_beyond_three_on_adultcontent():
    # RR falls 0.01 per unit ε up to 3, then 0.45 per unit: sharp
    sharp = changed(real_base, RR=lambda d, e: 1.0 - 0.01 * e if e <= 3 else 0.97 - 0.45 * (e - 3))
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(sharp)}) == (
        "holds")
    steady = changed(real_base, RR=lambda d, e: 2.0 - 0.2 * e)
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(steady)}) == (
        "fails")
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(steady)},
                  {**THRESHOLDS, "sharp_drop_ratio": 0.5}) == "holds"
    web_only = real(sharp, datasets=("web",))
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": web_only}) == (
        "not testable")
    short = real(sharp, epsilons=(1.0, 2.0, 3.0))
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": short}) == (
        "not testable")
    # the slope before is measured from the first ε: a steep start counts against "sharp"
    steep_start = changed(real_base, RR=lambda d, e: {0.5: 2.0, 1.0: 1.0, 2.0: 1.0, 3.0: 1.0,
                                                      4.0: 0.75, 5.0: 0.5}[e])
    row = verdict("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(steep_start)})
    assert row["status"] == "fails"  # 0.25 per unit ε after 3 < 2 x 0.4 before
    assert row["evidence"].startswith("adultcontent, ε 0.5 .. 3 .. 5: ")
    # drop per unit ε before 3 = 1.0 / 2.5 = 0.4; after, 0.7 < 2 x 0.4
    close = changed(real_base, RR=lambda d, e: {0.5: 2.0, 1.0: 1.0, 2.0: 1.0, 3.0: 1.0,
                                                4.0: 0.3, 5.0: -0.4}[e])
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(close)}) == (
        "fails")
    # sharp_drop_at decides where "before" ends: at 0.5 only one ε lies up to it
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(sharp)},
                  {**THRESHOLDS, "sharp_drop_at": 0.5}) == "not testable"
    assert status("ldp_sparse.fig5.rr_sharp_drop_on_adultcontent", {"fig5": real(sharp)},
                  {**THRESHOLDS, "sharp_drop_at": 1.0}) == "holds"


# --- Fig. 1 and the theorems ------------------------------------------------------------------


def fig1(gold_zero=(0.8, 0.75), correct=(60, 40)):
    rows = []
    for ds, share in zip(("web", "adultcontent"), gold_zero):
        rows += [{"dataset": ds, "truth": "task_gold", "answer": 0, "count": 1,
                  "fraction": share},
                 {"dataset": ds, "truth": "task_gold", "answer": 1, "count": 1,
                  "fraction": 1 - share}]
        rows += [{"dataset": ds, "truth": "0", "answer": 0, "count": correct[0],
                  "fraction": np.nan},
                 {"dataset": ds, "truth": "0", "answer": 1, "count": correct[1],
                  "fraction": np.nan},
                 {"dataset": ds, "truth": "all", "answer": 1, "count": 999,
                  "fraction": np.nan}]
    return pd.DataFrame(rows)


def test_gold_mostly_zero_and_majority_correct():
    assert status("ldp_sparse.fig1.gold_mostly_zero", {"fig1": fig1()}) == "holds"
    assert status("ldp_sparse.fig1.gold_mostly_zero", {"fig1": fig1((0.8, 0.7))}) == "fails"
    assert status("ldp_sparse.fig1.gold_mostly_zero", {"fig1": fig1((0.8, 0.72))}) == "fails"
    assert status("ldp_sparse.fig1.gold_mostly_zero", {"fig1": fig1((0.8, 0.7))},
                  {**THRESHOLDS, "gold_zero_share_min": 0.6}) == "holds"
    assert status("ldp_sparse.fig1.majority_correct", {"fig1": fig1()}) == "holds"
    assert status("ldp_sparse.fig1.majority_correct", {"fig1": fig1(correct=(50, 50))}) == (
        "fails")  # half is not a majority
    assert verdict("ldp_sparse.fig1.majority_correct", {"fig1": fig1()})["data"].startswith(
        "web: not the paper's version")
    web_only = fig1().query("dataset == 'web'")
    for claim in ("ldp_sparse.fig1.gold_mostly_zero", "ldp_sparse.fig1.majority_correct"):
        assert status(claim, {"fig1": web_only}) == "not testable"  # "in both" datasets


def table2(avg=0.990141, maximum=1 - 1 / 11040, paper_avg=0.993666):
    return pd.DataFrame([
        {"dataset": "web", "workers": 177, "tasks": 2665, "answers": 15567,
         "max_sparsity": 0.9996, "avg_sparsity": 0.967, "paper_workers": 34,
         "paper_tasks": 177, "paper_answers": 770, "paper_avg_sparsity": 1 - 770 / (34 * 177),
         "paper_max_sparsity": 0.903955},
        {"dataset": "adultcontent", "workers": 825, "tasks": 11040, "answers": 89799,
         "max_sparsity": maximum, "avg_sparsity": avg, "paper_workers": 825,
         "paper_tasks": 11040, "paper_answers": 89796, "paper_avg_sparsity": paper_avg,
         "paper_max_sparsity": 0.999909}])


def test_table2_adultcontent_sparse_and_the_printed_averages():
    claim = "ldp_sparse.table2.adultcontent_extremely_sparse"
    assert status(claim, {"table2": table2()}) == "holds"
    assert status(claim, {"table2": table2(avg=0.98)}) == "fails"
    assert status(claim, {"table2": table2(maximum=1 - 2 / 11040)}) == "fails"  # two answers
    erratum = "ldp_sparse.table2.average_from_counts"
    row = verdict(erratum, {"table2": table2()})
    assert row["status"] == "fails" and row["category"] == "erratum"  # 0.993666 vs 0.990141
    assert "adultcontent: printed 0.993666" in row["evidence"]
    consistent = table2(paper_avg=round(1 - 89796 / (825 * 11040), 6))
    assert status(erratum, {"table2": consistent}) == "holds"


def test_worked_examples_are_an_erratum_check():
    ex = pd.DataFrame({"experiment": "paper_example", "method": ["LP", "RR", "MF"],
                       "bound": [14.13, 3.545, 1.798], "paper_bound": [14.13, 3.551, 1.8]})
    out = evaluate_claims({"bounds": ex}, thresholds=THRESHOLDS,
                          significance=SIGN).set_index("claim_id")
    assert out.loc["ldp_sparse.theorems.worked_examples", "status"] == "holds"
    assert out.loc["ldp_sparse.theorems.worked_examples", "category"] == "erratum"
    assert status("ldp_sparse.theorems.worked_examples", {"bounds": ex},
                  {**THRESHOLDS, "bound_example_tol": 0.005}) == "fails"
    edge = ex.assign(bound=[14.25, 3.5, 1.75], paper_bound=[14.0, 3.25, 1.5])
    assert status("ldp_sparse.theorems.worked_examples", {"bounds": edge},
                  {**THRESHOLDS, "bound_example_tol": 0.25}) == "holds"  # |diff| = tol
    ex.loc[1, "paper_bound"] = np.nan
    assert status("ldp_sparse.theorems.worked_examples", {"bounds": ex}) == "not testable"


@pytest.mark.parametrize("method", ["LP", "RR", "MF"])
def test_theorem_bounds_against_the_simulated_mae(method):
    claim = f"ldp_sparse.theorems.{method.lower()}_bound"
    tables = {"fig2": synthetic(), "fig5": real(real_base)}
    assert status(claim, tables) == "holds"  # MAE_P <= 6 against bounds of 100
    tight = synthetic(bound=lambda m, s, e: 0.0 if (m, s, e) == (method, 0.9, 1.0) else 100.0)
    assert status(claim, {"fig2": tight, "fig5": real(real_base)}) == "fails"
    other = synthetic(lambda m, s, e: 1.0, methods=("2-Layer",))
    assert status(claim, {"fig2": other}) == "not testable"
    evidence = verdict(claim, {"fig2": synthetic().iloc[::-1]})["evidence"]
    assert evidence.startswith("fig2 sparsity 0.9, ε 2: ")  # the tables' own order
    (record,) = [c for c in CLAIMS if c.claim_id == claim]
    theorem = {"LP": "Theorem 2", "RR": "Theorem 3", "MF": "Theorem 5"}[method]
    section = {"LP": "(Sec. IV)", "RR": "(Sec. IV)", "MF": "(Sec. V)"}[method]
    assert record.text.startswith(theorem) and record.text.endswith(section)


def test_every_claim_is_listed_once_and_not_testable_without_data():
    ids = [c.claim_id for c in CLAIMS]
    assert len(ids) == len(set(ids)) == 25
    labels = ["Table II", "Fig. 1", "Fig. 2", "Fig. 3", "Fig. 4", "Fig. 5", "Theorems"]
    out = evaluate_claims({}, thresholds=THRESHOLDS, significance=SIGN, figures=labels)
    assert set(out["status"]) == {"not testable"}
