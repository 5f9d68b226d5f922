"""The shared claims engine: statuses, the evaluator, the paired tests and the aggregator."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from crowdpriv.aggregate import summarise
from crowdpriv.claims import (
    COLUMNS,
    Claim,
    NotTestable,
    Verdict,
    evaluate,
    exact,
    surrogate_scope,
    write_claims,
)
from crowdpriv.significance import (
    Significance,
    cell_label,
    decide_cell,
    decide_every,
    decide_most,
    paired,
)

SIGN = Significance("sign", 0.05)
T = Significance("t", 0.05)


# --- one cell ---------------------------------------------------------------------------------


def test_sign_test_all_ten_agree_holds():
    cell = decide_cell("c", np.arange(1, 11), SIGN, alpha_fails=0.05)
    assert cell.status == "holds"
    assert cell.wins == 10 and cell.n == 10
    assert cell.p_holds == pytest.approx(2.0**-10)
    assert cell.effect == pytest.approx(5.5)


def test_sign_test_half_agree_is_inconclusive():
    """The issue's example: winning 5 of 10 paired repetitions decides nothing."""
    margins = [1, -1, 2, -2, 3, -3, 4, -4, 5, -5]
    cell = decide_cell("c", margins, SIGN, alpha_fails=0.05)
    assert cell.status == "inconclusive"
    assert cell.p_holds == pytest.approx(stats.binom.sf(4, 10, 0.5))
    assert cell.p_fails == pytest.approx(stats.binom.cdf(5, 10, 0.5))


def test_sign_test_all_against_fails():
    cell = decide_cell("c", -np.arange(1, 11), SIGN, alpha_fails=0.05)
    assert cell.status == "fails"
    assert cell.p_fails == pytest.approx(2.0**-10)


def test_sign_test_ties_count_against_a_strict_claim():
    cell = decide_cell("c", np.zeros(10), SIGN, alpha_fails=0.05)
    assert cell.wins == 0
    assert cell.status == "fails"


def test_sign_test_needs_five_repetitions_at_five_percent():
    assert decide_cell("c", [1, 2, 3, 4], SIGN, alpha_fails=0.05).status == "inconclusive"
    assert decide_cell("c", [1, 2, 3, 4, 5], SIGN, alpha_fails=0.05).status == "holds"
    assert SIGN.min_repetitions(0.05) == 5


def test_level_is_inclusive():
    """p == alpha rejects: five of five at alpha = 2^-5."""
    spec = Significance("sign", 2.0**-5)
    assert decide_cell("c", [1, 2, 3, 4, 5], spec, alpha_fails=0.01).status == "holds"
    assert decide_cell("c", [-1, -2, -3, -4, -5], spec, alpha_fails=2.0**-5).status == "fails"
    assert decide_cell("c", [-1, -2, -3, -4, -5], spec, alpha_fails=0.03).status == "inconclusive"
    assert spec.min_repetitions(2.0**-5) == 5
    assert spec.min_repetitions(0.0625) == 4
    assert spec.min_repetitions(0.07) == 4
    # the order-statistic bounds use the same inclusive level: P(X <= 0) = 2^-5 = alpha
    cell = decide_cell("c", [1.0, 2.0, 3.0, 4.0, 5.0], spec, alpha_fails=0.01)
    assert (cell.low, cell.high) == (1.0, 5.0)


def test_fails_uses_its_own_level():
    margins = [-1, -2, -3, -4, -5, -6, 1]  # 1 of 7 agrees: P(X <= 1) = 8/128 = 0.0625
    assert decide_cell("c", margins, SIGN, alpha_fails=0.07).status == "fails"
    assert decide_cell("c", margins, SIGN, alpha_fails=0.06).status == "inconclusive"


def test_median_bounds_are_order_statistics():
    d = np.arange(1.0, 11.0)  # n = 10: P(X <= 1) = 11/1024 <= 0.05 < P(X <= 2) -> k = 2
    cell = decide_cell("c", d, SIGN, alpha_fails=0.05)
    assert (cell.low, cell.high) == (2.0, 9.0)
    few = decide_cell("c", [1.0, 2.0], SIGN, alpha_fails=0.05)
    assert (few.low, few.high) == (-math.inf, math.inf)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False).filter(lambda x: x != 0), min_size=1,
                max_size=25))
