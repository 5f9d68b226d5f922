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


def test_rr_thresholds_retry_with_more_digits_when_the_first_attempt_is_short(monkeypatch):
    """At 12 digits the error bound (≈ 10^9 at values ≈ 10^18) always spans an integer: the
    ceiling then comes from the retry, and it is the same exact q (checked as above)."""
    from crowdpriv.mechanisms import rr_exact

    monkeypatch.setattr(rr_exact, "DIGITS", 12)
    for eps, k in [(0.1, 2), (3.7, 10)]:
        q, keep = (int(v) for v in rr_exact.rr_thresholds(eps, k))
        lo, hi = _exp_bounds(eps)
        assert Fraction(keep, q) <= lo and Fraction(N - k * (q - 1), q - 1) > hi


@pytest.mark.parametrize("eps", [0.0, 44.0, 500.0])
@pytest.mark.parametrize("k", [2, 3])
def test_rr_thresholds_at_the_extremes(eps, k):
    from crowdpriv.mechanisms.rr_exact import rr_thresholds

    q, keep = (int(v[0]) for v in rr_thresholds(np.array([eps]), k))  # per-worker budgets
    if eps == 0.0:  # e^0 + k = k + 1: q = ⌈2^62/(k + 1)⌉, so N_keep ≤ q (ratio ≤ 1 = e^0)
        assert q == -(-N // (k + 1)) and keep <= q
        assert (q == keep) == (N % (k + 1) == 0)  # 4 divides 2^62, 3 does not
    else:  # e^ε > 2^62: q = 1, ε* = ln(2^62 − k) < ε
        assert q == 1 and keep == N - k


@pytest.mark.parametrize("eps, k", [(0.5, 5), (1.0, 5), (2.0, 10), (7.0, 2)])
def test_rr_exact_guarantee_is_ln_nkeep_over_q(eps, k):
    from crowdpriv.mechanisms.rr_exact import rr_thresholds

    mech = mechanisms.get("rr-exact")
    g = mech.guarantee(mech.settings(), SHAPE, eps, domain_size=k)
    q, keep = (int(v) for v in rr_thresholds(eps, k))
    want = math.log(keep) - math.log(q)
    assert g.float_safe and g.record_epsilon == pytest.approx(want, rel=1e-15, abs=1e-15)
    assert g.record_epsilon <= eps
    assert g.worker_epsilon == pytest.approx(SHAPE.tasks * g.record_epsilon, rel=1e-15, abs=0)


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
    assert g.record_epsilon == pytest.approx(math.log(keep / q), rel=1e-14, abs=0)
    assert g.worker_epsilon == pytest.approx(SHAPE.tasks * g.record_epsilon, rel=1e-14, abs=0)
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


@pytest.mark.parametrize("eps, k, n, d, l1", [(1.0, 5, 300, 10, 1.0), (0.5, 10, 40, 4, 0.6),
                                             (10.0, 5, 3000, 10, 1.0)])
def test_mf_snapped_epsilon_is_mironovs_theorem_1_composed_over_d(eps, k, n, d, l1):
    """A changed answer moves coordinate j of b by (|Γ| − 1)|v_jt|: Theorem 1 per coordinate,
    Δ/λ + 2^−49 B/λ with λ = |Γ|/ε and B = (|Γ| − 1)/2 · n · l1 + 10λ, but at most
    (708.4 λ − Λ)/2 (the noise's reach; it binds in the last case), summed over the d
    coordinates, Σ_j |v_jt| ≤ l1; plus the floating point of the inputs (a dot product of n
    terms and a centring, for both neighbours)."""
    mech = mechanisms.get("mf-snapped")
    settings = mech.settings(d=d, l1_norm=l1)
    lam = k / eps
    grid = 2.0 ** math.ceil(math.log2(lam))
    norm = l1 * (1 + 2.0**-40)
    spread = (k - 1) / 2 * n * norm + 10 * lam
    bound = min(spread, (1022 * math.log(2) * lam * (1 - 2.0**-40) - grid) / 2)
    assert (bound < spread) == (eps == 10.0)
    u = 2.0**-53
    slack = 2 * (n + 1) * u / (1 - (n + 1) * u) * (k - 1) * n * norm + 2 * d * u * (1 + u) * spread
    want = ((k - 1) * norm + slack) / lam + d * 2.0**-49 * bound / lam
    got = mech.exact_epsilon(settings, eps, k, n)
    assert got == pytest.approx(want, rel=1e-14, abs=0)
    assert eps * (k - 1) * l1 / k < got < eps * (k - 1) * l1 / k * (1 + 1e-6)
    g = mech.guarantee(settings, DataShape(7, n, n), eps, domain_size=k)
    assert math.isinf(g.record_epsilon) and g.float_safe  # NULL ↔ answer: not covered
    assert f"{got:.17g}" in g.basis


def test_mf_snapped_releases_a_snapped_rhs_and_solves_it():
    """r − c lies on the grid within ± B for every worker and coordinate, and u = (G + λI)⁺ r
    (post-processing of r)."""
    from crowdpriv.mechanisms.mf_snapped import mf_coordinate_bounds, mf_snapped_rhs
    from crowdpriv.release import standard_laplace

    k, eps = 5, 0.7
    mech = mechanisms.get("mf-snapped")
    settings = mech.settings(d=4)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, k + 1, size=(30, 12)).astype(np.int8)  # code k = NULL
    state = mech.prepare(codes, settings, domain_size=k, rng=rng)
    draws = mech.draws(codes, settings, rng=np.random.default_rng(8), domain_size=k,
                       state=state)
    # Theorem 1's sampler of the noise (U* and a sign), not numpy's Laplace
    np.testing.assert_array_equal(draws, standard_laplace(np.random.default_rng(8), (30, 4)))
    r = mf_snapped_rhs(state, draws, eps, settings)
    centre = (k - 1) / 2 * state.profiles.sum(axis=1)
    grid = 2.0 ** math.ceil(math.log2(k / eps))
    bound = mf_coordinate_bounds(state.profiles, k, eps)
    np.testing.assert_allclose(bound, 2 * np.abs(state.profiles).sum(axis=1) + 10 * k / eps)
    snapped = r - centre
    assert np.all((np.abs(snapped) == bound) | (np.round(snapped / grid) * grid == snapped))
    assert (np.abs(snapped) <= bound).all()
    assert (np.abs(state.rhs - centre) < bound - 9 * k / eps).all()
    # at a large ε the clamp stops at the noise's reach, (708.4 λ − Λ)/2
    lam = k / 40.0
    wide = mf_coordinate_bounds(np.full((2, 400), 0.5), k, 40.0)
    assert wide == pytest.approx((1022 * math.log(2) * lam * (1 - 2.0**-40) - 0.125) / 2)
    u, _ = mech.apply(codes, draws, eps, settings, domain_size=k, state=state).factors
    np.testing.assert_array_equal(u, np.einsum("mij,mj->mi", state.solver, r))
    with pytest.raises(ValueError, match="l1_norm"):
        bad = type(state)(state.solver, state.rhs, state.profiles * 1.01, k)
        mf_snapped_rhs(bad, draws, eps, settings)


