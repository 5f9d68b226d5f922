"""PPTD's per-record noise level by independent snapped Laplace noise
(crowdpriv.mechanisms.pptd_laplace), exactly: σ = 1/√(2λ2) with λ2 from PPTD Theorem 4.10 and
Δ_s from Lemma 4.8 written out here, the sampler's arithmetic on chosen Laplace draws (Mironov's
snapping mechanism, CCS 2012) worked by hand, the clamp's default and limit, ε* per record and
the declared laws against masses computed here (issue 24)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats

from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms.pptd_laplace import (
    DEFAULT_BOUND_SCALES,
    PPTDLaplace,
    PPTDLaplaceSettings,
    pptd_laplace_release,
)

MECH = PPTDLaplace()
LN10 = math.log(10.0)  # ln(1/(1 − η)) at Lemma 4.8's η = 0.9


class _Draws:
    """A generator stand-in: the standard Laplace draws the snapping sampler asks for
    (:func:`crowdpriv.release.standard_laplace` takes them from ``standard_laplace``), ``draw``
    broadcast to the requested shape (a row gives each column its own draw)."""

    def __init__(self, draw):
        self.draw = np.asarray(draw, dtype=np.float64)

    def standard_laplace(self, size):
        return np.broadcast_to(self.draw, size).copy()


def _gamma(b=2.0):
    return b * math.sqrt(2 * LN10)  # Lemma 4.8: γ_s = b √(2 ln(1/(1 − η)))


def _sensitivity(lam1, reading):
    return _gamma() / lam1 if reading == "printed" else _gamma() / math.sqrt(lam1)


def _lambda2(eps, lam1, reading, delta=0.1):
    """Theorem 4.10: λ2 = 2 λ1² ε ln(1/(1 − δ)) / γ_s² (printed Δ_s), λ1 for λ1² (corrected)."""
    power = 2 if reading == "printed" else 1
    return 2 * lam1**power * eps * math.log(1 / (1 - delta)) / _gamma() ** 2


def _sigma(eps, lam1, reading):
    return 1 / math.sqrt(2 * _lambda2(eps, lam1, reading))


def _grid(sigma):
    return 2.0 ** math.ceil(math.log2(sigma))


def test_settings_defaults_and_errors():
    """The defaults: centre 0, clamp None (then 300 σ); λ1 = 2 in the example, the synthetic
    data's λ1 of PPTD Sec. 5.1. A non-finite centre and a bound ≤ 0 are refused by name."""
    s = MECH.settings(lambda1=3.0)
    assert (s.centre, s.bound) == (0.0, None)
    assert MECH.example_settings().lambda1 == 2.0
    with pytest.raises(ValueError, match="centre must be finite, got inf") as err:
        PPTDLaplaceSettings(lambda1=2.0, centre=math.inf)
    assert err.value.parameter == "centre"
    with pytest.raises(ValueError, match="bound must be a finite number > 0, got -1.0"):
        PPTDLaplaceSettings(lambda1=2.0, bound=-1.0)
    assert PPTDLaplaceSettings(lambda1=2.0, bound=7.0).bound == 7.0


@pytest.mark.parametrize("eps, lam1, reading", [(1.0, 2.0, "corrected"), (0.3, 4.0, "printed")])
def test_scale_sensitivity_and_default_bound_are_theorem_4_10_and_lemma_4_8(eps, lam1, reading):
    s = MECH.settings(lambda1=lam1, sensitivity=reading)
    assert MECH.lambda2(s, eps) == pytest.approx(_lambda2(eps, lam1, reading), rel=1e-14)
    sigma = _sigma(eps, lam1, reading)
    assert MECH.scale(s, eps) == pytest.approx(sigma, rel=1e-14)
    assert MECH.sensitivity(s) == pytest.approx(_sensitivity(lam1, reading), rel=1e-14)
    # the default clamp: 300 noise scales (the module's DEFAULT_BOUND_SCALES)
    assert DEFAULT_BOUND_SCALES == 300.0
    assert MECH.bound(s, eps) == pytest.approx(300 * sigma, rel=1e-14)
    given = MECH.settings(lambda1=lam1, sensitivity=reading, bound=5 * sigma)
    assert MECH.bound(given, eps) == 5 * sigma


