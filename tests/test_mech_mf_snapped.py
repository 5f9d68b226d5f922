"""Exact tests of the snapped MF release (crowdpriv.mechanisms.mf_snapped): the clamp bounds,
the exact ε* against an exact rational evaluation of the module's formula, the snapped
right-hand side on chosen draws (by hand), the member's guarantee, audit cases and law."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import DataShape, Perturbed
from crowdpriv.mechanisms import mf as mfm
from crowdpriv.mechanisms import mf_snapped as msm
from crowdpriv.mechanisms.mf import MFPrepared, MFSettings
from crowdpriv.mechanisms.mf_snapped import MFSnapped

#: The sampler's reach, 1022 ln 2 scales (crowdpriv.release: the last normal binade of U*).
REACH = 1022 * math.log(2.0)


class Draws:
    """A generator stand-in that supplies chosen standard Laplace draws (the interface
    crowdpriv.release.standard_laplace documents)."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float64)

    def standard_laplace(self, size):
        assert tuple(size) == self.values.shape
        return self.values.copy()


def _grid(lam):
    return 2.0 ** math.ceil(math.log2(lam))


def _cap(lam):
    """(708 λ − Λ)/2 with the 2^−40 margin: the largest clamp every input reaches."""
    return (REACH * lam * (1.0 - 2.0**-40) - _grid(lam)) / 2.0


# --- clamp bounds -------------------------------------------------------------------------------


def test_documented_constants():
    assert msm.MF_CLAMP_SCALES == 10.0  # B_k: ten noise scales beyond the answers' range
    assert msm.PROFILE_NORM_SLACK == 2.0**-40


def test_bound_is_half_the_answers_range_plus_ten_scales():
    # ε = 0.5, |Γ| = 5: λ = 10; (|Γ| − 1)/2 · n · l1 (1 + 2^−40) = 2 · 4 · 0.5 (1 + 2^−40)
    want = 4.0 * (1.0 + 2.0**-40) + 100.0
    assert msm.mf_snapped_bound(0.5, 5, 4, 0.5) == pytest.approx(want, rel=1e-15, abs=0)


def test_bound_stops_at_the_noise_reach():
    lam = 5 / 40.0  # ε = 40: 2 · 1000 + 10 λ is beyond (708 λ − Λ)/2 ≈ 44.2
    assert msm.mf_snapped_bound(40.0, 5, 1000, 1.0) == pytest.approx(_cap(lam), rel=1e-15, abs=0)


def test_coordinate_bounds_use_each_rows_absolute_sum():
    v = np.array([[0.25, -0.5, 0.0], [-0.75, 0.5, 1.0]])  # Σ_j |v_kj| = 0.75, 2.25
    np.testing.assert_allclose(msm.mf_coordinate_bounds(v, 5, 0.5), [101.5, 104.5], rtol=1e-15)
    wide = np.zeros((2, 100))
    wide[0] = 1.0  # coordinate 0: 2 · 100 + 10 λ, beyond the reach at ε = 40; coordinate 1: 10 λ
    np.testing.assert_allclose(msm.mf_coordinate_bounds(wide, 5, 40.0), [_cap(0.125), 1.25],
                               rtol=1e-15)


# --- ε* (module docstring): an exact rational evaluation -----------------------------------------


def _epsilon_exact(eps, k, n, d, l1):
    lam = Fraction(k) / Fraction(eps)
    norm = Fraction(l1) * (1 + Fraction(1, 2**40))
    u = Fraction(1, 2**53)
    spread = Fraction(k - 1, 2) * n * norm + 10 * lam
    bound = min(spread, Fraction(_cap(float(lam))))
    gamma = (n + 1) * u / (1 - (n + 1) * u)
    slack = 2 * gamma * (k - 1) * n * norm + 2 * d * u * (1 + u) * spread
    return ((k - 1) * norm + slack) / lam + d * Fraction(1, 2**49) * bound / lam


@pytest.mark.parametrize("eps, k, n, d, l1", [
    (0.5, 5, 10**9, 3, 0.5),  # the dot product's γ_{n+1} term dominates the slack
    (0.5, 5, 3, 1000, 0.5),  # the centring term and d 2^−49 B/λ are visible
    (0.5, 5, 2**53 - 16, 2, 0.5),  # γ_{n+1} near its pole (n + 1) u → 1
    (2.0, 10, 200, 10, 1.0),
    (40.0, 5, 1000, 4, 1.0),  # the clamp at the noise's reach
])
def test_epsilon_is_the_documented_formula(eps, k, n, d, l1):
    got = msm.mf_snapped_epsilon(eps, k, n, d, l1)
    assert got == pytest.approx(float(_epsilon_exact(eps, k, n, d, l1)), rel=1e-14, abs=0)
    mech = MFSnapped()
    assert mech.exact_epsilon(MFSettings(d=d, l1_norm=l1), eps, k, n) == got


# --- the snapped right-hand side on chosen draws --------------------------------------------------