# --- PPTD's per-record scale, i.i.d. Laplace per record, snapped ---------------------------


def _pptd_lambda2(eps, lam1, reading, b=2.0, eta=0.9, delta=0.1):
    gamma2 = b**2 * 2 * math.log(1 / (1 - eta))  # Lemma 4.8's γ_s²
    return 2 * (lam1**2 if reading == "printed" else lam1) * eps * math.log(1 / (1 - delta)) \
        / gamma2  # Theorem 4.10


@pytest.mark.parametrize("eps, lam1, reading", [(1.0, 2.0, "printed"), (5.0, 3.0, "corrected")])
def test_pptd_laplace_epsilon_is_mironovs_theorem_1_at_the_records_sensitivity(eps, lam1,
                                                                                reading):
    """ε* = Δ_s √(2λ2) + 2^−49 B √(2λ2) with B = 300 σ = 300/√(2λ2): Δ_s √(2λ2) + 300 · 2^−49;
    with a centre ≠ 0, the centring's rounding 2^−52 B joins Δ_s."""
    mech = mechanisms.get("pptd-laplace")
    settings = mech.settings(lambda1=lam1, sensitivity=reading)
    lam2 = _pptd_lambda2(eps, lam1, reading)
    gamma = 2.0 * math.sqrt(2 * math.log(10))
    sens = gamma / lam1 if reading == "printed" else gamma / math.sqrt(lam1)
    assert mech.record_epsilon(settings, eps) == pytest.approx(
        sens * math.sqrt(2 * lam2) + 300 * 2.0**-49, rel=1e-14, abs=0)
    if reading == "printed":  # Δ_s √(2λ2) = 2 √(ε ln(1/(1 − δ))) under the printed reading
        assert mech.record_epsilon(settings, eps) == pytest.approx(
            2 * math.sqrt(eps * math.log(1 / 0.9)), rel=1e-8)
    centred = mech.settings(lambda1=lam1, sensitivity=reading, centre=3.5, bound=500.0)
    slack = 2.0**-52 * 500.0
    assert mech.record_epsilon(centred, eps) == pytest.approx(
        (sens + slack) * math.sqrt(2 * lam2) + 2.0**-49 * 500.0 * math.sqrt(2 * lam2),
        rel=1e-14, abs=0)
    g = mech.guarantee(settings, DataShape(10, 5, 7), eps)
    assert g.float_safe and g.record_delta == 0.0
    assert g.worker_epsilon == pytest.approx(7 * g.record_epsilon)  # independent per record
    # the noise reaches 708 σ: a clamp beyond 353 σ would leave outputs unreachable
    sigma = 1 / math.sqrt(2 * lam2)
    assert mech.bound(mech.settings(lambda1=lam1, sensitivity=reading, bound=350 * sigma), eps)
    with pytest.raises(ValueError, match="noise scales"):
        mech.record_epsilon(mech.settings(lambda1=lam1, sensitivity=reading, bound=360 * sigma),
                            eps)


