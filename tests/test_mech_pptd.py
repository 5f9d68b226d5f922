"""Exact tests of PPTD's perturbation and privacy law (scripts/crowdpriv/mechanisms/pptd.py,
Li et al., KDD 2018): Lemma 4.8's γ_s, Δ_s and probability, Theorem 4.10's map between ε and
λ2, Alg. 2's draws on hand-made inputs, the joint density of a user's records, the member's
settings, guarantee, audit samplers and declared laws."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from numpy.testing import assert_allclose, assert_array_equal
from scipy import integrate, special

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms._base import DataShape
from crowdpriv.mechanisms.pptd import (
    PPTD,
    SENSITIVITY_READINGS,
    Perturbation,
    PPTDSettings,
    _user_records,
    epsilon_from_lambda2,
    exact_record_epsilon,
    gamma_s,
    lambda2_from_epsilon,
    lemma48_probability,
    lemma48_sensitivity,
    perturb,
    pptd_apply,
    pptd_draws,
    user_log_density,
)

ROOT = Path(__file__).resolve().parents[1]
LN_1_09 = math.log(1.0 / 0.9)  # ln(1/(1-δ)) at δ = 0.1


# --- Lemma 4.8 ------------------------------------------------------------------------------


def test_gamma_s_is_b_sqrt_2_ln_1_over_1_minus_eta():
    """Lemma 4.8: γ_s = b sqrt(2 ln(1/(1-η)))."""
    assert gamma_s(2.0, 0.9) == pytest.approx(2.0 * math.sqrt(2.0 * math.log(10.0)), rel=1e-14)
    assert gamma_s(1.5, 0.5) == pytest.approx(1.5 * math.sqrt(2.0 * math.log(2.0)), rel=1e-14)


@pytest.mark.parametrize("func", [gamma_s, lemma48_probability])
@pytest.mark.parametrize("eta", [0.0, 1.0, 1.2])
def test_lemma48_eta_must_lie_in_the_open_unit_interval(func, eta):
    """η = Pr{σ_s ≤ M} in (0, 1): 0, 1 and above 1 are refused, naming eta."""
    with pytest.raises(ParameterError, match=r"eta must lie in \(0.0, 1.0\)") as e:
        func(2.0, eta)
    assert e.value.parameter == "eta" and e.value.value == eta


def test_lemma48_probability_is_eta_times_one_minus_the_gaussian_tail():
    """Lemma 4.8: the bound holds with probability η (1 − 2 e^{−b²/2} / b)."""
    assert lemma48_probability(2.0, 0.9) == pytest.approx(0.9 * (1.0 - math.exp(-2.0)),
                                                          rel=1e-14)
    assert lemma48_probability(3.0, 0.5) == pytest.approx(
        0.5 * (1.0 - 2.0 * math.exp(-4.5) / 3.0), rel=1e-14)


def test_lemma48_sensitivity_under_both_readings():
    """Δ_s = γ_s/λ1 (printed) or γ_s/√λ1 (corrected), elementwise over λ1."""
    g = 2.0 * math.sqrt(2.0 * math.log(10.0))
    assert lemma48_sensitivity(4.0, b=2.0, eta=0.9) == pytest.approx(g / 4.0, rel=1e-14)
    assert lemma48_sensitivity(4.0, b=2.0, eta=0.9, sensitivity="corrected") == pytest.approx(
        g / 2.0, rel=1e-14)
    assert_allclose(lemma48_sensitivity([1.0, 9.0], b=2.0, eta=0.9, sensitivity="corrected"),
                    [g, g / 3.0], rtol=1e-14)


def test_an_unknown_sensitivity_reading_is_refused_by_name():
    for func, args in [(lemma48_sensitivity, (2.0,)), (epsilon_from_lambda2, (2.0, 1.0)),
                       (lambda2_from_epsilon, (1.0, 2.0))]:
        with pytest.raises(ParameterError, match="sensitivity must be one of .*'bogus'") as e:
            func(*args, b=2.0, eta=0.9, sensitivity="bogus",
                 **({} if func is lemma48_sensitivity else {"delta": 0.1}))
        assert e.value.parameter == "sensitivity" and e.value.value == "bogus"
    assert SENSITIVITY_READINGS == ("printed", "corrected")


# --- Theorem 4.10: ε <-> λ2 -----------------------------------------------------------------


def test_epsilon_from_lambda2_closed_forms():
    """Theorem 4.10 with c = λ1/λ2: ε = γ_s² / (2 λ1 c ln(1/(1-δ))) (printed Δ_s), and
    ε = λ2 Δ_s² / (2 ln(1/(1-δ))) with Δ_s = γ_s/√λ1 (corrected), at λ1 = 4, λ2 = 0.5."""
    g2 = 8.0 * math.log(10.0)  # γ_s² at b = 2, η = 0.9
    lam1, lam2 = 4.0, 0.5
    c = lam1 / lam2
    printed = epsilon_from_lambda2(lam1, lam2, b=2.0, eta=0.9, delta=0.1)
    assert printed == pytest.approx(g2 / (2.0 * lam1 * c * LN_1_09), rel=1e-14)
    corrected = epsilon_from_lambda2(lam1, lam2, b=2.0, eta=0.9, delta=0.1,
                                     sensitivity="corrected")
    assert corrected == pytest.approx(lam2 * (g2 / lam1) / (2.0 * LN_1_09), rel=1e-14)
    # broadcast over λ2
    assert_allclose(epsilon_from_lambda2(lam1, [0.5, 1.0], b=2.0, eta=0.9, delta=0.1,
                                         sensitivity="corrected"),
                    [corrected, 2.0 * corrected], rtol=1e-14)


def test_lambda2_from_epsilon_closed_forms_and_inverse():
    """λ2 = 2 λ1² ε ln(1/(1-δ)) / γ_s² (printed) or 2 λ1 ε ln(1/(1-δ)) / γ_s² (corrected),
    the inverse of epsilon_from_lambda2."""
    g2 = 8.0 * math.log(10.0)
    lam1, eps = 3.0, 0.7
    printed = lambda2_from_epsilon(eps, lam1, b=2.0, eta=0.9, delta=0.1)
    assert printed == pytest.approx(2.0 * lam1**2 * eps * LN_1_09 / g2, rel=1e-14)
    corrected = lambda2_from_epsilon(eps, lam1, b=2.0, eta=0.9, delta=0.1,
                                     sensitivity="corrected")
    assert corrected == pytest.approx(2.0 * lam1 * eps * LN_1_09 / g2, rel=1e-14)
    for reading, lam2 in [("printed", printed), ("corrected", corrected)]:
        assert epsilon_from_lambda2(lam1, lam2, b=2.0, eta=0.9, delta=0.1,
                                    sensitivity=reading) == pytest.approx(eps, rel=1e-13)


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.2])
def test_theorem_410_delta_must_lie_in_the_open_unit_interval(delta):
    for call in (lambda: epsilon_from_lambda2(2.0, 1.0, b=2.0, eta=0.9, delta=delta),
                 lambda: lambda2_from_epsilon(1.0, 2.0, b=2.0, eta=0.9, delta=delta)):
        with pytest.raises(ParameterError, match=r"delta must lie in \(0.0, 1.0\)") as e:
            call()
        assert e.value.parameter == "delta"


def test_exact_record_epsilon_is_sensitivity_times_sqrt_2_lambda2():
    """The Laplace(1/√(2λ2)) marginal: ε = Δ_s √(2 λ2)."""
    assert exact_record_epsilon(2.0, 0.5) == pytest.approx(1.0, rel=1e-15)
    assert exact_record_epsilon(0.125, 3.0) == pytest.approx(1.5, rel=1e-15)


# --- Alg. 2 on hand-made draws --------------------------------------------------------------


def test_pptd_draws_one_exponential_per_user_and_one_normal_per_cell():
    rng = np.random.default_rng(3)
    e, z = pptd_draws(np.zeros((4, 3)), rng=rng)
    assert e.shape == (4, 1) and z.shape == (4, 3)
    # the generator's order: the users' exponentials first, then the cells' normals
    ref = np.random.default_rng(3)
    assert_array_equal(e, ref.standard_exponential(size=(4, 1)))
    assert_array_equal(z, ref.standard_normal(size=(4, 3)))
    e, z = pptd_draws(np.zeros((2, 4, 3)), rng=rng)
    assert e.shape == (2, 4, 1) and z.shape == (2, 4, 3)


@pytest.mark.parametrize("shape", [(), (5,)])
def test_pptd_draws_refuses_claims_without_users_and_objects(shape):
    with pytest.raises(ValueError, match=r"claims must have shape \(\.\.\., S, N\), got shape"):
        pptd_draws(np.zeros(shape), rng=np.random.default_rng(0))


def test_pptd_apply_by_hand():
    """δ_s² = E_s/λ2, x̂ = x + δ_s Z (Eq. 4); NaN stays NaN; an array λ2 goes in front."""
    x = np.array([[1.0, np.nan], [2.0, 3.0]])
    e = np.array([[2.0], [0.5]])
    z = np.array([[0.5, 1.0], [-2.0, 4.0]])
    out = pptd_apply(x, (e, z), 2.0)
    assert isinstance(out, Perturbation)
    assert_array_equal(out.variance, [1.0, 0.25])
    assert_array_equal(out.noise, [[0.5, np.nan], [-1.0, 2.0]])
    assert_array_equal(out.claims, [[1.5, np.nan], [1.0, 5.0]])
    many = pptd_apply(x, (e, z), [2.0, 0.5])
    assert many.claims.shape == (2, 2, 2) and many.variance.shape == (2, 2)
    assert_array_equal(many.variance[1], [4.0, 1.0])
    assert_array_equal(many.claims[1], [[2.0, np.nan], [0.0, 7.0]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.claims = x


# --- a user's joint density ------------------------------------------------------------------


@pytest.mark.parametrize("records", [1, 2, 3, 30])
@pytest.mark.parametrize("lam2", [0.7, 2.0])
def test_user_log_density_is_the_log_of_its_bessel_closed_form(records, lam2):
    """The density without its factor 2 λ2 (2π)^(−r/2): log[(A/(2λ2))^(s/2) K_s(√(2λ2 A))],
    s = 1 − r/2 (docstring), with scipy's unscaled K_s."""
    a = np.array([0.3, 2.5])
    s = 1.0 - records / 2.0
    want = 0.5 * s * np.log(a / (2.0 * lam2)) + np.log(special.kv(s, np.sqrt(2.0 * lam2 * a)))
    assert_allclose(user_log_density(a, records, lam2), want, rtol=1e-12)


