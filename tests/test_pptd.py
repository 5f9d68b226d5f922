"""Unit tests of the PPTD core (Li et al., KDD 2018): truth discovery, mechanism, theory."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crowdpriv.pptd import (
    average_noise,
    crh,
    crh_weights,
    epsilon_from_lambda2,
    estimate_lambda1,
    summarise_tradeoff,
    expected_average_noise,
    expected_y,
    gamma_s,
    generate_synthetic,
    gtm,
    lambda2_from_epsilon,
    lemma48_probability,
    perturb,
    synthetic_tradeoff,
    truth_discovery,
    utility_alpha,
    utility_alpha_lower,
    utility_c_upper,
)

METHODS = [crh, gtm]


# --- truth discovery -----------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_noise_free_data_recovers_truth(method):
    truth = np.array([1.0, -3.0, 10.0, 0.5])
    claims = np.tile(truth, (6, 1))
    res = method(claims)
    np.testing.assert_allclose(res.truths, truth, atol=1e-9)
    assert res.converged
    # missing claims do not matter when everybody tells the truth
    claims[0, 1] = claims[3, 2] = np.nan
    np.testing.assert_allclose(method(claims).truths, truth, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_reliable_user_outweighs_noisy_user(method):
    rng = np.random.default_rng(0)
    truth = rng.uniform(0, 10, 40)
    sd = np.array([0.05] + [1.0] * 8 + [5.0])
    claims = truth + sd[:, None] * rng.standard_normal((10, 40))
    res = method(claims)
    assert res.weights[0] > res.weights[5] > res.weights[-1]
    # the weighted truth beats the plain mean
    assert np.abs(res.truths - truth).mean() < np.abs(claims.mean(0) - truth).mean()


@pytest.mark.parametrize("method", METHODS)
def test_batch_equals_separate_runs(method):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 12, 7)) * rng.uniform(0.1, 3, size=(3, 12, 1))
    x[1, 2, 3] = np.nan
    batch = method(x, tol=1e-8)
    for i in range(3):
        one = method(x[i], tol=1e-8)
        np.testing.assert_allclose(batch.truths[i], one.truths, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(batch.weights[i], one.weights, rtol=1e-12)
        assert batch.iterations[i] == one.iterations


def test_crh_weights_formula_by_hand():
    # two objects with claim std 1 and 2 (population std); truths 0, 0
    claims = np.array([[1.0, 2.0], [-1.0, -2.0]])
    truths = np.zeros(2)
    # d = x^2 / std: user losses 1/1 + 4/2 = 3 each -> share 1/2 -> w = log 2
    np.testing.assert_allclose(crh_weights(claims, truths), [math.log(2)] * 2, rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 8),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["crh", "gtm"]),
)
def test_truth_inside_claim_range_and_weights_positive(s, n, seed, method):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(s, n)) * rng.uniform(0.01, 10, size=(s, 1))
    res = truth_discovery(x, method=method)
    lo, hi = x.min(0), x.max(0)
    span = hi - lo
    if method == "crh":
        assert np.all(res.truths >= lo - 1e-9 * (1 + span)) and np.all(
            res.truths <= hi + 1e-9 * (1 + span)
        )
    assert np.all(res.weights >= 0) and np.all(np.isfinite(res.weights))


def test_truth_discovery_rejects_bad_input():
    with pytest.raises(ValueError, match="method"):
        truth_discovery(np.ones((2, 2)), method="mean")
    with pytest.raises(ValueError, match="tol"):
        crh(np.ones((2, 2)), tol=-1)
    with pytest.raises(ValueError, match="max_iter"):
        gtm(np.ones((2, 2)), max_iter=0)
    with pytest.raises(ValueError, match="alpha"):
        gtm(np.ones((2, 2)), alpha=0)
    with pytest.raises(ValueError, match="at least one claim"):
        crh(np.array([[1.0, np.nan], [2.0, np.nan]]))


# --- mechanism (Alg. 2) --------------------------------------------------------------------


def test_mechanism_variance_matches_lambda2():
    lam2 = 0.5
    rng = np.random.default_rng(7)
    x = np.zeros((20_000, 40))
    p = perturb(x, lam2, rng=rng)
    # δ_s² ~ Exp(λ2): mean 1/λ2, variance 1/λ2²
    assert p.variance.shape == (20_000,)
    assert abs(p.variance.mean() - 1 / lam2) < 0.03 * (1 / lam2)
    assert abs(p.variance.var() - 1 / lam2**2) < 0.08 / lam2**2
    # the added noise has variance E[δ²] = 1/λ2 and mean |ξ| = 1/sqrt(2 λ2)
    assert abs(p.noise.var() - 1 / lam2) < 0.03 / lam2
    assert abs(average_noise(p.noise) - expected_average_noise(lam2)) < 0.02
    # within one user the noise is N(0, δ_s²)
    per_user = p.noise.var(axis=1, ddof=1) / p.variance
    assert abs(per_user.mean() - 1) < 0.01


def test_mechanism_sweep_shares_draws_and_keeps_missing():
    x = np.array([[1.0, np.nan], [2.0, 3.0]])
    p = perturb(x, [1.0, 4.0], rng=np.random.default_rng(0))
    assert p.claims.shape == (2, 2, 2)
    assert np.isnan(p.claims[:, 0, 1]).all()
    np.testing.assert_allclose(p.variance[0], 4 * p.variance[1])
    np.testing.assert_allclose(p.noise[0, 1], 2 * p.noise[1, 1])


@pytest.mark.parametrize("lam2", [0.0, -1.0, float("nan"), float("inf")])
def test_mechanism_rejects_bad_lambda2(lam2):
    with pytest.raises(ValueError, match="lam2"):
        perturb(np.zeros((2, 2)), lam2, rng=np.random.default_rng(0))


# --- theory (Theorem 4.10, Lemma 4.8, Theorem 4.3) -----------------------------------------


def test_epsilon_matches_hand_computation_of_theorem_4_10():
    # b = 2, η = 0.9, δ = 0.1, λ1 = 2, λ2 = 0.5  ->  c = λ1/λ2 = 4
    # γ_s² = b² · 2 ln(1/(1-η)) = 4 · 2 · ln 10 = 18.420680743952367
    # ε = γ_s² / (2 λ1 c ln(1/(1-δ))) = 18.42068 / (2·2·4·ln(10/9)) = 10.927172663391412
    assert gamma_s(2, 0.9) ** 2 == pytest.approx(18.420680743952367, rel=1e-12)
    eps = epsilon_from_lambda2(2.0, 0.5, b=2, eta=0.9, delta=0.1)
    assert eps == pytest.approx(10.927172663391412, rel=1e-12)
    # more noise (smaller λ2) -> smaller ε; larger λ1 -> smaller ε for the same λ2
    assert epsilon_from_lambda2(2.0, 0.25, b=2, eta=0.9, delta=0.1) == pytest.approx(eps / 2)
    assert epsilon_from_lambda2(4.0, 0.5, b=2, eta=0.9, delta=0.1) == pytest.approx(eps / 4)


@settings(max_examples=50, deadline=None)
@given(
    st.floats(1e-3, 1e3),
    st.floats(1e-2, 1e2),
    st.floats(0.1, 5),
    st.floats(0.01, 0.99),
    st.floats(0.01, 0.99),
)
def test_lambda2_from_epsilon_inverts_theorem_4_10(eps, lam1, b, eta, delta):
    lam2 = lambda2_from_epsilon(eps, lam1, b=b, eta=eta, delta=delta)
    back = epsilon_from_lambda2(lam1, lam2, b=b, eta=eta, delta=delta)
    assert back == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(b=0, eta=0.9, delta=0.1), "b"),
        (dict(b=-1, eta=0.9, delta=0.1), "b"),
        (dict(b=2, eta=1.0, delta=0.1), "eta"),
        (dict(b=2, eta=0.0, delta=0.1), "eta"),
        (dict(b=2, eta=0.9, delta=0.0), "delta"),
        (dict(b=2, eta=0.9, delta=1.0), "delta"),
    ],
)
def test_theory_rejects_bad_constants(kwargs, name):
    with pytest.raises(ValueError, match=name):
        epsilon_from_lambda2(2.0, 0.5, **kwargs)


@pytest.mark.parametrize("lam1, lam2, name", [(0, 1, "lam1"), (-2, 1, "lam1"), (2, 0, "lam2")])
def test_theory_rejects_bad_lambdas(lam1, lam2, name):
    with pytest.raises(ValueError, match=name):
        epsilon_from_lambda2(lam1, lam2, b=2, eta=0.9, delta=0.1)
    with pytest.raises(ValueError, match="epsilon"):
        lambda2_from_epsilon(0.0, 2.0, b=2, eta=0.9, delta=0.1)


def test_lemma_4_8_probability():
    assert lemma48_probability(2, 0.9) == pytest.approx(0.9 * (1 - math.exp(-2)), rel=1e-12)
    assert lemma48_probability(1, 0.9) < 0  # b = 1 makes the lemma vacuous


def test_utility_bound_of_theorem_4_3_by_hand():
    # C = λ1 √π (α²βS²/(4√2) + α²√π/8 + α + 2/√π) - 2, λ1 = 2, α = 1, β = 0.1, S = 10
    assert utility_c_upper(2.0, 1.0, 0.1, 10) == pytest.approx(12.596876551785979, rel=1e-12)
    # printed α_{λ1,c} for λ1 = 2, c = 1/2 by hand:
    # 2√2/(√2 · 0.5) · (3/4 - 0.5(0.5 + √0.5 + 1)/(√2 (1 + √0.5)))
    c = 0.5
    hand = 4 * (0.75 - c * (c + math.sqrt(c) + 1) / (math.sqrt(2) * (1 + math.sqrt(c))))
    assert utility_alpha_lower(2.0, c) == pytest.approx(hand, rel=1e-12)
    # the α returned satisfies both conditions of the theorem
    a = float(utility_alpha(2.0, 30.0, 0.1, 10))
    assert a >= utility_alpha_lower(2.0, 30.0)
    assert utility_c_upper(2.0, a, 0.1, 10) >= 30.0 - 1e-9


def test_theorem_4_3_pieces_pinned_by_value():
    """Each piece of Theorem 4.3 at values where no factor is 1 (α = 2, S = 10, β = 0.1)."""
    lam1, alpha, beta, n = 2.0, 2.0, 0.1, 10
    hand = lam1 * math.sqrt(math.pi) * (alpha**2 * beta * n**2 / (4 * math.sqrt(2))
                                        + alpha**2 * math.sqrt(math.pi) / 8 + alpha
                                        + 2 / math.sqrt(math.pi)) - 2
    assert utility_c_upper(lam1, alpha, beta, n) == pytest.approx(hand, rel=1e-12)
    # Theorem A.1 at c = 1 (the printed general form divides by 1 − c there)
    assert utility_alpha_lower(lam1, 1.0) == pytest.approx(15 * math.sqrt(2 * lam1) / 8,
                                                           rel=1e-12)
    assert utility_alpha_lower(lam1, 1.2) != pytest.approx(15 * math.sqrt(2 * lam1) / 8)
    # the exact form: α/2 = √(2/π) E(Y), E(Y) in closed form with s = √c
    c = 2.0
    sc = math.sqrt(c)
    ey = math.sqrt(math.pi) / 2 * (sc**3 + 2 * sc**2 + 3 * sc + 1.5) / ((1 + sc) ** 2
                                                                       * math.sqrt(lam1))
    assert ey == pytest.approx(1.3516, abs=1e-4)  # the docstring's example
    assert utility_alpha_lower(lam1, c, form="exact") == pytest.approx(
        2 * math.sqrt(2 / math.pi) * ey, rel=1e-12)
    # utility_alpha: where the second condition binds (small λ1), its α solves C(α) = c
    for small, c, b, s_users in ((0.001, 0.5, 0.001, 1), (0.001, 0.5, 0.1, 2),
                                 (0.001, 0.5, 0.01, 3), (0.001, 0.01, 0.001, 2)):
        a = float(utility_alpha(small, c, b, s_users))
        assert a > utility_alpha_lower(small, c)
        assert utility_c_upper(small, a, b, s_users) == pytest.approx(c, rel=1e-9)
    # where α_{λ1,c} binds, it is returned, also below 1 (λ1 = 20, c = 0.01: the root is < 0)
    for big, c in ((lam1, 0.5), (20.0, 0.01)):
        assert float(utility_alpha(big, c, beta, n)) == pytest.approx(
            float(utility_alpha_lower(big, c)), rel=1e-12)
    assert float(utility_alpha_lower(20.0, 0.01)) < 1
    for bad in (dict(beta=0.0), dict(beta=1.5), dict(n_users=0)):
        with pytest.raises(ValueError):
            utility_alpha(lam1, 2.0, bad.get("beta", beta), bad.get("n_users", n))
    assert float(utility_alpha(lam1, 2.0, 1.0, 1)) > 0  # β = 1 and S = 1 allowed
    for bad in (dict(beta=-0.1), dict(beta=1.5), dict(n_users=0)):
        with pytest.raises(ValueError):
            utility_c_upper(lam1, alpha, bad.get("beta", beta), bad.get("n_users", n))
    assert utility_c_upper(lam1, alpha, 1.0, 1) > utility_c_upper(lam1, alpha, 0.0, 1)


def test_expected_y_matches_monte_carlo():
    rng = np.random.default_rng(3)
    lam1, lam2 = 2.0, 1.0
    n = 400_000
    y = np.sqrt(rng.exponential(1 / lam1, (2, n)).sum(0) + rng.exponential(1 / lam2, n))
    assert expected_y(lam1, lam2) == pytest.approx(y.mean(), rel=5e-3)
    # E(Y²) = (2λ2 + λ1)/(λ1 λ2) as the paper states
    assert (y**2).mean() == pytest.approx((2 * lam2 + lam1) / (lam1 * lam2), rel=1e-2)


@pytest.mark.parametrize("lam1", [1e-3, 0.06, 1.0, 2.0, 1e4])
@pytest.mark.parametrize("c", [1e-6, 0.1, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 3.0, 1e6])
def test_expected_y_closed_form_matches_quadrature(lam1, c):
    """The closed form against E√X = (1/(2√π)) ∫ (1 − E e^{−tX}) t^{−3/2} dt by quadrature
    (written here apart from it), at every noise level c = λ1/λ2, c = 1 and next to it."""
    from scipy.integrate import quad

    lam2 = lam1 / c

    def integrand(u):  # t = u², dt = 2u du
        t = u * u
        return 2 * u * (1.0 - (lam1 / (lam1 + t)) ** 2 * lam2 / (lam2 + t)) * t**-1.5

    # in pieces split at the two rates' scales (u² = λ), where the integrand bends
    cuts = [0.0, *sorted({np.sqrt(lam1), np.sqrt(lam2)}), np.inf]
    want = sum(quad(integrand, a, b, limit=400, epsabs=0, epsrel=1e-12)[0]
               for a, b in zip(cuts, cuts[1:])) / (2 * np.sqrt(np.pi))
    assert expected_y(lam1, lam2) == pytest.approx(want, rel=1e-9)


def test_expected_y_limits():
    """λ1 = λ2: X ~ Gamma(3, λ1), E√X = Γ(7/2)/(Γ(3)√λ1); λ2 → ∞ (no noise): Gamma(2, λ1)."""
    assert expected_y(2.0, 2.0) == pytest.approx(math.gamma(3.5) / (2 * math.sqrt(2.0)), rel=1e-15)
    assert expected_y(2.0, 1e300) == pytest.approx(math.gamma(2.5) / math.sqrt(2.0), rel=1e-12)


# --- synthetic data and experiments ---------------------------------------------------------


def test_generate_synthetic_shapes_and_error_variance():
    d = generate_synthetic(150, 30, 2.0, n_datasets=50, rng=np.random.default_rng(0))
    assert d.claims.shape == (50, 150, 30) and d.truths.shape == (50, 30)
    assert abs(d.error_variance.mean() - 0.5) < 0.03
    resid = d.claims - d.truths[:, None, :]
    np.testing.assert_allclose(resid.var(axis=2).mean(), d.error_variance.mean(), rtol=0.05)
    with pytest.raises(ValueError, match="lam1"):
        generate_synthetic(10, 5, 0.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_users"):
        generate_synthetic(0, 5, 1.0, rng=np.random.default_rng(0))


def test_estimate_lambda1_recovers_rate():
    d = generate_synthetic(2000, 200, 4.0, rng=np.random.default_rng(5))
    assert estimate_lambda1(d.claims[0], d.truths[0]) == pytest.approx(4.0, rel=0.08)


def _small_sweep(seed, method="crh"):
    return synthetic_tradeoff(
        seed=seed, workers=40, lam1=2.0, tasks=10, epsilons=[1.0, 10.0], repetitions=4,
        b=2, eta=0.9, delta=0.1, method=method,
    )


def test_sweep_is_deterministic_per_repetition_and_mae_grows_with_noise():
    a, b = _small_sweep(11), _small_sweep(11)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(_small_sweep(12))
    assert len(a) == 2 * 4 and sorted(set(a["rep"])) == [0, 1, 2, 3]
    wide = a.pivot(index="rep", columns="epsilon", values="mae")
    assert (wide[1.0] > wide[10.0]).all()  # same data, more noise: larger MAE per repetition
    summary = summarise_tradeoff(a)
    mean = summary.set_index(["measure", "epsilon"])["mean"]
    assert mean["mae", 1.0] == pytest.approx(wide[1.0].mean())
    assert set(summary["R"]) == {4}
    assert mean["mae_ge_alpha_exact", 1.0] == 0.0  # α >> MAE: no repetition outside the bound


def test_runtime_study_rows_iterations_and_timings():
    from crowdpriv.pptd import runtime_study

    work, timings = runtime_study(seed=3, workers=20, tasks=5, lam1=2.0, epsilons=[1.0, 10.0],
                                  repetitions=3, timing_calls=5, b=2, eta=0.9, delta=0.1)
    assert list(work["condition"][:3]) == ["original", "perturbed", "perturbed"]
    assert len(work) == 3 * 3 and (work["iterations"] >= 1).all()
    assert (work.loc[work["condition"] == "original", "noise"] == 0).all()
    assert (timings["calls"] == 5).all() and (timings["seconds"] > 0).all()
    assert (timings["min_seconds"] <= timings["seconds"]).all()
    again, _ = runtime_study(seed=3, workers=20, tasks=5, lam1=2.0, epsilons=[1.0, 10.0],
                             repetitions=3, timing_calls=5, b=2, eta=0.9, delta=0.1)
    pd.testing.assert_frame_equal(work, again)  # the iterations are deterministic
    untimed, no_timings = runtime_study(seed=3, workers=20, tasks=5, lam1=2.0,
                                        epsilons=[1.0, 10.0], repetitions=3, timing_calls=5,
                                        b=2, eta=0.9, delta=0.1, timed_calls=False)
    pd.testing.assert_frame_equal(work, untimed)  # what a reading's re-run judges
    assert no_timings.empty
    with pytest.raises(ValueError, match="timing_calls"):
        runtime_study(seed=3, workers=20, tasks=5, lam1=2.0, epsilons=[1.0], repetitions=1,
                      timing_calls=4, b=2, eta=0.9, delta=0.1)


def test_weight_comparison_agrees_with_true_weights_on_synthetic_data():
    from crowdpriv.pptd import weight_comparison

    d = generate_synthetic(60, 40, 2.0, rng=np.random.default_rng(9))
    x = d.claims[0].copy()
    x[np.random.default_rng(1).random(x.shape) < 0.3] = np.nan
    shown, perturbed, original = weight_comparison(
        x, d.truths[0], seed=1, dataset="syn", epsilon=10.0, lam1=2.0, b=2, eta=0.9, delta=0.1,
        repetitions=5)
    assert len(shown) == 14 and shown["user"].nunique() == 7
    assert (shown.loc[shown.panel == "original", "noise_variance"] == 0).all()
    assert len(perturbed) == 5 and len(original) == 1
    assert original["spearman_estimated_true"].item() > 0.8
    assert (perturbed["spearman_noise_variance_weight_change"] < 0).all()
    # weighted aggregation beats the naive mean on data with unequal worker quality
    assert original["mae_crh"].item() < original["mae_mean"].item()
    assert (perturbed["mae_crh"] < perturbed["mae_mean"]).all()
    with pytest.raises(ValueError, match="min_claims"):
        weight_comparison(x, d.truths[0], seed=1, dataset="syn", epsilon=10.0, lam1=2.0,
                          b=2, eta=0.9, delta=0.1, min_claims=41)


def test_spearman_is_scipy_spearmanr_bit_for_bit():
    # weight_comparison's rank correlation without importing scipy.stats: the same bits as
    # scipy.stats.spearmanr, ties (average ranks), ±0, constant samples and NaN included
    import warnings

    from scipy.stats import spearmanr

    from crowdpriv.pptd._experiments import _spearman

    rng = np.random.default_rng(28)
    for n in [2, 3, 7, 50, 143]:
        for t in range(60):
            a, b = rng.normal(size=n), rng.normal(size=n)
            b += a * rng.uniform()
            if t % 3 == 0:
                a, b = np.round(a, 1), np.round(3 * b)
            if t % 7 == 0:
                a = np.ones(n)
            if t % 11 == 0:
                b[0] = np.nan
            if t % 13 == 0:
                a[:2] = [0.0, -0.0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = spearmanr(a, b).statistic
            assert np.float64(_spearman(a, b)).tobytes() == np.float64(expected).tobytes()
