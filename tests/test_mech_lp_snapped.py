"""LP's snapped release (crowdpriv.mechanisms.lp_snapped), exactly: the sampler's arithmetic on
chosen Laplace draws against Mironov's snapping mechanism (CCS 2012, Sec. 5.2) worked by hand,
the clamp bound, the ε-range check, the declared law against the rounding cells' masses
computed here, and the ledger's and the audit's statements (issue 24)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from crowdpriv import mechanisms
from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms.lp_snapped import CLAMP_SCALES, LPSnapped, lp_bound, lp_release

MECH = LPSnapped()
SETTINGS = MECH.settings()


class _Draws:
    """A generator stand-in: the standard Laplace draws the snapping sampler asks for
    (:func:`crowdpriv.release.standard_laplace` takes them from ``standard_laplace``) are the
    given ``draw`` in every cell; the NULL fill comes from a real generator."""

    def __init__(self, draw, seed=0):
        self.draw = np.asarray(draw, dtype=np.float64)
        self.rng = np.random.default_rng(seed)

    def integers(self, *args, **kwargs):
        return self.rng.integers(*args, **kwargs)

    def standard_laplace(self, size):
        return np.broadcast_to(self.draw, size).copy()


def test_clamp_bound_is_half_the_range_plus_ten_noise_scales():
    """B = (|Γ| − 1)/2 + 10 |Γ|/ε (lp_bound's docstring): 2 + 25 at |Γ| = 5, ε = 2."""
    assert CLAMP_SCALES == 10.0
    assert lp_bound(2.0, 5) == 27.0
    assert lp_bound(0.5, 2) == 0.5 + 40.0


def test_release_is_the_snapping_mechanism_worked_by_hand():
    """|Γ| = 5, ε = 2.5: λ = 2, grid Λ = 2, centre 2, B = 2 + 20 = 22. A draw L = 0.7 adds
    1.4: (x − 2 + 1.4)/2 = −0.3, 0.2, 0.7, 1.2, 1.7 rounds to 0, 0, 1, 1, 2, so the outputs
    are 2 + 2·(0, 0, 1, 1, 2); a huge draw lands on the clamps 2 ± 22."""
    answers = np.array([[0.0, 1.0, 2.0, 3.0, 4.0]])
    out = lp_release(answers, 2.5, 5, _Draws(0.7))
    np.testing.assert_array_equal(out, [[2.0, 2.0, 4.0, 4.0, 6.0]])
    np.testing.assert_array_equal(lp_release(answers, 2.5, 5, _Draws(1e9)), [[24.0] * 5])
    np.testing.assert_array_equal(lp_release(answers, 2.5, 5, _Draws(-1e9)), [[-20.0] * 5])
    # ε = 5: λ = Λ = 1, a zero draw returns every answer unchanged (centred, rounded, back)
    np.testing.assert_array_equal(lp_release(answers, 5.0, 5, _Draws(0.0)), answers)


def test_release_fills_a_null_with_a_uniform_label():
    """LDP-sparse Eq. 6 (uniform v in Γ, Sec. VI): with zero noise on a grid of 1 the output
    of a NULL is its fill; over 5000 NULLs every label of Γ appears about a fifth of the time
    (5 binomial standard deviations), and answered cells keep their answer."""
    k, n = 5, 5000
    answers = np.full((1, n), np.nan)
    answers[0, :5] = [4.0, 3.0, 2.0, 1.0, 0.0]
    out = lp_release(answers, 5.0, k, _Draws(0.0, seed=1))
    np.testing.assert_array_equal(out[0, :5], [4.0, 3.0, 2.0, 1.0, 0.0])
    fills = out[0, 5:]
    labels, counts = np.unique(fills, return_counts=True)
    np.testing.assert_array_equal(labels, np.arange(k, dtype=float))
    m = fills.size
    assert np.all(np.abs(counts - m / k) < 5 * math.sqrt(m * (1 / k) * (1 - 1 / k)))


def test_release_method_checks_the_answers_and_runs_lp_release():
    out = MECH.release(np.array([[0.0, 4.0]]), 5, SETTINGS, rng=_Draws(0.0), domain_size=5)
    np.testing.assert_array_equal(out, [[0.0, 4.0]])


def test_epsilon_range_is_mironovs_b_below_2_to_the_46_lambda():
    """λ < B < 2^46 λ (Mironov's Theorem 1) with B = (|Γ| − 1)/2 + 10λ holds exactly for
    ε < 2|Γ|(2^46 − 10)/(|Γ| − 1): 2.5 (2^46 − 10) ≈ 1.759e14 at |Γ| = 5."""
    k = 5
    largest = 2 * k * (2.0**46 - 10) / (k - 1)
    MECH.check_epsilon(SETTINGS, largest * (1 - 1e-9), domain_size=k)
    MECH.check_epsilon(SETTINGS, 1.0, domain_size=k)
    with pytest.raises(ValueError, match=r"epsilon = 1\.75922e\+14 is too large .* use epsilon "
                                         r"below 1\.759e\+14"):
        MECH.check_epsilon(SETTINGS, largest * (1 + 1e-9), domain_size=k)
    # at this ε the float64 bound equals 2^46 λ exactly: Theorem 1's strict "<" refuses it
    eps = 175921860444135.0
    assert (k - 1) / 2 + 10 * (k / eps) == 2.0**46 * (k / eps)
    with pytest.raises(ValueError, match="too large"):
        MECH.check_epsilon(SETTINGS, eps, domain_size=k)
    # |Γ| = 3: ε < 3 (2^46 − 10) ≈ 2.111e14
    MECH.check_epsilon(SETTINGS, 2.1e14, domain_size=3)
    with pytest.raises(ValueError, match=r"below 2\.111e\+14"):
        MECH.check_epsilon(SETTINGS, 2.2e14, domain_size=3)


def test_noise_variance_is_the_snapped_error_averaged_over_gamma():
    """E[(output − answer)²] over the labels, from the rounding cells' masses computed here:
    54.75 against Lap's 50 at |Γ| = 5, ε = 1 (the docstring), and at |Γ| = 4, ε = 2."""
    for k, eps in ((5, 1.0), (4, 2.0), (5, 0.5)):
        want = np.mean([_snapped_mse(a, k, eps) for a in range(k)])
        assert MECH.noise_variance(SETTINGS, eps, domain_size=k) == pytest.approx(want,
                                                                                 rel=1e-10)
    assert MECH.noise_variance(SETTINGS, 1.0, domain_size=5) == pytest.approx(54.75, abs=0.005)


def _grid(scale):
    return 2.0 ** math.ceil(math.log2(scale))


def _law(x, k, eps):
    """The law of clip(Λ·round((x + L)/Λ), −B, B), L ~ Lap(|Γ|/ε), x centred on Γ: the grid
    points strictly inside (−B, B) with their rounding cells' masses, and ±B with the tails."""
    scale, grid, bound = k / eps, _grid(k / eps), (k - 1) / 2 + 10 * k / eps
    lap = stats.laplace(loc=x, scale=scale)
    # the grid indices whose points clamp to −B (j ≤ low) and to B (j ≥ high)
    low, high = math.floor(-bound / grid), math.ceil(bound / grid)
    inner = np.arange(low + 1, high)
    points = np.concatenate([[-bound], inner * grid, [bound]])
    probs = np.concatenate([[lap.cdf((low + 0.5) * grid)],
                            lap.cdf((inner + 0.5) * grid) - lap.cdf((inner - 0.5) * grid),
                            [lap.sf((high - 0.5) * grid)]])
    return points, probs


def _snapped_mse(answer, k, eps):
    points, probs = _law(answer - (k - 1) / 2, k, eps)
    return float(np.sum(probs * (points - (answer - (k - 1) / 2)) ** 2))


@pytest.mark.parametrize("k, eps", [(5, 2.0), (2, 8.0), (5, 1.0)])
def test_declared_law_is_the_rounding_cells_of_lap_around_the_top_label(k, eps):
    """The law of the centred output of an answer |Γ| − 1 (x = (|Γ| − 1)/2): at |Γ| = 5, ε = 2
    the grid is 4 and the clamp 27; at |Γ| = 2, ε = 8 the grid is 1/4 and B = 3 a grid point."""
    (check,) = MECH.law(SETTINGS, eps, domain_size=k)
    points, probs = _law((k - 1) / 2, k, eps)
    np.testing.assert_array_equal(check.support, points)
    np.testing.assert_allclose(check.probabilities, probs, rtol=1e-10, atol=1e-300)
    assert check.probabilities.sum() == pytest.approx(1.0, abs=1e-12)


def test_law_sample_is_the_top_labels_release_centred():
    """|Γ| = 5, ε = 2 (λ = 2.5, Λ = 4, B = 27, x = 2): draws 0.4, −0.4, ±1e9 give
    2 + 1 → 4, 2 − 1 → 0 and the clamps ±27."""
    (check,) = MECH.law(SETTINGS, 2.0, domain_size=5)
    for draw, want in ((0.4, 4.0), (-0.4, 0.0), (1e9, 27.0), (-1e9, -27.0)):
        np.testing.assert_array_equal(check.sample(_Draws(draw), 3), [want] * 3)


def test_exact_cell_epsilon_is_theorem_1_at_sensitivity_range_of_gamma():
    """(|Γ| − 1)/λ + 2^−49 B/λ, λ = |Γ|/ε (Mironov's Theorem 1 in units of Δ = |Γ| − 1)."""
    k, eps = 5, 2.0
    lam, bound = k / eps, (k - 1) / 2 + 10 * k / eps
    want = (k - 1) / lam + 2.0**-49 * bound / lam
    assert MECH.exact_cell_epsilon(eps, k) == pytest.approx(want, rel=1e-14)
    assert MECH.ledger_extra(SETTINGS, eps, domain_size=k)["spent"] == {
        "exact_epsilon_per_cell": MECH.exact_cell_epsilon(eps, k)}


def test_claim_guarantee_and_ledger_text_at_delta_zero():
    """Pure ε (LDP-sparse Theorem 1, Mironov's Theorem 1: δ = 0); a float-safe release;
    |Γ| = 5, ε = 2: grid 4, outputs clamped to 2 ∓ 27."""
    k, eps = 5, 2.0
    assert MECH.float_safe is True
    claimed = MECH.claimed(SETTINGS, eps, domain_size=k)
    assert (claimed.epsilon, claimed.delta) == (eps, 0.0)
    g = MECH.guarantee(SETTINGS, DataShape(3, 7, 4), eps, domain_size=k)
    exact = MECH.exact_cell_epsilon(eps, k)
    assert (g.record_epsilon, g.record_delta, g.worker_delta) == (exact, 0.0, 0.0)
    assert g.worker_epsilon == pytest.approx(7 * exact) and g.float_safe is True
    assert "grid Λ = 4, clamp B = 27," in g.basis
    sampler = MECH.ledger_text(SETTINGS, eps, domain_size=k)["sampler"]
    assert sampler == "Mironov's snapping mechanism: grid 4, outputs clamped to -25 .. 29"
    assert MECH.ledger_extra(SETTINGS, eps, domain_size=k)["parameters"] == {"sampler": sampler}


def test_audit_cases_are_the_cell_neighbours_at_the_exact_epsilon():
    """Case 1: an answer 0 (D) against |Γ| − 1 (D′); case 2: a NULL (D) against 0 (D′); both
    at the claimed (ε, 0), Theorem 1's exact ε, float-safe. Zero draws on a grid of 1 (ε =
    |Γ|) return the inputs, a NULL its uniform fill."""
    k, eps = 5, 5.0
    answered, null = MECH.audit_cases(SETTINGS, eps, domain_size=k)
    for case in (answered, null):
        assert (case.claimed_epsilon, case.claimed_delta) == (eps, 0.0)
        assert case.exact_epsilon == MECH.exact_cell_epsilon(eps, k)
        assert case.float_safe is True and case.family == LPSnapped.CLAIM
    np.testing.assert_array_equal(answered.sample(_Draws(0.0), 4, "D"), [0.0] * 4)
    np.testing.assert_array_equal(answered.sample(_Draws(0.0), 4, "D'"), [4.0] * 4)
    np.testing.assert_array_equal(null.sample(_Draws(0.0), 4, "D'"), [0.0] * 4)
    fills = null.sample(_Draws(0.0, seed=2), 500, "D")
    assert fills.shape == (500,) and set(fills) == {0.0, 1.0, 2.0, 3.0, 4.0}


def test_registered_as_lps_release_sampler():
    assert mechanisms.get("lp").release_with == "lp-snapped"
    assert isinstance(mechanisms.get("lp-snapped"), LPSnapped)
