"""LP (crowdpriv.mechanisms.lp, LDP-sparse Eq. 6-7 and Theorem 1), exactly: the NULL fill and
the Lap(|Γ|/ε) noise on chosen exponential draws worked by hand, the exact per-cell ε in closed
form, the settings' and draws' errors, the audit's neighbours and the declared law against
formulas written here (issue 24)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms.lp import (
    LP,
    LPSettings,
    lp_apply,
    lp_cell_epsilon,
    lp_draws,
    lp_null_exact_epsilon,
    lp_perturb,
)

MECH = LP()
E = math.e


class _Draws:
    """A generator stand-in for LP's sampler: :func:`crowdpriv.mechanisms._codes.laplace_noise`
    draws E1 then E2 (``standard_exponential``), here ``e1`` and ``e2`` in every cell, so the
    standard noise is e1 − e2 exactly; the uniform NULL fill (``integers``) comes from a real
    generator and its calls are recorded."""

    def __init__(self, e1=0.0, e2=0.0, seed=0):
        self.values, self.calls = (e1, e2), 0
        self.rng = np.random.default_rng(seed)
        self.integer_calls, self.integer_types = [], []

    def standard_exponential(self, size=None, dtype=np.float64, out=None):
        value = self.values[min(self.calls, 1)]
        self.calls += 1
        if out is not None:
            out[...] = value
            return out
        return np.full(size, value, dtype=dtype)

    def integers(self, low, high=None, size=None, dtype=np.int64):
        self.integer_calls.append((low, high))
        self.integer_types.append(np.dtype(dtype))
        return self.rng.integers(low, high, size=size, dtype=dtype)


# --- settings and errors -----------------------------------------------------------------


def test_settings_default_to_a_uniform_fill_and_name_a_bad_one():
    """v uniform in Γ is the paper's experimental choice (LDP-sparse Sec. VI); a constant must
    be a number ≥ 0 (a label of Γ), any other string is refused by name."""
    assert LPSettings().null_fill == "uniform"
    assert LPSettings(null_fill=0).null_fill == 0
    with pytest.raises(ValueError, match="null_fill must be 'uniform' or a number in Γ, got "
                                         "'zero'") as err:
        LPSettings(null_fill="zero")
    assert (err.value.parameter, err.value.value) == ("null_fill", "zero")
    with pytest.raises(ValueError, match=r"null_fill must lie in \[0, inf\), got -1"):
        LPSettings(null_fill=-1)


def test_lp_perturb_checks_the_answers_unless_told_they_are_checked():
    with pytest.raises(ValueError, match=r"in \[0, 4\] \(domain_size=5\); found .*7\.0"):
        lp_perturb(np.array([[7.0]]), 1.0, rng=_Draws(), domain_size=5)
    out = lp_perturb(np.array([[3.0]]), 1.0, rng=_Draws(), domain_size=5, checked=True)
    np.testing.assert_array_equal(out, [[3.0]])


def test_lp_draws_refuses_a_fill_outside_gamma():
    """A constant fill is a label of Γ = {0, ..., 4}: 0 and 4 are accepted, 5 and −0.5 not."""
    codes = np.array([[5, 1]], dtype=np.int8)
    for fill in (0, 4):
        filled, _ = lp_draws(codes, rng=_Draws(), domain_size=5, null_fill=fill)
        np.testing.assert_array_equal(filled, [[fill, 1.0]])
    for fill in (5, -0.5):
        with pytest.raises(ValueError, match=r"null_fill must lie in \[0, 4\]"):
            lp_draws(codes, rng=_Draws(), domain_size=5, null_fill=fill)
    with pytest.raises(ValueError, match="null_fill must be 'uniform' or a number in Γ, got "
                                         "'zero'"):
        lp_draws(codes, rng=_Draws(), domain_size=5, null_fill="zero")


# --- the sampler, worked by hand -----------------------------------------------------------


def test_draws_are_the_fill_and_standard_laplace_noise():
    """Eq. 6: NULL (code |Γ|) → v, an answer kept; the noise is E1 − E2 at scale 1
    (2 − 0.5 = 1.5), scaled only by :func:`lp_apply`: + (|Γ|/ε)·1.5 = 3.75 at |Γ| = 5, ε = 2."""
    codes = np.array([[0, 5, 3, 5, 4]], dtype=np.int8)
    filled, noise = lp_draws(codes, rng=_Draws(2.0, 0.5), domain_size=5, null_fill=2)
    np.testing.assert_array_equal(filled, [[0.0, 2.0, 3.0, 2.0, 4.0]])
    np.testing.assert_array_equal(noise, [[1.5] * 5])
    out = lp_apply((filled, noise), 2.0, domain_size=5)
    np.testing.assert_array_equal(out, [[3.75, 5.75, 6.75, 5.75, 7.75]])
    assert out.dtype == np.float32


def test_uniform_fill_replaces_only_nulls_with_every_label_of_gamma():
    """Eq. 6 with v uniform in Γ (Sec. VI): the generator's integers(0, |Γ|) per cell; over
    3000 NULLs each label appears about a fifth of the time (5 standard deviations); answered
    cells keep their label."""
    k, n = 5, 3000
    codes = np.full((1, n + 5), k, dtype=np.int8)
    codes[0, :5] = [4, 3, 2, 1, 0]
    rng = _Draws()
    filled, noise = lp_draws(codes, rng=rng, domain_size=k)
    assert rng.integer_calls == [(0, k)]
    np.testing.assert_array_equal(filled[0, :5], [4, 3, 2, 1, 0])
    labels, counts = np.unique(filled[0, 5:], return_counts=True)
    np.testing.assert_array_equal(labels, np.arange(k))
    assert np.all(np.abs(counts - n / k) < 5 * math.sqrt(n * (1 / k) * (1 - 1 / k)))
    np.testing.assert_array_equal(noise, np.zeros_like(noise))


def test_uniform_fill_is_drawn_in_the_smallest_integer_type_holding_gamma():
    """lp_draws draws the fill in the smallest integer type holding Γ (a quarter of the bytes
    and time of int64 draws): uint8 up to |Γ| = 256 (labels 0..255), uint16 beyond."""
    for k, want in ((5, np.uint8), (255, np.uint8), (256, np.uint8), (257, np.uint16)):
        rng = _Draws()
        filled, _ = lp_draws(np.array([[k, 0]], dtype=np.int16), rng=rng, domain_size=k)
        assert rng.integer_types == [np.dtype(want)], k
        assert 0 <= filled[0, 0] < k and filled[0, 1] == 0


def test_perturb_writes_into_given_arrays():
    codes = np.array([[1, 5]], dtype=np.int8)
    out = (np.full((1, 2), -9.0, np.float32), np.full((1, 2), -9.0, np.float32))
    filled, noise = lp_draws(codes, rng=_Draws(1.0, 0.25), domain_size=5, null_fill=3, out=out)
    assert filled is out[0] and noise is out[1]
    np.testing.assert_array_equal(out[0], [[1.0, 3.0]])
    np.testing.assert_array_equal(out[1], [[0.75, 0.75]])


# --- exact ε ------------------------------------------------------------------------------


def test_cell_epsilon_and_null_epsilon_closed_forms():
    """Between answers 0 and |Γ| − 1: (|Γ| − 1)ε/|Γ| (4·2/5 = 1.6). NULL with a constant v
    against answer a: |v − a| ε/|Γ|. With a uniform v and b = |Γ|/ε, the ratio's limits are
    mean_v e^(±(v − a)/b): at |Γ| = 2, ε = 2 (b = 1) ln((1 + e)/2) for either answer; at |Γ| = 3,
    ε = 3 (b = 1) ln((1 + e + e²)/3) at a = 0 and a = 2, ln((1 + e + 1/e)/3) at a = 1."""
    assert lp_cell_epsilon(2.0, 5) == pytest.approx(1.6, rel=1e-15)
    assert lp_null_exact_epsilon(2.0, 5, 4, null_fill=0) == pytest.approx(1.6, rel=1e-15)
    assert lp_null_exact_epsilon(2.0, 5, 1, null_fill=3.0) == pytest.approx(0.8, rel=1e-15)
    for a in (0, 1):
        assert lp_null_exact_epsilon(2.0, 2, a) == pytest.approx(math.log((1 + E) / 2),
                                                                 rel=1e-14)
    for a in (0, 2):
        assert lp_null_exact_epsilon(3.0, 3, a) == pytest.approx(
            math.log((1 + E + E * E) / 3), rel=1e-14)
    assert lp_null_exact_epsilon(3.0, 3, 1) == pytest.approx(math.log((1 + E + 1 / E) / 3),
                                                             rel=1e-14)


def test_noise_variance_claim_and_guarantee():
    """Var Lap(b) = 2b², b = |Γ|/ε (12.5 at |Γ| = 5, ε = 2); the claim is Theorem 1's pure ε;
    the float32 sampler leaks (ε = ∞ as run, Mironov 2012), its exact-arithmetic ε is the
    worst cell neighbour."""
    s = MECH.settings()
    assert MECH.noise_variance(s, 2.0, domain_size=5) == pytest.approx(12.5, rel=1e-15)
    claimed = MECH.claimed(s, 2.0, domain_size=5)
    assert (claimed.epsilon, claimed.delta) == (2.0, 0.0)
    g = MECH.guarantee(s, DataShape(3, 4, 4), 2.0, domain_size=2)
    assert (g.record_delta, g.worker_delta) == (0.0, 0.0)
    assert math.isinf(g.record_epsilon) and math.isinf(g.worker_epsilon)
    assert g.float_safe is False and MECH.float_safe is False
    # |Γ| = 2, ε = 2: the answered pair's (2 − 1)·2/2 = 1 exceeds the NULL's ln((1 + e)/2)
    assert g.ideal_record_epsilon == pytest.approx(1.0, rel=1e-15)
    assert "over the worker's 4 released cells (NULLs filled): 4 in exact" in g.worker_rule
    const = MECH.guarantee(MECH.settings(null_fill=0), DataShape(3, 4, 4), 2.0, domain_size=5)
    assert const.ideal_record_epsilon == pytest.approx(1.6, rel=1e-15)


# --- the audit's neighbours ----------------------------------------------------------------


def test_audit_cases_sample_the_cell_neighbours_and_a_whole_vector():
    """Zero noise (E1 = E2 = 0): a cell answered 0 (D) against |Γ| − 1 (D′); a NULL (D: its
    uniform fill) against 0 (D′); a whole vector all 0 against all |Γ| − 1, by its mean and by
    the log likelihood ratio Σ (|o − (|Γ| − 1)| − |o|)/b = ±cells·(|Γ| − 1)ε/|Γ|."""
    k, eps = 5, 2.0
    s = MECH.settings()
    cases = MECH.audit_cases(s, eps, domain_size=k, shape=DataShape(3, 7, 7))
    answered, null, mean, ratio = cases
    for case in cases:
        assert (case.claimed_epsilon, case.claimed_delta) == (eps, 0.0)
        assert case.family == LP.CLAIM
    assert answered.claimed and null.claimed and not mean.claimed and not ratio.claimed
    assert answered.exact_epsilon == pytest.approx(1.6, rel=1e-15)
    assert null.exact_epsilon == lp_null_exact_epsilon(eps, k, 0)
    assert mean.exact_epsilon == ratio.exact_epsilon == pytest.approx(7 * 1.6, rel=1e-15)
    assert (mean.statistic, ratio.statistic) == ("mean output", "log likelihood ratio")
    assert "whole vector of 7 cells" in mean.neighbours
    assert mean.composition == "7 cells × 1.6 = 11.2"

    def run(case, which, n=4):
        return case.sample(_Draws(), n, which)

    np.testing.assert_array_equal(run(answered, "D"), [0.0] * 4)
    np.testing.assert_array_equal(run(answered, "D'"), [4.0] * 4)
    np.testing.assert_array_equal(run(null, "D'"), [0.0] * 4)
    fills = run(null, "D", 500)
    assert fills.shape == (500,) and set(fills) == {0.0, 1.0, 2.0, 3.0, 4.0}
    np.testing.assert_array_equal(run(mean, "D"), [0.0] * 4)
    np.testing.assert_array_equal(run(mean, "D'"), [4.0] * 4)
    np.testing.assert_allclose(run(ratio, "D"), [11.2] * 4, rtol=1e-12)
    np.testing.assert_allclose(run(ratio, "D'"), [-11.2] * 4, rtol=1e-12)


def test_audit_cases_whole_vector_length():
    """A worker's vector is his tasks, at most 2000 cells (the audit's cost), 20 without a
    shape (audit_cases' docstring)."""
    s = MECH.settings()
    for shape, cells in ((None, 20), (DataShape(2, 5000, 10), 2000), (DataShape(2, 9, 9), 9)):
        mean = MECH.audit_cases(s, 1.0, domain_size=5, shape=shape)[2]
        assert f"whole vector of {cells} cells" in mean.neighbours
        assert mean.sample(_Draws(), 3, "D").shape == (3,)


# --- the declared law ----------------------------------------------------------------------


@pytest.mark.parametrize("fill", ["uniform", 1])
def test_law_samples_and_null_cdf(fill):
    """Zero noise: the answered cell's output − answer is 0; a NULL's output is its fill.
    The NULL's cdf is the fill's mixture of Lap(v, |Γ|/ε) (uniform v: the mean over Γ)."""
    k, eps = 4, 2.0
    answered, null = MECH.law(MECH.settings(null_fill=fill), eps, domain_size=k)
    np.testing.assert_array_equal(answered.sample(_Draws(), 5), [0.0] * 5)
    # E1 − E2 = 0.3 − 0.25 at b = 2 on the answer |Γ| − 1 = 3, less 3, in float64
    np.testing.assert_array_equal(answered.sample(_Draws(0.3, 0.25), 2),
                                  [(3.0 + 2.0 * (0.3 - 0.25)) - 3.0] * 2)
    out = null.sample(_Draws(), 400)
    if fill == "uniform":
        assert out.shape == (400,) and set(out) == {0.0, 1.0, 2.0, 3.0}
    else:
        np.testing.assert_array_equal(out, [1.0] * 400)
    x = np.array([-3.0, 0.0, 0.5, 1.0, 2.7, 9.0])
    b = k / eps

    def lap_cdf(x, loc):
        return np.where(x < loc, 0.5 * np.exp((x - loc) / b), 1 - 0.5 * np.exp((loc - x) / b))

    want = (np.mean([lap_cdf(x, v) for v in range(k)], axis=0) if fill == "uniform"
            else lap_cdf(x, 1.0))
    np.testing.assert_allclose(null.cdf(x), want, rtol=1e-12)
    np.testing.assert_allclose(answered.cdf(x), stats.laplace(scale=b).cdf(x), rtol=1e-12)