def test_sign_test_rejects_exactly_when_the_lower_bound_is_positive(margins):
    cell = decide_cell("c", margins, SIGN, alpha_fails=0.05)
    assert (cell.status == "holds") == (cell.low > 0)
    assert (cell.status == "fails") == (cell.high < 0)
    assert cell.low <= cell.effect <= cell.high


def test_t_test_matches_scipy():
    d = np.array([0.3, 1.2, 0.8, -0.1, 0.9, 0.4])
    cell = decide_cell("c", d, T, alpha_fails=0.05)
    ref = stats.ttest_1samp(d, 0.0, alternative="greater")
    assert cell.p_holds == pytest.approx(ref.pvalue)
    assert cell.p_fails == pytest.approx(1 - ref.pvalue)
    se = d.std(ddof=1) / math.sqrt(d.size)
    q = stats.t.ppf(0.95, d.size - 1)
    assert (cell.low, cell.high) == pytest.approx((d.mean() - q * se, d.mean() + q * se))
    assert cell.status == "holds"
    assert decide_cell("c", -d, T, alpha_fails=0.05).status == "fails"
    assert decide_cell("c", [1.0, -1.1, 0.9, -0.8], T, alpha_fails=0.05).status == "inconclusive"


def test_t_test_degenerate_cases():
    one = decide_cell("c", [2.0], T, alpha_fails=0.05)
    assert one.status == "inconclusive"
    assert (one.p_holds, one.p_fails, one.low, one.high) == (1.0, 1.0, -math.inf, math.inf)
    assert decide_cell("c", [2.0, 2.0], T, alpha_fails=0.05).status == "holds"
    half = decide_cell("c", [0.5, 0.5], T, alpha_fails=0.05)
    assert (half.status, half.p_holds, half.p_fails, half.low) == ("holds", 0.0, 1.0, 0.5)
    zeros = decide_cell("c", [0.0, 0.0, 0.0], T, alpha_fails=0.05)
    assert (zeros.status, zeros.p_holds, zeros.p_fails) == ("fails", 1.0, 0.0)
    assert decide_cell("c", [-1.0, -1.0], T, alpha_fails=0.05).status == "fails"
    assert T.min_repetitions(0.05) == 2


def test_missing_repetition_is_an_error_and_empty_is_not_testable():
    with pytest.raises(ValueError, match="NaN"):
        decide_cell("sparsity 0.9", [1.0, np.nan, 2.0], SIGN, alpha_fails=0.05)
    empty = decide_cell("c", [], SIGN, alpha_fails=0.05)
    assert (empty.status, empty.n, empty.wins, empty.p_holds, empty.p_fails) == (
        "not testable", 0, 0, 1.0, 1.0)
    assert (empty.low, empty.high) == (-math.inf, math.inf) and math.isnan(empty.effect)


def test_records_are_immutable_and_defaults_are_the_documented_ones():
    import dataclasses

    cell = decide_cell("c", [1.0, 2.0], SIGN, alpha_fails=0.05)
    claim = _claim(lambda ctx: exact(True, "e"))
    from crowdpriv.claims import Context

    for record, name in ((SIGN, "alpha"), (cell, "status"), (exact(True, "e"), "status"),
                         (claim, "text"), (Context({}, {}, SIGN), "tables")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, None)
    assert Significance() == Significance("sign", 0.05)
    assert "check" not in repr(claim) and "toy.a" in repr(claim)
    assert claim.category == "paper" and exact(True, "e").data == ""


def test_significance_validates_its_config():
    with pytest.raises(ValueError, match="claims.test"):
        Significance("wilcoxon", 0.05)
    with pytest.raises(ValueError, match="claims.alpha"):
        Significance("sign", 0.5)
    with pytest.raises(ValueError, match="claims.alpha"):
        Significance("sign", 0.0)
    assert Significance.from_mapping({"test": "t", "alpha": 0.01}) == Significance("t", 0.01)
    assert "sign test" in SIGN.describe() and "t-test" in T.describe()