V = np.array([[0.25, -0.5, 0.0], [-0.75, 0.5, 1.0]])  # columns of 1-norm 1
A = np.array([[4.0, 0.0, 2.0]])  # b = V a = (1, −1); c = 2 Σ_j v_kj = (−0.5, 1.5)


def test_rhs_by_hand():
    prep = mfm.mf_prepare(A, V, domain_size=5)
    s = MFSettings(d=2)
    # ε = 2.5: λ = 2, Λ = 2, B = 2 Σ_j |v_kj| + 20 = (21.5, 24.5); b − c = (1.5, −2.5)
    # + λ η° = (1.6, −0.4): (3.1, −2.9), to the grid (4, −2): r = c + (4, −2) = (3.5, −0.5)
    r = msm.mf_snapped_rhs(prep, np.array([[0.8, -0.2]]), 2.5, s)
    np.testing.assert_array_equal(r, [[3.5, -0.5]])
    # a draw beyond the clamp: r = c ± B
    r = msm.mf_snapped_rhs(prep, np.array([[100.0, -100.0]]), 2.5, s)
    np.testing.assert_array_equal(r, [[21.0, -23.0]])


def test_member_solves_the_snapped_rhs_and_draws_standard_laplace():
    mech, s = MFSnapped(), MFSettings(d=2)
    prep = mfm.mf_prepare(A, V, domain_size=5)
    draws = mech.draws(None, s, rng=Draws([[0.8, -0.2]]), domain_size=5, state=prep)
    np.testing.assert_array_equal(draws, [[0.8, -0.2]])
    u, v = mech.apply(None, draws, 2.5, s, domain_size=5, state=prep).factors
    g = V @ V.T  # every task answered
    np.testing.assert_allclose(u, [np.linalg.solve(g, [3.5, -0.5])], rtol=1e-12)
    np.testing.assert_array_equal(v, V)
    # stacked repetitions: a list of states and their draws
    other = [[100.0, -100.0]]
    u2, v2 = mech.apply(None, [draws, np.array(other)], 2.5, s, domain_size=5,
                        state=[prep, prep]).factors
    assert u2.shape == (2, 1, 2) and v2.shape == (2, 2, 3)
    np.testing.assert_allclose(u2[1, 0], np.linalg.solve(g, [21.0, -23.0]), rtol=1e-12)
    np.testing.assert_allclose(u2[0], u, rtol=1e-15)


def test_rhs_refuses_profiles_beyond_the_norm_slack():
    s = MFSettings(d=1)

    def rhs(v, settings=s):
        v = np.asarray(v, dtype=np.float64)
        prep = MFPrepared(np.eye(1)[None], np.zeros((1, 1)), v, 5)
        return msm.mf_snapped_rhs(prep, np.zeros((1, 1)), 1.0, settings)

    rhs([[1.0 + 2.0**-40]])  # ‖v_j‖₁ ≤ l1 (1 + 2^−40): accepted
    rhs([[0.5, 0.5, 0.5]])  # columns of 0.5 (rows may sum beyond 1)
    rhs([[0.5 * (1.0 + 2.0**-40)]], MFSettings(d=1, l1_norm=0.5))
    for v, settings in (([[1.0 + 2.0**-39]], s), ([[0.6]], MFSettings(d=1, l1_norm=0.5))):
        with pytest.raises(ParameterError, match="mf-snapped needs ‖v_j‖₁ ≤ l1_norm") as err:
            rhs(v, settings)
        assert err.value.parameter == "profiles"


# --- the member's guarantee and ledger ------------------------------------------------------------


def test_member_guarantee_and_ledger():
    mech, s = MFSnapped(), MFSettings(d=3)
    assert mech.float_safe is True and mech.release_with is None
    c = mech.claimed(s, 0.5, domain_size=5)
    assert (c.epsilon, c.delta) == (0.5, 0.0)
    g = mech.guarantee(s, DataShape(4, 20, 20), 0.5, domain_size=5)
    assert math.isinf(g.record_epsilon) and math.isinf(g.worker_epsilon)
    assert (g.record_delta, g.worker_delta, g.float_safe) == (0.0, 0.0, True)
    # ε = 0.5, |Γ| = 5: λ = 10, Λ = 16
    assert "grid 16, composed" in g.basis
    assert f"ε* = {msm.mf_snapped_epsilon(0.5, 5, 20, 3, 1.0):.17g} exactly" in g.basis
    assert mech.ledger_extra(s, 0.5, domain_size=5) == {"parameters": {"snapping_grid": 16.0}}
    assert mech.ledger_text(s, 0.5, domain_size=5)["sampler"].endswith("multiples of 16")


# --- audit cases and law: their documented construction, by an independent computation ------------


def _snapped_output(row, v, k, eps, draws, task=0):
    """The released value of ``task``: u = G⁻¹ r, r = c + clip(Λ round((b − c) + λη°)/Λ), ±B)."""
    lam = k / eps
    grid = _grid(lam)
    t = ~np.isnan(row)
    g, b = v[:, t] @ v[:, t].T, v[:, t] @ row[t]
    c = (k - 1) / 2 * v.sum(axis=1)
    bound = np.minimum((k - 1) / 2 * np.abs(v).sum(axis=1) + 10 * lam, _cap(lam))
    x = np.clip(b - c, -bound, bound)
    r = c + np.clip(grid * np.round((x + lam * draws) / grid), -bound, bound)
    return np.linalg.solve(g, r.T).T @ v[:, task]