def test_pptd_laplace_release_keeps_missing_claims_and_lies_on_its_grid():
    mech = mechanisms.get("pptd-laplace")
    settings = mech.settings(lambda1=2.0, centre=1.0, bound=500.0)
    x = np.array([[0.3, np.nan, 2.0], [1e9, -1e9, 1.0]])
    out = mech.release(np.repeat(x, 2000, axis=0), 1.0, settings, rng=np.random.default_rng(1))
    first, second = out[:2000], out[2000:]
    assert np.isnan(first[:, 1]).all() and not np.isnan(np.delete(out, 1, axis=1)).any()
    assert not np.isnan(second).any()
    grid = 2.0 ** math.ceil(math.log2(mech.scale(settings, 1.0)))
    shifted = out[~np.isnan(out)] - 1.0
    assert np.all((np.abs(shifted) == 500.0) | (np.round(shifted / grid) * grid == shifted))
    # a claim far outside is clamped to the bound around the centre
    assert second[:, 0].min() >= 1.0 + 500.0 - 20 * grid
    assert second[:, 1].max() <= 1.0 - 500.0 + 20 * grid


def test_pptd_laplace_tradeoff_beside_alg2_on_fig2s_data():
    from crowdpriv.pptd import laplace_tradeoff, synthetic_tradeoff

    common = dict(workers=12, lam1=2.0, tasks=5, epsilons=[1.0, 20.0], repetitions=3, b=2.0,
                  eta=0.9, delta=0.1)
    table = laplace_tradeoff(seed=4, **common)
    alg2 = table.loc[table["mechanism"] == "Alg. 2"].reset_index(drop=True)
    fig2 = synthetic_tradeoff(seed=4, **common)
    np.testing.assert_array_equal(alg2["mae"], fig2["mae"])  # Fig. 2's own numbers
    other = synthetic_tradeoff(seed=5, **common)
    assert not np.array_equal(alg2["mae"], other["mae"])
    lap = table.loc[table["mechanism"] == "PPTD i.i.d. Laplace (snapped)"]
    assert len(lap) == 6 and lap["mae"].notna().all()
    assert (lap.groupby("epsilon")["noise"].mean().diff().dropna() < 0).all()
    want = 2 * np.sqrt(lap["epsilon"] * math.log(1 / 0.9)) + 300 * 2.0**-49  # printed 4.8
    np.testing.assert_allclose(lap["record_epsilon"], want, rtol=1e-12)