# --- many cells -------------------------------------------------------------------------------

UP = np.arange(1.0, 11.0)
DOWN = -UP
MIXED = np.array([1, -1, 2, -2, 3, -3, 4, -4, 5, -5], dtype=float)


def test_every_cell_must_hold():
    assert decide_every({"a": UP, "b": UP}, SIGN, margin="m").status == "holds"
    assert decide_every({"a": UP, "b": MIXED}, SIGN, margin="m").status == "inconclusive"
    assert decide_every({"a": UP, "b": DOWN}, SIGN, margin="m").status == "fails"


def test_every_uses_bonferroni_for_fails():
    seven = np.array([-1, -2, -3, -4, -5, -6, -7.0])  # p_fails = 2^-7 = 0.0078
    assert decide_every({"a": seven}, SIGN, margin="m").status == "fails"
    cells = {str(i): seven for i in range(7)}  # alpha / 7 = 0.00714 < 0.0078
    verdict = decide_every(cells, SIGN, margin="m")
    assert verdict.status == "inconclusive"
    assert "α/k = 0.00714" in verdict.basis and "k = 7" in verdict.basis
    assert "hold from R ≥ 5 and fail from R ≥ 8" in verdict.basis  # 2^-8 <= 0.05 / 7


def test_every_states_its_basis_and_evidence():
    verdict = decide_every({"p 0.1": UP}, SIGN, margin="ISE(B) - ISE(A)", data="x")
    assert verdict.data == "x"
    assert "sign test" in verdict.basis
    assert "ISE(B) - ISE(A)" in verdict.basis
    assert "hold from R ≥ 5" in verdict.basis and "fail from R ≥ 5" in verdict.basis
    assert verdict.evidence == "p 0.1: 5.5 [2, 9] (90% CI), 10/10 > 0: holds"


def test_most_cells():
    assert decide_most({"a": UP, "b": UP, "c": DOWN}, SIGN, margin="m", quota=0.5).status == "holds"
    assert decide_most({"a": UP, "b": DOWN}, SIGN, margin="m", quota=0.5).status == "fails"
    assert decide_most({"a": UP, "b": MIXED}, SIGN, margin="m", quota=0.5).status == "inconclusive"
    assert decide_most({"a": UP, "b": MIXED, "c": DOWN}, SIGN, margin="m",
                       quota=0.5).status == "inconclusive"
    assert decide_most({"a": UP, "b": UP, "c": MIXED, "d": DOWN}, SIGN, margin="m",
                       quota=0.5).status == "inconclusive"
    assert decide_most({"a": UP, "b": MIXED, "c": DOWN, "d": DOWN}, SIGN, margin="m",
                       quota=0.5).status == "fails"
    assert decide_most({"a": UP, "b": UP, "c": UP, "d": DOWN}, SIGN, margin="m",
                       quota=0.75).status == "fails"
    assert decide_most({"a": UP}, SIGN, margin="m", quota=0.0).status == "holds"
    verdict = decide_most({"a": UP, "b": DOWN, "c": MIXED}, SIGN, margin="m", quota=0.5)
    assert "1 hold, 1 fail" in verdict.basis and "more than 50%" in verdict.basis
    with pytest.raises(ValueError, match="quota"):
        decide_most({"a": UP}, SIGN, margin="m", quota=1.0)
    with pytest.raises(ValueError, match="at least one cell"):
        decide_every({}, SIGN, margin="m")


