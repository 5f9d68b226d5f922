"""The float-safe release samplers (issue 25): each one's exact ε against a closed form written
here (Mironov's Theorem 1, ln(N_keep/q), ...), independently of the member's code, and each
sampler's arithmetic at the edges where a wrong threshold, grid or sensitivity would show."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from crowdpriv import mechanisms
from crowdpriv.mechanisms import DataShape

SHAPE = DataShape(workers=40, tasks=300, max_records_per_worker=120)
N = 2**62


def _exp_bounds(x: float, terms: int = 80) -> tuple[Fraction, Fraction]:
    """Rational lower and upper bounds on e^x for a double 0 ≤ x < terms (exactly, as a
    Fraction): the Taylor partial sum (every term positive) and that sum plus the geometric
    bound term·x/(n+1)/(1 − x/(n+2)) on the tail."""
    r = Fraction(x)
    term, total = Fraction(1), Fraction(1)
    for n in range(1, terms):
        term = term * r / n
        total += term
    tail = term * r / terms / (1 - r / (terms + 1))
    return total, total + tail


# --- RR and 2-Layer with integer thresholds ----------------------------------------------


@pytest.mark.parametrize("eps", [1e-9, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0])
@pytest.mark.parametrize("k", [2, 5, 10])
def test_rr_thresholds_keep_the_ratio_at_most_e_eps_and_q_is_the_smallest(eps, k):
    """N_keep/q ≤ e^ε exactly (against a rational lower bound on e^ε) and q − 1 would exceed
    e^ε (against a rational upper bound): q = ⌈2^62/(e^ε + |Γ|)⌉, N_keep = 2^62 − |Γ| q."""
    from crowdpriv.mechanisms.rr_exact import rr_thresholds

    q, keep = (int(v) for v in rr_thresholds(eps, k))
    lo, hi = _exp_bounds(eps)
    assert keep == N - k * q
    assert Fraction(keep, q) <= lo  # hence ≤ e^ε
    assert Fraction(N - k * (q - 1), q - 1) > hi  # hence > e^ε: q is the smallest admissible


@pytest.mark.parametrize("eps", [0.0, 44.0, 500.0])
def test_rr_thresholds_at_the_extremes(eps):
    from crowdpriv.mechanisms.rr_exact import rr_thresholds

    q, keep = (int(v[0]) for v in rr_thresholds(np.array([eps]), 3))  # per-worker budgets
    if eps == 0.0:  # e^0 + 3 = 4 divides 2^62: keep and each other symbol equally likely
        assert q == N // 4 and keep == q
    else:  # e^ε > 2^62: q = 1, ε* = ln(2^62 − 3) < ε
        assert q == 1 and keep == N - 3


@pytest.mark.parametrize("eps, k", [(0.5, 5), (1.0, 5), (2.0, 10), (7.0, 2)])
def test_rr_exact_guarantee_is_ln_nkeep_over_q(eps, k):
    from crowdpriv.mechanisms.rr_exact import rr_thresholds

    mech = mechanisms.get("rr-exact")
    g = mech.guarantee(mech.settings(), SHAPE, eps, domain_size=k)
    q, keep = (int(v) for v in rr_thresholds(eps, k))
    want = math.log(keep) - math.log(q)
    assert g.float_safe and g.record_epsilon == pytest.approx(want, rel=1e-15, abs=1e-15)
    assert g.record_epsilon <= eps
    assert g.worker_epsilon == pytest.approx(SHAPE.tasks * g.record_epsilon, rel=1e-15)


def test_rr_exact_sampler_splits_the_integers_into_runs_of_q():
    """At the edges of each run: U < N_keep keeps, N_keep + j q .. N_keep + (j+1) q − 1 shift
    by j + 1, the last integer N − 1 shifts by |Γ|: every other symbol has exactly q draws."""
    from crowdpriv.mechanisms.rr_exact import rr_exact_apply, rr_thresholds

    k, eps = 5, 1.3
    q, keep = (int(v) for v in rr_thresholds(eps, k))
    u = [0, keep - 1] + [keep + j * q + e for j in range(k) for e in (0, q - 1)]
    want = [0, 0] + [j + 1 for j in range(k) for _ in (0, 1)]
    for code in range(k + 1):
        codes = np.full((1, len(u)), code, dtype=np.int8)
        out = rr_exact_apply(codes, np.array([u], dtype=np.int64), eps, domain_size=k)
        assert out.ravel().tolist() == [(code + s) % (k + 1) for s in want]
    assert keep + k * q == N


@pytest.mark.parametrize("spread", [0.0, 0.5, 1.0])
def test_two_layer_exact_caps_each_budget_and_states_the_worst_worker(spread):
    from crowdpriv.mechanisms.rr_exact import rr_exact_apply, rr_thresholds

    eps, k = 1.5, 5
    mech = mechanisms.get("two-layer-exact")
    settings = mech.settings(spread=spread)
    g = mech.guarantee(settings, SHAPE, eps, domain_size=k)
    q, keep = (int(v) for v in rr_thresholds(eps * (1 + spread), k))
    assert g.record_epsilon == pytest.approx(math.log(keep / q), rel=1e-14)
    assert g.worker_epsilon == pytest.approx(SHAPE.tasks * g.record_epsilon, rel=1e-14)
    # a multiplier above 1 + s (it cannot be drawn) runs at the cap, not above it
    codes = np.zeros((2, 4), dtype=np.int8)
    u = np.full((2, 4), keep - 1, dtype=np.int64)  # kept at the cap's thresholds ...
    u[:, 1] = keep  # ... and the first draw the cap flips
    draws = (np.array([1.0 + spread, 1.0 + spread + 0.25]), u)
    out = mech.apply(codes, draws, eps, settings, domain_size=k).values
    want = rr_exact_apply(codes[:1], u[:1], eps * (1 + spread), domain_size=k)
    assert (out == want).all()


def test_rr_ledgers_state_the_exact_epsilon():
    import pandas as pd

    import crowdpriv
    from crowdpriv.mechanisms.rr_exact import rr_thresholds

    rng = np.random.default_rng(2)
    answers = pd.DataFrame([(f"t{t}", f"w{w}", int(rng.integers(0, 5))) for w in range(9)
                            for t in range(7) if rng.random() < 0.5],
                           columns=["task", "worker", "label"])
    with pytest.warns(UserWarning):
        out = crowdpriv.perturb(answers, "rr", epsilon=0.8, domain=5, seed=1, audit=False)
    q, keep = (int(v) for v in rr_thresholds(0.8, 5))
    assert out.ledger["sampler"] == "rr-exact"
    assert out.ledger["parameters"]["threshold_q"] == q
    assert out.ledger["spent"]["exact_epsilon_per_cell"] == pytest.approx(math.log(keep / q))
    assert out.ledger["guarantee"]["float_safe"] is True


# --- MF with b − η snapped ---------------------------------------------------------------


@pytest.mark.parametrize("eps, k, n, d, l1", [(1.0, 5, 300, 10, 1.0), (0.5, 10, 40, 4, 0.6)])
def test_mf_snapped_epsilon_is_mironovs_theorem_1_composed_over_d(eps, k, n, d, l1):
    """A changed answer moves coordinate j of b by (|Γ| − 1)|v_jt|: Theorem 1 per coordinate,
    Δ/λ + 2^−49 B/λ with λ = |Γ|/ε and B = (|Γ| − 1)/2 · n · l1 + 10λ, summed over the d
    coordinates, Σ_j |v_jt| ≤ l1; plus the floating point of the inputs (a dot product of n
    terms and a centring, for both neighbours)."""
    mech = mechanisms.get("mf-snapped")
    settings = mech.settings(d=d, l1_norm=l1)
    lam = k / eps
    bound = (k - 1) / 2 * n * l1 + 10 * lam
    u = 2.0**-53
    norm = l1 * (1 + 2.0**-40)
    slack = 2 * (n + 1) * u / (1 - (n + 1) * u) * (k - 1) * n * norm + 2 * d * u * (1 + u) * bound
    want = ((k - 1) * norm + slack) / lam + d * 2.0**-49 * bound / lam
    got = mech.exact_epsilon(settings, eps, k, n)
    assert got == pytest.approx(want, rel=1e-14)
    assert eps * (k - 1) * l1 / k < got < eps * (k - 1) * l1 / k * (1 + 1e-6)
    g = mech.guarantee(settings, DataShape(7, n, n), eps, domain_size=k)
    assert math.isinf(g.record_epsilon) and g.float_safe  # NULL ↔ answer: not covered
    assert f"{got:.17g}" in g.basis


def test_mf_snapped_releases_a_snapped_rhs_and_solves_it():
    """r − c lies on the grid within ± B for every worker and coordinate, and u = (G + λI)⁺ r
    (post-processing of r)."""
    from crowdpriv.mechanisms.mf_snapped import mf_snapped_bound, mf_snapped_rhs

    k, eps = 5, 0.7
    mech = mechanisms.get("mf-snapped")
    settings = mech.settings(d=4)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, k + 1, size=(30, 12)).astype(np.int8)  # code k = NULL
    state = mech.prepare(codes, settings, domain_size=k, rng=rng)
    draws = mech.draws(codes, settings, rng=rng, domain_size=k, state=state)
    r = mf_snapped_rhs(state, draws, eps, settings)
    centre = (k - 1) / 2 * state.profiles.sum(axis=1)
    grid = 2.0 ** math.ceil(math.log2(k / eps))
    bound = mf_snapped_bound(eps, k, 12, settings.l1_norm)
    snapped = r - centre
    assert np.all((np.abs(snapped) == bound) | (np.round(snapped / grid) * grid == snapped))
    assert np.abs(snapped).max() <= bound and np.abs(state.rhs - centre).max() < bound - 9 * k / eps
    u, _ = mech.apply(codes, draws, eps, settings, domain_size=k, state=state).factors
    np.testing.assert_array_equal(u, np.einsum("mij,mj->mi", state.solver, r))
    with pytest.raises(ValueError, match="l1_norm"):
        bad = type(state)(state.solver, state.rhs, state.profiles * 1.01, k)
        mf_snapped_rhs(bad, draws, eps, settings)