def test_user_log_density_differences_match_the_mixture_integral():
    """Up to its constant, the log of ∫ λ2 e^(−λ2 y) (2πy)^(−r/2) e^(−A/(2y)) dy (Alg. 2's
    joint density of r records sharing y), by quadrature; one record: Laplace, −√(2λ2 A)."""
    lam2 = 1.3

    def mixture(a, r):
        return integrate.quad(lambda y: lam2 * math.exp(-lam2 * y) * (2 * math.pi * y) ** (-r / 2)
                              * math.exp(-a / (2 * y)), 0, np.inf)[0]

    for r in (2, 3):
        got = user_log_density(0.4, r, lam2) - user_log_density(1.9, r, lam2)
        assert got == pytest.approx(math.log(mixture(0.4, r) / mixture(1.9, r)), rel=1e-7)
    got = user_log_density(0.25, 1, lam2) - user_log_density(4.0, 1, lam2)
    assert got == pytest.approx(-math.sqrt(2 * lam2) * (0.5 - 2.0), rel=1e-12)


def test_user_log_density_floors_a_zero_sum_of_squares_at_1e_300():
    """Outputs equal to the inputs (A = 0): the density of r ≥ 2 records diverges; A is
    floored at 1e-300 (docstring) so the value is finite, that at A = 1e-300."""
    at_zero = user_log_density(0.0, 3, 2.0)
    assert np.isfinite(at_zero)
    assert at_zero == user_log_density(1e-300, 3, 2.0)
    assert at_zero != user_log_density(1.5e-300, 3, 2.0)