def test_paired_tables_and_labels():
    df = pd.DataFrame({
        "p": [0.1] * 4 + [0.3] * 4,
        "method": ["A", "B"] * 4,
        "rep": [0, 0, 1, 1] * 2,
        "ISE": [1.0, 2.0, 1.5, 2.5, 3.0, 3.5, 2.0, 1.0],
    })
    cells = paired(df, ["p"], across="method", value="ISE")
    assert list(cells) == ["p 0.1", "p 0.3"]
    assert list(paired(df.iloc[::-1], ["p"], across="method", value="ISE")["p 0.1"]) == ["B", "A"]
    assert list(paired(df.iloc[::-1], ["p"], across="method", value="ISE")) == ["p 0.3", "p 0.1"]
    margins = cells["p 0.3"]["B"] - cells["p 0.3"]["A"]
    assert margins.tolist() == [0.5, -1.0]
    assert list(paired(df[df["p"] == 0.1], [], across="method", value="ISE")) == ["all"]
    with pytest.raises(ValueError, match="lack a value"):
        paired(df.iloc[:-1], ["p"], across="method", value="ISE")
    assert cell_label(["sparsity", "epsilon", "dataset"], [0.9, 1.0, "web"]) == (
        "sparsity 0.9, ε 1, dataset web")


def test_equivalence_needs_both_sides_within_the_tolerance():
    from crowdpriv.significance import decide_equivalent

    small = 0.01 * np.sin(np.arange(10.0))
    assert decide_equivalent({"a": small}, SIGN, tolerance=0.1, difference="d").status == "holds"
    assert decide_equivalent({"a": small + 0.5}, SIGN, tolerance=0.1,
                             difference="d").status == "fails"
    assert decide_equivalent({"a": small - 0.5}, SIGN, tolerance=0.1,
                             difference="d").status == "fails"
    spread = np.array([0.3, -0.3] * 5)  # centred, but as often beyond +tol as within
    assert decide_equivalent({"a": spread}, SIGN, tolerance=0.1,
                             difference="d").status == "inconclusive"
    assert decide_equivalent({"a": small, "b": small + 0.5}, SIGN, tolerance=0.1,
                             difference="d").status == "fails"
    assert decide_equivalent({"a": small[:3]}, SIGN, tolerance=0.1,
                             difference="d").status == "inconclusive"
    empty = decide_equivalent({"a": []}, SIGN, tolerance=0.1, difference="d")
    assert empty.status == "inconclusive" and "within ±0.1: not testable" in empty.evidence
    seven = np.full(7, 0.5)  # beyond the tolerance in 7 of 7: 2^-7 > 0.05 / 7
    assert decide_equivalent({"a": seven}, SIGN, tolerance=0.1, difference="d").status == "fails"
    assert decide_equivalent({str(i): seven for i in range(7)}, SIGN, tolerance=0.1,
                             difference="d").status == "inconclusive"
    two = decide_equivalent({"a": small, "b": small}, SIGN, tolerance=0.1, difference="d")
    assert "α/k = 0.025" in two.basis and "(90% CI)" in two.evidence
    verdict = decide_equivalent({"a": small}, SIGN, tolerance=0.1, difference="x - y")
    assert "TOST" in verdict.basis and "x - y" in verdict.basis
    assert "within ±0.1: holds" in verdict.evidence
    assert decide_equivalent({"a": small}, SIGN, tolerance=0.005,
                             difference="d").status == "inconclusive"
    with pytest.raises(ValueError, match="tolerance"):
        decide_equivalent({"a": small}, SIGN, tolerance=0.0, difference="d")
    with pytest.raises(ValueError, match="at least one cell"):
        decide_equivalent({}, SIGN, tolerance=0.1, difference="d")


