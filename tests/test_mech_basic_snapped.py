"""Exact tests of Basic released by snapping (scripts/crowdpriv/mechanisms/basic_snapped.py):
the module docstring's closed forms (B = R/2 + 10R/ε, Λ the smallest power of two ≥ R/ε,
ε* = ε + 2^−49 (ε/2 + 10)), the clamp to the public range, its ledger and audit case, against
the snapping arithmetic of crowdpriv.release on the same draws."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from crowdpriv.mechanisms import DataShape, get
from crowdpriv.mechanisms.contract import ALPHA, law_pvalue
from crowdpriv.release import snap, standard_laplace

R, C = 10.0, 9.0  # the member's example settings: claims 4 .. 14


@pytest.fixture()
def mech():
    return get("basic-snapped")


def _snapped(seed, inside, eps, r=R, centre=C, n=6):
    """The snapping mechanism on the sampler's draws: centre + snap(clamped claim + Lap(R/ε))."""
    scale = r / eps
    noise = standard_laplace(np.random.default_rng(seed), (n, 1)) * scale
    return centre + snap(np.full((n, 1), inside), noise, scale, bound=r / 2 + 10 * scale)


def test_example_settings_cover_the_audit_object(mech):
    """example_settings' docstring: R = 10 around 9, i.e. claims 4 .. 14 (the audit's object
    lies within 4.1 .. 6.3)."""
    s = mech.example_settings()
    assert (s.value_range, s.centre) == (10.0, 9.0)


def test_the_default_centre_is_zero_and_claims_are_clamped_to_half_the_range(mech):
    """Without a centre (the settings' default, 0: the claims' units are already centred) the
    public range is [−R/2, R/2] (the module docstring's clamp); a claim far outside is released
    as the edge of the range, snapped; no claim stays NaN."""
    settings = mech.settings(value_range=2.0)
    assert settings.centre == 0.0
    eps, n = 400.0, 8
    claims = np.array([[1e6], [-1e6], [0.45], [np.nan]] * 2)
    out = mech.release(claims, eps, settings, rng=np.random.default_rng(5))
    scale = 2.0 / eps
    noise = standard_laplace(np.random.default_rng(5), (n, 1)) * scale
    inside = np.array([[1.0], [-1.0], [0.45], [0.0]] * 2)
    want = snap(inside, noise, scale, bound=1.0 + 10 * scale)
    want[3::4] = np.nan  # no claim: kept as NaN
    assert_array_equal(out, want)
    assert mech.fills_nulls is False


def test_release_through_the_member_with_a_centre(mech):
    s = mech.example_settings()
    out = mech.release(np.full((6, 1), 30.0), 2.0, s, rng=np.random.default_rng(1))
    assert_array_equal(out, _snapped(1, R / 2, 2.0))  # 30 clamps to 14 = 9 + 5


def test_claimed_guarantee_and_exact_epsilon(mech):
    """ε* = ε + 2^−49 (ε/2 + 10) per claim (module docstring); δ = 0; a user's k claims compose
    to k ε*; the ideal is ε; float safe."""
    s = mech.example_settings()
    eps = 2.0
    star = eps + 2.0 ** -49 * (eps / 2 + 10)
    assert mech.exact_epsilon(s, eps) == pytest.approx(star, rel=1e-15, abs=0)
    claim = mech.claimed(s, eps)
    assert (claim.epsilon, claim.delta) == (eps, 0.0)
    g = mech.guarantee(s, DataShape(4, 5, 3), eps)
    assert g.record_epsilon == pytest.approx(star, rel=1e-15, abs=0)
    assert g.worker_epsilon == pytest.approx(3 * star, rel=1e-15, abs=0)
    assert (g.record_delta, g.worker_delta, g.ideal_record_epsilon, g.float_safe) == (
        0.0, 0.0, eps, True)
    # λ = R/ε = 5, Λ = 8, B = 5 + 50 = 55
    assert "grid 8, clamp B = 55" in g.basis


def test_ledger(mech):
    """λ = R/ε = 10/4 = 2.5, Λ = 4 (smallest power of two ≥ λ), B = R/2 + 10λ = 30; the
    sampler's text names the public range 4 .. 14 and Λ."""
    s = mech.example_settings()
    extra = mech.ledger_extra(s, 4.0)
    assert extra["parameters"] == {"scale": 2.5, "clamp_bound": 30.0, "snapping_grid": 4.0}
    assert extra["spent"]["exact_epsilon_per_claim"] == pytest.approx(
        4.0 + 2.0 ** -49 * 12.0, rel=1e-15, abs=0)
    assert mech.ledger_text(s, 4.0)["sampler"] == ("claims clamped to 4 .. 14, snapped to "
                                                   "multiples of 4")


def test_audit_case_moves_a_claim_across_the_public_range(mech):
    """D holds the range's low end c − R/2 = 4, D' its high end c + R/2 = 14."""
    s = mech.example_settings()
    (case,) = mech.audit_cases(s, 2.0, name="Normal")
    assert case.neighbours == "one claim moves across the public range, 4 vs 14"
    assert (case.claimed_epsilon, case.claimed_delta) == (2.0, 0.0)
    assert case.exact_epsilon == mech.exact_epsilon(s, 2.0)
    assert case.float_safe is True  # Theorem 1: every output is a grid point both reach
    assert_array_equal(case.sample(np.random.default_rng(3), 6, "D"), _snapped(3, -R / 2, 2.0)[:, 0])
    assert_array_equal(case.sample(np.random.default_rng(3), 6, "D'"), _snapped(3, R / 2, 2.0)[:, 0])


def test_law_at_a_range_whose_grid_is_below_one(mech):
    """R = 0.5 at ε = 2: λ = 0.25, Λ = 0.25, B = 0.25 + 2.5 = 2.75. The declared law reaches
    both clamps ±B and the sampler follows it (the contract's check at settings other than the
    example's, where Λ > 1; 3000 draws: a wrong support or a claim outside the range
    shows at once)."""
    s = mech.settings(value_range=0.5, centre=-3.0)
    (check,) = mech.law(s, 2.0)
    assert (check.support.min(), check.support.max()) == (-2.75, 2.75)
    assert np.allclose(np.diff(check.support[1:-1]), 0.25)
    assert check.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    assert law_pvalue(check, rng=np.random.default_rng(8), n=3000) >= ALPHA
