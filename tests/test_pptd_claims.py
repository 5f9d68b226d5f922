"""Each PPTD claim check on small hand-built tables: one where it holds, one where it fails.

Ten repetitions per cell (the sign test can then decide a claim over up to 20 cells either
way); 30 for Theorem 4.3, whose 10 % tail needs R >= 29 before it can be shown small.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from crowdpriv.pptd import CLAIMS, evaluate_claims
from crowdpriv.claims import evaluate
from crowdpriv.significance import Significance

SIGN = Significance("sign", 0.05)
R = 10
EPS = [1.0, 10.0, 100.0]
THRESHOLDS = {"mae_noise_ratio_max": 0.2, "noise_near_one": [0.8, 1.25],
              "mae_at_noise_one_max": 0.1, "noise_across_workers_rel_tol": 0.05,
              "iterations_rel_change_max": 0.5, "weight_spearman_min": 0.8,
              "printed_formula_rel_tol": 0.001, "utility_beta": 0.1}


def verdict(claim_id, tables, thresholds=THRESHOLDS):
    """The claims row of one claim (only that claim is evaluated: the tests stay fast)."""
    (claim,) = [c for c in CLAIMS if c.claim_id == claim_id]
    return evaluate([claim], tables, thresholds=thresholds, significance=SIGN).iloc[0]


def status(claim_id, tables, thresholds=THRESHOLDS):
    return verdict(claim_id, tables, thresholds)["status"]


def tradeoff(mae=lambda e: 0.3 / np.sqrt(e), noise=lambda e: 3.0 / np.sqrt(e), reps=R,
             dataset="synthetic", alpha=(5.0, 5.0), **setting):
    """Per (ε, rep): noise 3/√ε (0.95 at ε = 10) and MAE a tenth of it, a little jitter."""
    rows = []
    for e in EPS:
        for r in range(reps):
            jitter = 1.0 + 0.01 * np.sin(r + e)
            m, n = mae(e) * jitter, noise(e) * jitter
            rows.append({"dataset": dataset, "epsilon": e, "rep": r, "mae": m, "noise": n,
                         "mae_over_noise": m / n, "alpha_thm43_printed": alpha[0],
                         "alpha_thm43_exact": alpha[1], **setting})
    return pd.DataFrame(rows)


# --- the trade-off pattern of Figs. 2, 5 and 6 ------------------------------------------------


@pytest.mark.parametrize("fig", ["fig2", "fig5", "fig6"])
def test_noise_and_mae_fall_with_epsilon(fig):
    assert status(f"pptd.{fig}.noise_falls_with_epsilon", {fig: tradeoff()}) == "holds"
    assert status(f"pptd.{fig}.mae_falls_with_epsilon", {fig: tradeoff()}) == "holds"
    flat_end = tradeoff(noise=lambda e: 3.0 if e < 100 else 3.5)  # rises at the last step
    assert status(f"pptd.{fig}.noise_falls_with_epsilon", {fig: flat_end}) == "fails"
    rising = tradeoff(mae=lambda e: 0.01 * e)
    assert status(f"pptd.{fig}.mae_falls_with_epsilon", {fig: rising}) == "fails"
    one = tradeoff().query("epsilon == 1.0")
    assert status(f"pptd.{fig}.mae_falls_with_epsilon", {fig: one}) == "not testable"
    two = tradeoff().query("epsilon != 100.0")
    assert status(f"pptd.{fig}.mae_falls_with_epsilon", {fig: two}) == "holds"


def test_mae_small_against_noise_at_every_epsilon():
    assert status("pptd.fig2.mae_small_against_noise", {"fig2": tradeoff()}) == "holds"
    big = tradeoff(mae=lambda e: 3.0 / np.sqrt(e) * (0.3 if e == 100 else 0.1))
    assert status("pptd.fig2.mae_small_against_noise", {"fig2": big}) == "fails"
    loose = {**THRESHOLDS, "mae_noise_ratio_max": 0.35}
    assert status("pptd.fig2.mae_small_against_noise", {"fig2": big}, loose) == "holds"


def test_mae_below_a_tenth_where_the_noise_nears_one():
    assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": tradeoff()}) == "holds"
    # only the ε with noise near 1 counts: a large MAE elsewhere does not matter
    elsewhere = tradeoff(mae=lambda e: 2.0 if e != 10 else 0.09)
    assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": elsewhere}) == "holds"
    above = tradeoff(mae=lambda e: 0.12)
    assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": above}) == "fails"
    lenient = {**THRESHOLDS, "mae_at_noise_one_max": 0.13}
    assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": above}, lenient) == "holds"
    far = tradeoff(noise=lambda e: 30.0 / np.sqrt(e))  # 30, 9.5, 3: nowhere near 1
    assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": far}) == "not testable"
    # the band's edges count: an average noise of exactly 1 lies in [1, 2] and in [0.5, 1]
    exactly_one = tradeoff()
    exactly_one.loc[exactly_one["epsilon"] == 10.0, "noise"] = 1.0
    for band in ([1.0, 2.0], [0.5, 1.0]):
        edge = {**THRESHOLDS, "noise_near_one": band}
        assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": exactly_one}, edge) == "holds"
    for band in ([1.01, 2.0], [0.5, 0.99]):
        past = {**THRESHOLDS, "noise_near_one": band}
        assert status("pptd.fig2.mae_below_at_noise_one", {"fig2": exactly_one}, past) == (
            "not testable")


def test_surrogate_data_are_named():
    out = evaluate_claims({"fig6": tradeoff(dataset="indoor_surrogate")}, thresholds=THRESHOLDS,
                          significance=SIGN).set_index("claim_id")
    assert out.loc["pptd.fig6.mae_falls_with_epsilon", "data"] == (
        "surrogate only: indoor_surrogate")
    assert out.loc["pptd.fig6.mae_small_against_noise", "data"] == (
        "surrogate only: indoor_surrogate")
    # Fig. 2's numbers (noise near 1, MAE below 0.1) are in the synthetic data's units: not
    # a claim about the indoor data, whose values are metres
    assert "pptd.fig6.mae_below_at_noise_one" not in out.index


# --- Theorem 4.3 ------------------------------------------------------------------------------


def test_theorem_43_bound_needs_30_repetitions_to_hold():
    for form in ("printed", "exact"):
        claim = f"pptd.fig2.thm43_{'as_printed' if form == 'printed' else 'exact'}"
        assert status(claim, {"fig2": tradeoff(reps=30)}) == "holds"
        assert status(claim, {"fig2": tradeoff(reps=10)}) == "inconclusive"
    # printed α 0 (below every MAE): the tail is everything
    zero = tradeoff(reps=30, alpha=(0.0, 5.0))
    assert status("pptd.fig2.thm43_as_printed", {"fig2": zero}) == "fails"
    assert status("pptd.fig2.thm43_exact", {"fig2": zero}) == "holds"
    beta = {**THRESHOLDS, "utility_beta": 0.01}  # a 1 % tail cannot be shown with 30
    assert status("pptd.fig2.thm43_exact", {"fig2": tradeoff(reps=30)}, beta) == "inconclusive"
    at_alpha = tradeoff(reps=30)
    at_alpha["alpha_thm43_exact"] = at_alpha["mae"]  # MAE >= α counts MAE = α
    assert status("pptd.fig2.thm43_exact", {"fig2": at_alpha}) == "fails"
    shuffled = tradeoff(reps=30).iloc[::-1]  # cells are listed by increasing ε
    evidence = verdict("pptd.fig2.thm43_exact", {"fig2": shuffled})["evidence"]
    assert evidence.startswith("ε 1 (α 5): 0/30 with MAE >= α")
    assert evidence.index("ε 10 (α 5)") < evidence.index("ε 100 (α 5)")


def test_printed_expectation_erratum():
    """α_λ1,c from the printed E(Y) against E(Y) by quadrature (crowdpriv.pptd._theory), at the
    λ1 and c of each ε: the printed closed form is wrong, so the check fails unless the
    tolerance swallows the difference; the evidence shows signed values."""
    claim = "pptd.fig2.thm43_printed_expectation"
    table = tradeoff(lambda1=2.0, c=43.7)
    assert status(claim, {"fig2": table}) == "fails"
    assert status(claim, {"fig2": table}, {**THRESHOLDS, "printed_formula_rel_tol": 100}) == (
        "holds")
    negative = verdict(claim, {"fig2": tradeoff(lambda1=2.0, c=0.874)})
    assert "printed -2.34" in negative["evidence"]  # the printed form goes negative near c = 1
    assert negative["status"] == "fails"  # far below the exact value is a difference too
    out = evaluate_claims({}, thresholds=THRESHOLDS, significance=SIGN).set_index("claim_id")
    assert out.loc[claim, "category"] == "erratum"


# --- Figs. 3 and 4 ----------------------------------------------------------------------------


def by_setting(name, values, mae, noise):
    return pd.concat([tradeoff(mae=lambda e, v=v: mae(v, e), noise=lambda e, v=v: noise(v, e),
                               **{name: v}) for v in values], ignore_index=True)


def test_lambda1_lowers_noise_and_mae():
    good = by_setting("lambda1", [1.0, 2.0, 4.0], lambda v, e: 0.3 / v / e, lambda v, e: 3 / v / e)
    assert status("pptd.fig3.noise_falls_with_lambda1", {"fig3": good}) == "holds"
    assert status("pptd.fig3.mae_falls_with_lambda1", {"fig3": good}) == "holds"
    bump = by_setting("lambda1", [1.0, 2.0, 4.0], lambda v, e: 0.3 if v == 4 else 0.1,
                      lambda v, e: 3.0 if v == 4 else 1.0)
    assert status("pptd.fig3.noise_falls_with_lambda1", {"fig3": bump}) == "fails"
    assert status("pptd.fig3.mae_falls_with_lambda1", {"fig3": bump}) == "fails"
    evidence = verdict("pptd.fig3.mae_falls_with_lambda1", {"fig3": good.iloc[::-1]})["evidence"]
    assert evidence.startswith("ε 1, λ1 1 -> 2:") and evidence.index("ε 10,") < evidence.index(
        "ε 100,")


def test_workers_help_mae_and_leave_noise_alone():
    good = by_setting("workers", [50, 150, 300], lambda v, e: 10.0 / v, lambda v, e: 1.0)
    assert status("pptd.fig4.mae_falls_with_workers", {"fig4": good}) == "holds"
    assert status("pptd.fig4.noise_unchanged_with_workers", {"fig4": good}) == "holds"
    bad = by_setting("workers", [50, 150, 300], lambda v, e: v / 100.0,
                     lambda v, e: 1.0 + v / 1000.0)  # noise 1.05 .. 1.3: 22 % spread
    assert status("pptd.fig4.mae_falls_with_workers", {"fig4": bad}) == "fails"
    assert status("pptd.fig4.noise_unchanged_with_workers", {"fig4": bad}) == "fails"
    loose = {**THRESHOLDS, "noise_across_workers_rel_tol": 0.3}
    assert status("pptd.fig4.noise_unchanged_with_workers", {"fig4": bad}, loose) == "holds"
    single = by_setting("workers", [50], lambda v, e: 1.0, lambda v, e: 1.0)
    assert status("pptd.fig4.noise_unchanged_with_workers", {"fig4": single}) == "not testable"
    pair = by_setting("workers", [50, 150], lambda v, e: 10.0 / v, lambda v, e: 1.0)
    assert status("pptd.fig4.noise_unchanged_with_workers", {"fig4": pair}) == "holds"
    evidence = verdict("pptd.fig4.noise_unchanged_with_workers", {"fig4": good.iloc[::-1]})[
        "evidence"]
    labels = [part.split(":")[0] for part in evidence.split("; ")]
    assert labels[:3] == ["ε 1, S 50 vs 150", "ε 1, S 50 vs 300", "ε 1, S 150 vs 300"]
    assert len(labels) == 3 * len(EPS)


# --- Fig. 7 -----------------------------------------------------------------------------------


def fig7(rho=0.9, rho_change=-0.5, crh=0.5, mean=0.6, median=0.7):
    jitter = 0.01 * np.sin(np.arange(R) + 1.0)
    return pd.DataFrame({"dataset": "indoor_surrogate", "rep": np.arange(R),
                         "spearman_estimated_true": rho + jitter,
                         "spearman_noise_variance_weight_change": rho_change + jitter,
                         "mae_crh": crh + jitter, "mae_mean": mean + jitter,
                         "mae_median": median + jitter})


def original(rho=0.9, crh=0.5, mean=0.6, median=0.7):
    return pd.DataFrame([{"dataset": "indoor_surrogate", "spearman_estimated_true": rho,
                          "mae_crh": crh, "mae_mean": mean, "mae_median": median}])


def test_weights_consistent():
    assert status("pptd.fig7.weights_consistent_original",
                  {"fig7_original": original()}) == "holds"
    assert status("pptd.fig7.weights_consistent_original",
                  {"fig7_original": original(rho=0.8)}) == "holds"  # >= the minimum
    assert status("pptd.fig7.weights_consistent_original",
                  {"fig7_original": original(rho=0.79)}) == "fails"
    assert status("pptd.fig7.weights_consistent_perturbed", {"fig7": fig7()}) == "holds"
    assert status("pptd.fig7.weights_consistent_perturbed", {"fig7": fig7(rho=0.7)}) == "fails"
    strict = {**THRESHOLDS, "weight_spearman_min": 0.95}
    assert status("pptd.fig7.weights_consistent_perturbed", {"fig7": fig7()}, strict) == "fails"


def test_noisy_workers_lose_weight():
    assert status("pptd.fig7.noisy_workers_lose_weight", {"fig7": fig7()}) == "holds"
    assert status("pptd.fig7.noisy_workers_lose_weight",
                  {"fig7": fig7(rho_change=0.3)}) == "fails"


def test_weighted_aggregation_beats_mean_and_median():
    assert status("pptd.fig7.beats_naive_original", {"fig7_original": original()}) == "holds"
    assert status("pptd.fig7.beats_naive_original",
                  {"fig7_original": original(median=0.4)}) == "fails"
    assert status("pptd.fig7.beats_naive_original",
                  {"fig7_original": original(mean=0.4)}) == "fails"
    assert status("pptd.fig7.beats_naive_original",
                  {"fig7_original": original(mean=0.5)}) == "fails"  # a tie is not better
    assert status("pptd.fig7.beats_naive_original",
                  {"fig7_original": original(median=0.5)}) == "fails"
    assert status("pptd.fig7.beats_naive_perturbed", {"fig7": fig7()}) == "holds"
    assert status("pptd.fig7.beats_naive_perturbed", {"fig7": fig7(median=0.45)}) == "fails"
    out = evaluate_claims({"fig7": fig7()}, thresholds=THRESHOLDS,
                          significance=SIGN).set_index("claim_id")
    assert out.loc["pptd.fig7.beats_naive_perturbed", "data"] == (
        "surrogate only: indoor_surrogate")


# --- Fig. 8 -----------------------------------------------------------------------------------


def fig8(original=4, perturbed=lambda e: 5):
    rows = [{"condition": "original", "epsilon": np.nan, "rep": r, "iterations": original,
             "noise": 0.0} for r in range(R)]
    rows += [{"condition": "perturbed", "epsilon": e, "rep": r, "iterations": perturbed(e),
              "noise": 1 / e} for e in EPS for r in range(R)]
    return pd.DataFrame(rows)


def test_iterations_hardly_change_with_noise():
    assert status("pptd.fig8.iterations_unchanged_by_noise", {"fig8": fig8()}) == "holds"
    wide = fig8(perturbed=lambda e: 10 if e == 1 else 5)  # spread 5 / 5 = 1
    assert status("pptd.fig8.iterations_unchanged_by_noise", {"fig8": wide}) == "fails"
    loose = {**THRESHOLDS, "iterations_rel_change_max": 1.5}
    assert status("pptd.fig8.iterations_unchanged_by_noise", {"fig8": wide}, loose) == "holds"
    two_levels = fig8().query("condition == 'original' or epsilon <= 10")
    assert status("pptd.fig8.iterations_unchanged_by_noise", {"fig8": two_levels}) == "holds"
    one_level = fig8().query("condition == 'original' or epsilon == 1")
    assert status("pptd.fig8.iterations_unchanged_by_noise", {"fig8": one_level}) == (
        "not testable")


def test_more_iterations_after_perturbation_ties_count_against():
    assert status("pptd.fig8.more_iterations_after_perturbation", {"fig8": fig8()}) == "holds"
    same = fig8(original=5)
    assert status("pptd.fig8.more_iterations_after_perturbation", {"fig8": same}) == "fails"
    fewer = fig8(perturbed=lambda e: 5 if e < 100 else 3)
    assert status("pptd.fig8.more_iterations_after_perturbation", {"fig8": fewer}) == "fails"
    only_original = fig8().query("condition == 'original'")
    assert status("pptd.fig8.more_iterations_after_perturbation",
                  {"fig8": only_original}) == "not testable"


def test_every_claim_is_listed_once_and_not_testable_without_data():
    ids = [c.claim_id for c in CLAIMS]
    assert len(ids) == len(set(ids)) == 25
    labels = [f"Fig. {n}" for n in range(2, 9)]
    out = evaluate_claims({}, thresholds=THRESHOLDS, significance=SIGN, figures=labels)
    assert set(out["status"]) == {"not testable"}