def test_rate_claims_need_enough_repetitions_to_show_a_tail_is_small():
    from crowdpriv.significance import decide_rate

    never = {"ε 1": np.zeros(29, bool)}  # 0.9^29 = 0.047 <= 0.05
    verdict = decide_rate(never, SIGN, bound=0.1, event="MAE >= α")
    assert verdict.status == "holds"
    assert "0/29 with MAE >= α (rate <= 0.0981 at 95%): holds" in verdict.evidence
    assert "can hold from R ≥ 29" in verdict.basis
    assert decide_rate({"c": np.zeros(28, bool)}, SIGN, bound=0.1, event="e").status == (
        "inconclusive")  # 0.9^28 = 0.052
    often = np.r_[np.ones(6, bool), np.zeros(14, bool)]  # 6/20: P(Bin(20, .1) >= 6) = 0.011
    assert decide_rate({"c": often}, SIGN, bound=0.1, event="e").status == "fails"
    five = {label: often for label in "abcde"}
    verdict = decide_rate(five, SIGN, bound=0.1, event="e")
    assert verdict.status == "inconclusive"  # 0.011 > 0.05 / 5
    assert "α/k = 0.01" in verdict.basis and "k = 5" in verdict.basis
    upper = stats.beta.ppf(0.95, 7, 14)  # Clopper-Pearson, 6 of 20
    assert f"6/20 with e (rate <= {upper:.3g} at 95%)" in verdict.evidence
    # the levels are inclusive: P(Bin(5, 1/2) <= 0) = 2^-5 = alpha holds, >= 5 fails
    exact_level = Significance("sign", 2.0**-5)
    assert decide_rate({"c": np.zeros(5, bool)}, exact_level, bound=0.5,
                       event="e").status == "holds"
    assert decide_rate({"c": np.ones(5, bool)}, exact_level, bound=0.5,
                       event="e").status == "fails"
    assert decide_rate({"a": np.zeros(29, bool), "b": often}, SIGN, bound=0.1,
                       event="e").status == "fails"
    assert "rate <= 1 at" in decide_rate({"c": np.ones(3, bool)}, SIGN, bound=0.1,
                                         event="e").evidence
    with pytest.raises(ValueError, match="bound"):
        decide_rate(never, SIGN, bound=1.0, event="e")
    with pytest.raises(ValueError, match="bound"):
        decide_rate(never, SIGN, bound=0.0, event="e")
    with pytest.raises(ValueError, match="at least one cell"):
        decide_rate({}, SIGN, bound=0.1, event="e")


# --- records and the evaluator ----------------------------------------------------------------


def _claim(check, claim_id="toy.a", figure=("Fig. 1",), category="paper"):
    return Claim(claim_id, "text", figure, "reading", check, category)


def test_evaluate_writes_one_row_per_claim_with_all_columns():
    claims = [
        _claim(lambda ctx: exact(ctx.table("t")["x"].sum() > ctx.threshold("min"), "sum"), "toy.a"),
        _claim(lambda ctx: exact(False, "no"), "toy.b", category="erratum"),
        _claim(lambda ctx: ctx.table("absent"), "toy.c"),
    ]
    out = evaluate(claims, {"t": pd.DataFrame({"x": [1, 2]})}, thresholds={"min": 2},
                   significance=SIGN, figures=["Fig. 1"])
    assert list(out.columns) == list(COLUMNS)
    assert out["status"].tolist() == ["holds", "fails", "not testable"]
    assert out["category"].tolist() == ["paper", "erratum", "paper"]
    assert out.loc[2, "evidence"] == "this run has no absent results"
    assert out.loc[0, "basis"].startswith("exact")


def test_evaluate_rejects_unknown_figures_duplicates_and_missing_thresholds():
    ok = _claim(lambda ctx: exact(True, "e"))
    with pytest.raises(ValueError, match="not in the paper's registry"):
        evaluate([_claim(lambda ctx: exact(True, "e"), figure=("Fig. 9",))], {},
                 thresholds={}, significance=SIGN, figures=["Fig. 1"])
    with pytest.raises(ValueError, match="duplicate claim ids"):
        evaluate([ok, ok], {}, thresholds={}, significance=SIGN)
    with pytest.raises(ValueError, match="'min' is not set"):
        evaluate([_claim(lambda ctx: exact(ctx.threshold("min") > 0, "e"))], {},
                 thresholds={}, significance=SIGN)
    empty = evaluate([_claim(lambda ctx: ctx.table("t"))], {"t": pd.DataFrame()},
                     thresholds={}, significance=SIGN)
    assert empty["status"].tolist() == ["not testable"]