# --- Basic with a public range, snapped ------------------------------------------------------


@pytest.mark.parametrize("eps, r", [(0.1, 3.0), (1.0, 10.0), (10.0, 0.5)])
def test_basic_snapped_epsilon_is_mironovs_theorem_1(eps, r):
    """Sensitivity R (claims clamped to the public range), scale R/ε, B = R/2 + 10R/ε:
    ε* = R/λ + 2^−49 B/λ = ε + 2^−49 (ε/2 + 10)."""
    mech = mechanisms.get("basic-snapped")
    settings = mech.settings(value_range=r, centre=2.0)
    want = eps + 2.0**-49 * (eps / 2 + 10)
    assert mech.exact_epsilon(settings, eps) == pytest.approx(want, rel=1e-15, abs=0)
    g = mech.guarantee(settings, SHAPE, eps)
    assert g.record_epsilon == pytest.approx(want, rel=1e-15, abs=0)
    assert g.worker_epsilon == pytest.approx(SHAPE.max_records_per_worker * want, rel=1e-15,
                                             abs=0)
    with pytest.raises(ValueError, match="value-range"):
        mech.guarantee(mech.settings(), SHAPE, eps)
    with pytest.raises(ValueError, match="reach"):  # 2B + Λ above the noise's reach, 708 R/ε
        mech.exact_epsilon(settings, 700.0)


def test_basic_snapped_release_clamps_to_the_public_range_and_lies_on_its_grid():
    mech = mechanisms.get("basic-snapped")
    settings = mech.settings(value_range=4.0, centre=10.0)
    x = np.array([[8.0, 12.0, 1e6, np.nan]])
    out = mech.release(np.repeat(x, 5000, axis=0), 2.0, settings, rng=np.random.default_rng(2))
    assert np.isnan(out[:, 3]).all()
    grid, bound = 2.0, 2.0 + 10 * 2.0
    shifted = out[:, :3] - 10.0
    assert np.all((np.abs(shifted) == bound) | (np.round(shifted / grid) * grid == shifted))
    # 1e6 is clamped to the range's top, 12: the same law (a two-sample test cannot tell)
    from scipy import stats

    assert stats.ks_2samp(out[:, 1], out[:, 2]).pvalue > 1e-3
    assert stats.ks_2samp(out[:, 0], out[:, 1]).pvalue < 1e-6


# --- the snapping sampler's noise: Mironov's U* --------------------------------------------------


def test_standard_laplace_is_laplace_with_exact_binades_and_a_sign():
    from scipy import stats

    from crowdpriv.release import snap, snapped_laplace, standard_laplace, uniform_doubles

    rng = np.random.default_rng(11)
    draws = standard_laplace(rng, 200_000)
    assert stats.kstest(draws, stats.laplace.cdf).pvalue > 1e-3
    u = uniform_doubles(rng, 400_000)
    binade = -np.floor(np.log2(u)).astype(int)  # u in [2^−e, 2^(1−e))
    counts = np.bincount(binade, minlength=8)[1:8]
    want = 400_000 * 2.0 ** -np.arange(1, 8)
    assert stats.chisquare(counts, want * counts.sum() / want.sum()).pvalue > 1e-3
    # within a binade the mantissa is uniform: U* is a real uniform rounded down to a double
    within = u[binade == 3] * 8 - 1
    assert stats.kstest(within, "uniform").pvalue > 1e-3
    # the snapped sampler draws exactly these
    x = np.linspace(-3, 3, 50)
    np.testing.assert_array_equal(
        snapped_laplace(x, 2.5, bound=30.0, rng=np.random.default_rng(4)),
        snap(x, standard_laplace(np.random.default_rng(4), 50) * 2.5, 2.5, bound=30.0))