def test_audit_cases_are_the_documented_neighbours():
    mech, s, eps, k = MFSnapped(), MFSettings(d=4), 1.0, 5
    cases = mech.audit_cases(s, eps, domain_size=k)
    assert [c.neighbours for c in cases] == ["one answered cell, 0 vs |Γ|-1, |T_i| = 8 >= d",
                                            "one cell, answered 0 vs NULL, |T_i| = 8"]
    assert all(c.claimed_epsilon == eps and c.claimed_delta == 0.0 and c.float_safe
               and c.family == MFSnapped.CLAIM and c.claimed for c in cases)
    assert cases[0].exact_epsilon == msm.mf_snapped_epsilon(eps, k, 16, 4, 1.0)  # n = 4d
    assert math.isnan(cases[1].exact_epsilon)
    rng0 = np.random.default_rng(0)
    v = mfm.draw_task_profiles(16, 4, rng=rng0)
    base = np.full(16, np.nan)
    base[:8] = rng0.integers(0, k, 8)
    draws = np.random.default_rng(5).laplace(size=(6, 4))
    for case, changed in zip(cases, (k - 1.0, np.nan)):
        for which, first in (("D", 0.0), ("D'", changed)):
            row = base.copy()
            row[0] = first
            got = case.sample(Draws(draws), 6, which)
            np.testing.assert_allclose(got, _snapped_output(row, v, k, eps, draws), rtol=1e-9,
                                       atol=1e-9)


def _law_expected(k, eps, d, j):
    """Support and probabilities of coordinate j of the snapped b − c, written out cell by cell:
    the interior multiples of Λ, and ± B with the tails beyond them."""
    rng0 = np.random.default_rng(1)
    v = mfm.draw_task_profiles(3 * d, d, rng=rng0)
    a = rng0.integers(0, k, 3 * d)
    lam = k / eps
    grid = _grid(lam)
    bound = min((k - 1) / 2 * np.abs(v[j]).sum() + 10 * lam, _cap(lam))
    x = float(np.clip(v[j] @ a - (k - 1) / 2 * v[j].sum(), -bound, bound))
    inner = np.arange(math.floor(-bound / grid), math.ceil(bound / grid) + 1)
    inner = inner[np.abs(inner * grid) < bound]
    cdf = stats.laplace(loc=x, scale=lam).cdf
    probs = [cdf((inner[0] - 0.5) * grid)]
    probs += [cdf((i + 0.5) * grid) - cdf((i - 0.5) * grid) for i in inner]
    probs += [1.0 - cdf((inner[-1] + 0.5) * grid)]
    return np.concatenate([[-bound], inner * grid, [bound]]), np.array(probs), x, bound


@pytest.mark.parametrize("eps", [1.0, 400.0])  # at ε = 400 the reach caps every clamp
def test_law_is_the_snapped_laplace_of_each_coordinate(eps):
    k, d = 5, 3
    checks = MFSnapped().law(MFSettings(d=d), eps, domain_size=k)
    assert [c.name.split(":")[0] for c in checks] == ["coordinate 0 of b − η",
                                                     "coordinate 2 of b − η"]
    draws = np.random.default_rng(7).laplace(size=(5, d)) * 3
    for check, j in zip(checks, (0, d - 1)):
        support, probs, x, bound = _law_expected(k, eps, d, j)
        np.testing.assert_allclose(check.support, support, rtol=1e-15)
        np.testing.assert_allclose(check.probabilities, probs, rtol=1e-9, atol=1e-15)
        grid = _grid(k / eps)
        want = np.clip(grid * np.round((x + k / eps * draws[:, j]) / grid), -bound, bound)
        np.testing.assert_allclose(check.sample(Draws(draws), 5), want, rtol=1e-9, atol=1e-9)


class OffGrid(MFSnapped):
    """A sampler whose coordinate 0 of r is moved off the grid by ``shift`` Λ."""

    id, label, aliases = "mf-off-grid", "MF off grid", ()
    shift = 0.0

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        u, v = super().apply(codes, draws, epsilon, settings, domain_size=domain_size,
                             state=state).factors
        # r = (G + λI) u moves by shift Λ in coordinate 0
        u = u + self.shift * _grid(domain_size / epsilon) * state.solver[..., 0]
        return Perturbed(factors=(u, v))


@pytest.mark.parametrize("shift, on_grid", [(0.2, True), (0.3, False), (-0.3, False)])
def test_law_sample_marks_values_off_the_grid(shift, on_grid):
    mech = OffGrid()
    mech.shift = shift
    (first, _) = mech.law(MFSettings(d=2), 1.0, domain_size=5)
    got = first.sample(Draws(np.zeros((3, 2))), 3)
    assert np.isfinite(got).all() == on_grid and np.isnan(got).all() != on_grid