@pytest.mark.parametrize("moved", ["one", "all"])
def test_user_records_sampler_is_the_log_likelihood_ratio_of_all_records(moved):
    """The audit statistic: log f(out − 0) − log f(out − shift), out = Alg. 2 on the user's
    records (0 in D, D' moves the first or every record by Δ)."""
    lam2, sens, r, n = 0.8, 0.6, 3, 5
    shift = np.array([sens, 0.0, 0.0]) if moved == "one" else np.full(3, sens)
    sample = _user_records(lam2, sens, r, moved=moved)
    for which, x in [("D", np.zeros((n, r))), ("D'", np.tile(shift, (n, 1)))]:
        out = perturb(x, lam2, rng=np.random.default_rng(7)).claims
        want = (user_log_density((out**2).sum(axis=1), r, lam2)
                - user_log_density(((out - shift) ** 2).sum(axis=1), r, lam2))
        got = sample(np.random.default_rng(7), n, which)
        assert got.shape == (n,)
        assert_allclose(got, want, rtol=1e-12)


# --- the member --------------------------------------------------------------------------------


def test_settings_defaults_are_the_pipelines():
    """b = 2, η = 0.9, δ = 0.1 (docs/results.md, PPTD: "b = 2, η = 0.9, δ = 0.1 are ours";
    config.yaml pptd.privacy); corrected is the default reading (the release's warning)."""
    privacy = yaml.safe_load((ROOT / "config/config.yaml").read_text())["pptd"]["privacy"]
    d = PPTD().defaults()
    assert (d["b"], d["eta"], d["delta"]) == (privacy["b"], privacy["eta"], privacy["delta"])
    assert (d["b"], d["eta"], d["delta"]) == (2.0, 0.9, 0.1)
    assert d["sensitivity"] == "corrected" and d["lambda1"] is None