def test_a_bound_beyond_the_noises_reach_is_refused_with_the_limit():
    """The sampler's noise reaches 1022 ln 2 ≈ 708.4 σ; 2B + Λ must stay within it: at most
    about 354 σ, (708.4 σ − Λ)/2 ≈ 1651.8 at this ε (λ1 = 2, corrected, ε = 1: σ ≈ 4.675,
    Λ = 8)."""
    eps = 1.0
    sigma = _sigma(eps, 2.0, "corrected")
    limit = (1022 * math.log(2) * sigma - _grid(sigma)) / 2
    s = MECH.settings(lambda1=2.0, bound=400 * sigma)
    with pytest.raises(ValueError, match=r"at most about 354 noise scales \((\d+\.\d+) at "
                                         r"ε = 1\)") as err:
        MECH.bound(s, eps)
    shown = re.search(r"\((\d+\.\d+) at", str(err.value)).group(1)
    assert float(shown) == pytest.approx(limit, rel=1e-5)
    assert err.value.parameter == "bound" and err.value.value == 400 * sigma
    assert MECH.bound(MECH.settings(lambda1=2.0, bound=0.99 * limit), eps) == 0.99 * limit


def test_release_is_the_snapping_mechanism_worked_by_hand():
    """σ = 0.75, Λ = 1, centre 10, B = 3: a draw L adds 0.75 L to the centred claim, rounds
    to an integer, clamps to ±3, adds 10 back; a missing claim stays missing."""
    claims = np.array([[10.0, 11.2, 8.0, np.nan, 20.0]])
    out = pptd_laplace_release(claims, 0.75, centre=10.0, bound=3.0, rng=_Draws(1.0))
    # centred: 0, 1.2, −2, nan, 10 → clamp 0, 1.2, −2, 3 → + 0.75 → round 1, 2, −1, 4 → clamp
    np.testing.assert_array_equal(out, [[11.0, 12.0, 9.0, np.nan, 13.0]])
    out = pptd_laplace_release(claims, 0.75, centre=10.0, bound=3.0, rng=_Draws(-1e9))
    np.testing.assert_array_equal(out, [[7.0, 7.0, 7.0, np.nan, 7.0]])


def test_release_method_uses_the_settings_scale_centre_and_bound():
    """λ1 = 2, corrected, ε = 1: σ ≈ 4.675, Λ = 8; centre 5, B = 20; a draw L = 1 adds σ:
    centred 0, 0.6, −5, 35 → clamp 0, 0.6, −5, 20 → + σ, / 8 ≈ 0.58, 0.66, −0.04, 3.08 →
    round 1, 1, 0, 3 → times 8, clamp ±20 → 8, 8, 0, 20 → plus 5."""
    s = MECH.settings(lambda1=2.0, centre=5.0, bound=20.0)
    out = MECH.release(np.array([[5.0, 5.6, 0.0, 40.0]]), 1.0, s, rng=_Draws(1.0))
    np.testing.assert_array_equal(out, [[13.0, 13.0, 5.0, 25.0]])
    assert MECH.fills_nulls is False
    assert np.isnan(MECH.release(np.array([[np.nan]]), 1.0, s, rng=_Draws(1.0))).all()


@pytest.mark.parametrize("reading", ["corrected", "printed"])
def test_record_epsilon_is_theorem_1_with_the_centring_slack(reading):
    """ε* = (Δ_s + ς)/σ + 2^−49 B/σ, ς = 2^−52 B for a centre ≠ 0, else 0. At a
    tiny ε, Δ_s/σ = 2√(ε ln(1/(1 − δ))) is small, so ς shows at 1e-12."""
    eps, lam1 = 1e-6, 3.0
    sigma, sens = _sigma(eps, lam1, reading), _sensitivity(lam1, reading)
    s = MECH.settings(lambda1=lam1, sensitivity=reading)
    bound = 300 * sigma
    assert MECH.record_epsilon(s, eps) == pytest.approx(sens / sigma + 2.0**-49 * bound / sigma,
                                                        rel=1e-12)
    centred = MECH.settings(lambda1=lam1, sensitivity=reading, centre=-2.0)
    slack = 2.0**-52 * bound
    want = (sens + slack) / sigma + 2.0**-49 * bound / sigma
    assert MECH.record_epsilon(centred, eps) == pytest.approx(want, rel=1e-12)
    assert MECH.record_epsilon(centred, eps) > MECH.record_epsilon(s, eps) * (1 + 1e-11)


def test_guarantee_claim_and_ledger():
    """Per record ε* at δ = 0 (Mironov: pure ε), the ideal Δ_s/σ, basic composition over a
    user's records, float-safe; the claim is PPTD's (ε, δ)."""
    s = MECH.settings(lambda1=2.0)
    eps = 1.0
    sigma, sens = _sigma(eps, 2.0, "corrected"), _sensitivity(2.0, "corrected")
    g = MECH.guarantee(s, DataShape(4, 9, 3), eps)
    record = MECH.record_epsilon(s, eps)
    assert (g.record_epsilon, g.record_delta, g.worker_delta) == (record, 0.0, 0.0)
    assert g.worker_epsilon == pytest.approx(3 * record)
    assert g.ideal_record_epsilon == pytest.approx(sens / sigma, rel=1e-14)
    assert g.float_safe is True and MECH.float_safe is True
    claimed = MECH.claimed(s, eps)
    assert (claimed.epsilon, claimed.delta) == (1.0, 0.1)
    extra = MECH.ledger_extra(s, eps)
    assert extra["parameters"]["snapping_grid"] == _grid(sigma) == 8.0
    assert extra["parameters"]["clamp_bound"] == pytest.approx(300 * sigma, rel=1e-14)
    assert extra["spent"]["exact_epsilon_per_record"] == record