def test_not_testable_carries_its_reason():
    def check(ctx):
        raise NotTestable("MF not in this run's methods")

    out = evaluate([_claim(check)], {}, thresholds={}, significance=SIGN)
    assert out.loc[0, "evidence"] == "MF not in this run's methods"
    assert out.loc[0, "basis"] == "no data in this run"

    def by_construction(ctx):
        raise NotTestable("candidates = m without the test", basis="true by construction")

    out = evaluate([_claim(by_construction)], {}, thresholds={}, significance=SIGN)
    assert out.loc[0, "basis"] == "true by construction"


def test_records_validate_status_category_and_figure():
    with pytest.raises(ValueError, match="status must be one of"):
        Verdict("maybe", "b", "e")
    with pytest.raises(ValueError, match="category must be one of"):
        _claim(lambda ctx: None, category="opinion")
    with pytest.raises(ValueError, match="figure must be a non-empty tuple"):
        _claim(lambda ctx: None, figure="Fig. 1")
    with pytest.raises(ValueError, match="figure must be a non-empty tuple"):
        _claim(lambda ctx: None, figure=())
    assert exact(True, "e").status == "holds" and exact(False, "e").status == "fails"


def test_surrogate_scope():
    assert surrogate_scope(["population", "web"]) == ""
    assert surrogate_scope(["indoor_surrogate"]) == "surrogate only: indoor_surrogate"
    assert surrogate_scope(["population", "stock_surrogate", "stock_surrogate"]) == (
        "partly surrogate: stock_surrogate")


def test_write_claims(tmp_path):
    out = evaluate([_claim(lambda ctx: exact(True, "e"))], {}, thresholds={}, significance=SIGN)
    write_claims(out, tmp_path / "c.csv", tmp_path / "c.md", title="Toy")
    assert pd.read_csv(tmp_path / "c.csv")["status"].tolist() == ["holds"]
    assert (tmp_path / "c.md").read_text().startswith("# Toy")


# --- the aggregator ---------------------------------------------------------------------------


def test_summarise_mean_std_r_and_the_rule_for_one_repetition():
    df = pd.DataFrame({"x": [2, 2, 1, 3], "m": ["b", "a", "b", "b"], "v": [1.0, 5.0, 2.0, 4.0],
                       "w": [1.0, 1.0, 3.0, 2.0]})
    out = summarise(df, ["m"], "v", means=["w"])
    assert out["m"].tolist() == ["b", "a"]  # order of appearance
    b = out.iloc[0]
    assert (b["mean"], b["R"], b["w_mean"]) == (pytest.approx(7 / 3), 3, pytest.approx(2.0))
    assert b["std"] == pytest.approx(np.std([1.0, 2.0, 4.0], ddof=1))
    assert out.iloc[1]["R"] == 1 and np.isnan(out.iloc[1]["std"])
    assert summarise(df, ["m"], "v", sort=True)["m"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="lacks column"):
        summarise(df, ["nope"], "v")


def test_binomial_tails_and_clopper_pearson_match_scipy():
    # the claims jobs compute these without scipy.stats (exact for the sign test's p = 1/2)
    from scipy import stats

    from crowdpriv.significance import binom_cdf, binom_sf, clopper_pearson_upper

    for n in (1, 5, 10, 37, 200):
        for p in (0.5, 0.05, 0.3, 0.9):
            for k in range(-1, n + 2):
                assert binom_cdf(k, n, p) == pytest.approx(stats.binom.cdf(k, n, p), abs=1e-13)
                assert binom_sf(k, n, p) == pytest.approx(stats.binom.sf(k, n, p), abs=1e-13)
        for k in range(n):
            assert clopper_pearson_upper(k, n, 0.05) == pytest.approx(
                stats.beta.ppf(0.95, k + 1, n - k), abs=1e-12)
        assert clopper_pearson_upper(n, n, 0.05) == 1.0
    assert binom_cdf(3, 10, 0.5) == 176 / 1024  # exact dyadic value


def test_sign_test_claims_do_not_import_scipy_stats():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from crowdpriv.significance import Significance, "
            "decide_cell; decide_cell('c', np.arange(1, 11), Significance(), alpha_fails=0.01); "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