@pytest.mark.parametrize("key,value", [("lambda1", 0.0), ("lambda1", -1.0), ("b", 0.0),
                                       ("eta", 0.0), ("eta", 1.0), ("eta", 1.2),
                                       ("delta", 0.0), ("delta", 1.0), ("delta", 1.2),
                                       ("sensitivity", "bogus")])
def test_settings_refuse_values_outside_their_ranges(key, value):
    with pytest.raises(ParameterError) as e:
        PPTDSettings(**{key: value})
    assert e.value.parameter == key and e.value.value == value


def test_settings_are_frozen_and_lambda1_has_no_default():
    s = PPTDSettings()
    assert s.lambda1 is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.lambda1 = 2.0
    with pytest.raises(ParameterError, match="pptd needs --lambda1") as e:
        s.need_lambda1()
    assert e.value.parameter == "lambda1"
    assert PPTDSettings(lambda1=3).need_lambda1() == 3.0


def test_example_settings_use_the_synthetic_data_lambda1():
    """λ1 = 2, the synthetic data's (PPTD Sec. 5.1, example_settings' docstring)."""
    assert PPTD().example_settings().lambda1 == 2.0


def test_no_float_safe_sampler_and_nulls_are_not_filled():
    """The guarantee: no floating-point-safe sampler; a missing claim stays missing (NaN
    stays NaN, Perturbation), so fills_nulls is False."""
    m = PPTD()
    assert m.float_safe is False and m.fills_nulls is False
    out = m.release(np.array([[1.0, np.nan]]), 1.0, m.example_settings(),
                    rng=np.random.default_rng(0))
    assert np.isnan(out[0, 1]) and np.isfinite(out[0, 0])


def test_check_epsilon_refuses_an_epsilon_whose_lambda2_is_not_positive_and_finite():
    m = PPTD()
    s = m.example_settings()
    # λ2 = 2 λ1 ε ln(1/(1-δ)) / γ² ≈ 0.023 at ε = 1: accepted
    assert 0 < m.lambda2(s, 1.0) < 1
    m.check_epsilon(s, 1.0)
    for eps, lam2 in [(1e308, "inf"), (5e-324, "0")]:
        with pytest.raises(ParameterError, match=f"gives Theorem 4.10's λ2 = {lam2}") as e:
            m.check_epsilon(s, eps)
        assert e.value.parameter == "epsilon" and e.value.value == eps


@pytest.mark.filterwarnings("ignore:a seeded release", "ignore:released with --allow-unsafe")
def test_printed_reading_warns_at_the_callers_line():
    """--sensitivity printed understates ε: the release warns, pointing at the line that
    called crowdpriv.perturb (stacklevel past the API); corrected does not warn."""
    import warnings

    import crowdpriv

    answers = pd.DataFrame({"task": ["o1", "o2"], "worker": ["u1", "u1"], "value": [1.0, 2.0]})
    with pytest.warns(UserWarning, match="--sensitivity printed") as rec:
        crowdpriv.perturb(answers, "pptd", epsilon=1.0, seed=1, audit=False, allow_unsafe=True,
                          lambda1=2.0, sensitivity="printed")
    mine = [w for w in rec if "--sensitivity printed" in str(w.message)]
    assert mine and all(w.filename == __file__ for w in mine)
    m = PPTD()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="--sensitivity printed")
        m.release(np.zeros((1, 2)), 1.0, m.example_settings(), rng=np.random.default_rng(0))