def test_uniform_doubles_follows_leading_zeros_across_words():
    """Scripted bits: a word with its top bit set is the binade [1/2, 1); an all-zero word adds
    53 leading zeros; the mantissa fills the binade; U* never reaches 0 or 1."""
    from crowdpriv.release import LAPLACE_REACH, uniform_doubles

    class Scripted:
        def __init__(self, *arrays):
            self.arrays = list(arrays)

        def integers(self, low, high, size, dtype):
            return np.asarray(self.arrays.pop(0), dtype=dtype).reshape(size)

    top, one = 2**52, 1
    words, refill, mantissa = [top, one, 0], [2**51], [0, 2**52 - 1, 0]
    u = uniform_doubles(Scripted(words, refill, mantissa), 3)
    assert u[0] == 0.5 and u[1] == (2.0 - 2.0**-52) * 2.0**-53 and u[2] == 2.0**-(53 + 2)
    assert LAPLACE_REACH == pytest.approx(-math.log(2.0**-1022))


def test_uniform_doubles_draws_53_and_52_bits_and_folds_the_binades_past_2_to_minus_1022():
    """Words are uniform on [0, 2^53), refills too, the mantissa on [0, 2^52); twenty all-zero
    words (1060 leading zeros, then a word 1 adds 52 more) land in the last normal binade
    [2^−1022, 2^−1021)."""
    from crowdpriv.release import uniform_doubles

    calls = []

    class Scripted:
        def __init__(self, *arrays):
            self.arrays = list(arrays)

        def integers(self, low, high, size, dtype):
            calls.append((low, high))
            return np.asarray(self.arrays.pop(0), dtype=dtype).reshape(size)

    u = uniform_doubles(Scripted([0], *([[0]] * 19), [1], [0]), 1)
    assert u[0] == 2.0**-1022
    assert calls == [(0, 2**53)] * 21 + [(0, 2**52)]


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_lp_snapped_exact_epsilon_as_run_is_within_theorem_1(eps):
    """LP's snapped release (k = 5 labels) as it runs, its output law counted over every draw
    of U* and both signs with the C library's log: the exact ε per cell lies between the ideal
    (|Γ| − 1)ε/|Γ| and Mironov's Theorem 1 bound (|Γ| − 1)ε/|Γ| + 2^−49 B ε/|Γ|."""
    from crowdpriv.floating_point import _Replay, snapped_exact_epsilon, snapped_output_law
    from crowdpriv.mechanisms.lp_snapped import lp_release

    k = 5

    def run(value, draw):
        return float(lp_release(np.array([[value]]), eps, k, _Replay([draw]))[0, 0])

    exact = snapped_exact_epsilon(run, [float(v) for v in range(k)])
    bound = (k - 1) / 2 + 10 * k / eps
    theorem = (k - 1) * eps / k + 2.0**-49 * bound * eps / k
    assert (k - 1) * eps / k <= exact <= theorem
    law = snapped_output_law(run, 0.0)
    assert min(law) == -bound + 2 and max(law) == bound + 2  # the clamps, around the centre 2

    def unsnapped(value, draw):  # the same noise without the grid: outputs differ per input
        return value + draw * k / eps

    with pytest.raises(ValueError, match="not a release on a grid"):
        snapped_output_law(unsnapped, 0.0, binades=4)

    def unclamped(value, draw):  # snapped but never clamped: the far tail is no single output
        return 8.0 * np.round((value + draw * k / eps) / 8.0)

    with pytest.raises(ValueError, match="clamp"):
        snapped_output_law(unclamped, 0.0, binades=4)


def test_snapping_epsilon_needs_scale_below_bound_below_2_to_46_scales():
    """Theorem 1's range λ < B < 2^46 λ, both ends open; inside it ε = Δ/λ + 2^−49 B/λ."""
    from crowdpriv.release import snapping_epsilon

    for bound in (2.0, 2.0**46 * 2.0):  # λ = 2: B = λ and B = 2^46 λ are outside
        with pytest.raises(ValueError, match="2\\^46"):
            snapping_epsilon(1.0, 2.0, bound)
    assert snapping_epsilon(1.0, 2.0, 3.0) == 0.5 + 2.0**-49 * 1.5
    assert snapping_epsilon(2.0, 2.0, 2.0**46 * 1.5) == 1.0 + 2.0**-49 * 2.0**45 * 1.5