def test_audit_cases_are_two_records_delta_s_apart_under_each_reading():
    """One case per reading of Lemma 4.8: D is a claim at the centre, D′ at the centre + Δ_s.
    A draw L with σL = Λ/2 − Δ_s/2 rounds D's centred value down to 0 and D′'s up to Λ; with
    σL = Λ/2 − 1/4, D still rounds to 0; with σL = Λ/2 − Δ_s − 1/4, D′ rounds to 0 too."""
    s = MECH.settings(lambda1=2.0, centre=1.5)
    eps = 1.0
    cases = MECH.audit_cases(s, eps)
    assert len(cases) == 2
    for case, reading in zip(cases, ("printed", "corrected")):
        read = MECH.settings(lambda1=2.0, centre=1.5, sensitivity=reading)
        assert (case.claimed_epsilon, case.claimed_delta) == (1.0, 0.1)
        assert case.exact_epsilon == MECH.record_epsilon(read, eps) and case.float_safe is True
        sigma, sens = _sigma(eps, 2.0, reading), _sensitivity(2.0, reading)
        grid = _grid(sigma)
        draw = (grid / 2 - sens / 2) / sigma
        np.testing.assert_array_equal(case.sample(_Draws(draw), 3, "D"), [1.5] * 3)
        np.testing.assert_array_equal(case.sample(_Draws(draw), 3, "D'"), [1.5 + grid] * 3)
        below = (grid / 2 - 0.25) / sigma
        np.testing.assert_array_equal(case.sample(_Draws(below), 3, "D"), [1.5] * 3)
        below = (grid / 2 - sens - 0.25) / sigma
        np.testing.assert_array_equal(case.sample(_Draws(below), 3, "D'"), [1.5] * 3)


def _one_record_law(sigma, top=3):
    """P(grid index j) of round(Lap(σ)/Λ) for j = −top .. top, the tails merged into ±top."""
    grid = _grid(sigma)
    lap = stats.laplace(scale=sigma)
    inner = np.arange(-top + 1, top)
    return np.concatenate([[lap.cdf((-top + 0.5) * grid)],
                           lap.cdf((inner + 0.5) * grid) - lap.cdf((inner - 0.5) * grid),
                           [lap.sf((top - 0.5) * grid)]])


@pytest.mark.parametrize("eps, reading", [(1.0, "corrected"), (4.0, "printed")])
def test_declared_laws_are_the_rounding_cells_of_lap_sigma(eps, reading):
    """One record: the grid index of the snapped noise, −3 .. 3 (tails merged); two records of
    one user: the product law of their index magnitudes 0, 1, ≥ 2 (statistic 3|a| + |b|)."""
    s = MECH.settings(lambda1=2.0, sensitivity=reading, centre=-4.0)
    one, pair = MECH.law(s, eps)
    law = _one_record_law(_sigma(eps, 2.0, reading))
    np.testing.assert_array_equal(one.support, np.arange(-3, 4))
    np.testing.assert_allclose(one.probabilities, law, rtol=1e-12)
    magnitude = np.array([law[3], law[2] + law[4], law[:2].sum() + law[5:].sum()])
    np.testing.assert_array_equal(pair.support, np.arange(9))
    np.testing.assert_allclose(pair.probabilities, np.outer(magnitude, magnitude).ravel(),
                               rtol=1e-12)


def test_law_samples_are_grid_indices_of_the_release():
    """λ1 = 2, corrected, ε = 1: σ ≈ 4.675, Λ = 8, centre −4. Draws L give index
    round(σL/8) clipped to ±3; a pair (L1, L2) gives 3 min(|j1|, 2) + min(|j2|, 2)."""
    s = MECH.settings(lambda1=2.0, centre=-4.0)
    sigma = _sigma(1.0, 2.0, "corrected")
    one, pair = MECH.law(s, 1.0)
    for draw, index in ((0.0, 0), (8.0 / sigma, 1), (-16.4 / sigma, -2), (1e6, 3), (-1e6, -3)):
        np.testing.assert_array_equal(one.sample(_Draws(draw), 2), [index] * 2)
    np.testing.assert_array_equal(pair.sample(_Draws([8.0 / sigma, -1e6]), 2), [3 + 2] * 2)
    np.testing.assert_array_equal(pair.sample(_Draws([-1e6, 0.0]), 2), [6 + 0] * 2)