def test_guarantee_is_finite_only_for_a_user_with_one_record():
    m = PPTD()
    s = m.example_settings()
    lam2 = m.lambda2(s, 1.0)
    one = m.sensitivity(s) * math.sqrt(2.0 * lam2)
    assert m.record_epsilon(s, 1.0) == pytest.approx(one, rel=1e-14)
    g1 = m.guarantee(s, DataShape(3, 4, 1), 1.0)
    assert g1.ideal_record_epsilon == pytest.approx(one, rel=1e-14)
    g2 = m.guarantee(s, DataShape(3, 4, 2), 1.0)
    assert g2.ideal_record_epsilon == math.inf
    for g in (g1, g2):
        assert g.record_epsilon == math.inf and g.worker_epsilon == math.inf
        assert g.record_delta == 0.0 and g.worker_delta == 0.0
        assert g.float_safe is False


def _audit():
    m = PPTD()
    s = m.example_settings()
    return m, s, m.lambda2(s, 1.0), m.audit_cases(s, 1.0)


def test_audit_user_has_the_synthetic_users_30_records():
    """The paper's synthetic users claim on all 30 objects (PPTD Sec. 5.1)."""
    assert PPTD.AUDIT_RECORDS == 30
    _, _, _, cases = _audit()
    assert [c.claimed for c in cases] == [True] * 5 + [False]
    assert "a user with 30" in cases[1].neighbours and "29 other records" in cases[4].neighbours


def test_audit_one_record_samplers_are_alg2_on_0_and_on_delta_s():
    m, s, lam2, cases = _audit()
    for case, reading in [(cases[0], "printed"), (cases[2], "corrected")]:
        sens = float(lemma48_sensitivity(2.0, b=2.0, eta=0.9, sensitivity=reading))
        for which, x in [("D", 0.0), ("D'", sens)]:
            want = perturb(np.full((6, 1), x), lam2, rng=np.random.default_rng(5)).claims[:, 0]
            assert_array_equal(case.sample(np.random.default_rng(5), 6, which), want)


def test_audit_known_others_standardises_the_target_by_the_others_noise():
    """The adversary knows the other 29 records (0): out_0 / sqrt(mean of their squares);
    with Alg. 2's draws E (one), Z (30 per user): (x_0 + δ Z_0) / (δ sqrt(mean Z_k²))."""
    m, s, lam2, cases = _audit()
    sens = float(lemma48_sensitivity(2.0, b=2.0, eta=0.9))  # printed
    for which, x0 in [("D", 0.0), ("D'", sens)]:
        rng = np.random.default_rng(9)
        e = rng.standard_exponential(size=(5, 1))
        z = rng.standard_normal(size=(5, 30))
        sd = np.sqrt(e[:, 0] / lam2)
        want = (x0 + sd * z[:, 0]) / (sd * np.sqrt((z[:, 1:] ** 2).mean(axis=1)))
        assert_allclose(cases[4].sample(np.random.default_rng(9), 5, which), want, rtol=1e-12)


def test_declared_laws_and_their_samplers():
    """Laplace(1/√(2λ2)) noise of one record, Exp(λ2) variances, Cauchy ratio of a user's two
    noises; the samplers from the generator's E ~ Exp(1) per user and Z ~ N(0, 1) per cell."""
    m = PPTD()
    s = m.example_settings()
    lam2 = m.lambda2(s, 1.0)
    noise, variance, shared = m.law(s, 1.0)
    scale = 1.0 / math.sqrt(2.0 * lam2)
    assert noise.cdf(-3.0) == pytest.approx(0.5 * math.exp(-3.0 / scale), rel=1e-12)
    assert noise.cdf(2.0) == pytest.approx(1.0 - 0.5 * math.exp(-2.0 / scale), rel=1e-12)
    assert variance.cdf(10.0) == pytest.approx(1.0 - math.exp(-lam2 * 10.0), rel=1e-12)
    assert shared.cdf(1.0) == pytest.approx(0.75, rel=1e-12)

    def standard(n, cells):
        rng = np.random.default_rng(11)
        return rng.standard_exponential(size=(n, 1)), rng.standard_normal(size=(n, cells))

    e, z = standard(6, 1)
    assert_allclose(noise.sample(np.random.default_rng(11), 6),
                    np.sqrt(e[:, 0] / lam2) * z[:, 0], rtol=1e-12)
    assert_allclose(variance.sample(np.random.default_rng(11), 6), e[:, 0] / lam2, rtol=1e-12)
    e, z = standard(6, 2)
    assert_allclose(shared.sample(np.random.default_rng(11), 6), z[:, 0] / z[:, 1], rtol=1e-12)
