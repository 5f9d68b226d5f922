"""Unit tests of the LDP-sparse core (Sun et al., IEEE BigData 2018)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

import crowdpriv.ldp_sparse as L
from crowdpriv import mechanisms as M
from crowdpriv.mechanisms import lp as lpm
from crowdpriv.mechanisms import mf as mfm
from crowdpriv.mechanisms import rr as rrm
from crowdpriv.mechanisms import two_layer as twom
from crowdpriv.seeds import derive_rng


def rng(*keys):
    return derive_rng(12345, "test_ldp_sparse", *keys)


# ---------------------------------------------------------------- published numbers


def test_paper_example_bounds():
    b = L.paper_example_bounds()
    assert b["LP"] == pytest.approx(14.13, abs=0.01)
    assert b["RR"] == pytest.approx(3.551, abs=0.01)
    assert b["MF"] == pytest.approx(1.8, abs=0.01)


def test_rr_bound_literal_pdf_differs_from_paper():
    # The raw density (no renormalisation over Γ) misses the printed 3.551: documents why the
    # default renormalises.
    q = np.full(10, 0.1)
    val = L.rr_error_bound(
        quality=q, answered_fraction=0.1, sigma=1.0, truth=np.zeros(5), domain_size=10,
        epsilon=1.0, weights="pdf",
    )
    assert val == pytest.approx(3.437, abs=0.001)


def test_bounds_shrink_with_epsilon_and_density():
    kw = dict(quality=np.full(4, 0.25), sigma=1.0, truth=np.zeros(3), domain_size=10)
    assert L.lp_error_bound(answered_fraction=0.1, epsilon=2.0, **kw) < L.lp_error_bound(
        answered_fraction=0.1, epsilon=1.0, **kw
    )
    assert L.lp_error_bound(answered_fraction=0.9, epsilon=1.0, **kw) < L.lp_error_bound(
        answered_fraction=0.1, epsilon=1.0, **kw
    )
    assert L.rr_error_bound(answered_fraction=0.1, epsilon=5.0, **kw) < L.rr_error_bound(
        answered_fraction=0.1, epsilon=1.0, **kw
    )


def test_rr_bounds_over_epsilons_equal_the_bound_at_each_epsilon():
    # the ε-independent worker sums are done once; each ε must give Theorem 3 as evaluated alone
    r = rng("rr_bounds")
    m, n = 40, 30
    answered = r.random((m, n)) < 0.4
    kw = dict(quality=r.random(m), answered_fraction=answered.mean(1),
              sigma=r.uniform(0.5, 4, m), truth=r.integers(0, 10, n).astype(float),
              domain_size=10)
    epsilons = [0.1, 0.5, 1.0, 3.0, 20.0]
    for answers in (None, answered):
        together = L.rr_error_bounds(epsilons=epsilons, answered=answers, **kw)
        alone = [L.rr_error_bound(epsilon=e, answered=answers, **kw) for e in epsilons]
        np.testing.assert_allclose(together, alone, rtol=1e-12)


def test_laplace_noise_is_laplace():
    # E1 − E2 with E1, E2 ~ Exp(1) is Lap(0, 1); scaled by b, in the requested dtype
    b = 2.5
    x = M.laplace_noise(rng("lap"), (200_000,), b, dtype=np.float32)
    assert x.dtype == np.float32
    assert stats.kstest(x.astype(np.float64), stats.laplace(scale=b).cdf).pvalue > 1e-3
    y = M.laplace_noise(rng("lap64"), (3, 4), 1.0, dtype=np.float64)
    assert y.shape == (3, 4) and y.dtype == np.float64


# ---------------------------------------------------------------- mechanisms


def test_rr_keep_and_flip_probabilities():
    k, eps, n = 10, 1.0, 400_000
    a = np.full((1, n), 3.0)
    a[0, : n // 2] = np.nan  # half NULL
    out = rrm.rr_perturb(a, eps, rng=rng("rr"), domain_size=k)
    p_keep = np.exp(eps) / (k + np.exp(eps))
    p_flip = 1 / (k + np.exp(eps))
    for src, sl in (("null", slice(0, n // 2)), ("three", slice(n // 2, n))):
        vals = out[0, sl]
        codes = np.where(np.isnan(vals), k, vals).astype(int)
        freq = np.bincount(codes, minlength=k + 1) / codes.size
        kept = k if src == "null" else 3
        se_keep = np.sqrt(p_keep * (1 - p_keep) / codes.size)
        se_flip = np.sqrt(p_flip * (1 - p_flip) / codes.size)
        assert abs(freq[kept] - p_keep) < 5 * se_keep
        others = np.delete(freq, kept)
        assert np.all(np.abs(others - p_flip) < 5 * se_flip), (src, others)
    assert rrm.rr_keep_probability(1.0, 10) == pytest.approx(p_keep)


def test_lp_noise_scale_is_domain_over_epsilon():
    k, eps = 10, 0.5
    a = np.full((200, 1000), 2.0)
    out = lpm.lp_perturb(a, eps, rng=rng("lp"), domain_size=k)
    noise = (out - a).ravel().astype(np.float64)
    scale = k / eps
    assert np.mean(np.abs(noise)) == pytest.approx(scale, rel=0.01)
    assert stats.kstest(noise[:20000], "laplace", args=(0, scale)).pvalue > 1e-3
    # a wrong scale is rejected: the test can fail
    assert stats.kstest(noise[:20000], "laplace", args=(0, 1.1 * scale)).pvalue < 1e-3


def test_lp_null_fill_uniform_and_constant():
    a = np.full((500, 400), np.nan)
    out = lpm.lp_perturb(a, 1e6, rng=rng("lpnull"), domain_size=10)
    vals = np.rint(out).astype(int).ravel()
    freq = np.bincount(vals, minlength=10) / vals.size
    assert np.allclose(freq, 0.1, atol=0.005)
    out_c = lpm.lp_perturb(a, 1e6, rng=rng("lpnull"), domain_size=10, null_fill=0)
    assert np.allclose(out_c, 0, atol=1e-3)


def test_two_layer_budgets_that_run_are_uniform_on_zero_to_twice_epsilon():
    """The sampler that runs (two_layer_draws' multipliers, ε_i = ε·multiplier) gives
    ε_i ~ U(0, 2ε) at spread 1 (Sec. VI-D: uniform with mean ε); U(0, ε) would be rejected."""
    codes = np.zeros((100_000, 1), np.int8)
    mult, _ = twom.two_layer_draws(codes, rng=rng("2l"))
    eps_i = 2.0 * mult
    assert eps_i.min() >= 0 and eps_i.max() <= 4.0
    assert eps_i.mean() == pytest.approx(2.0, rel=0.01)
    assert stats.kstest(eps_i, stats.uniform(0, 4).cdf).pvalue > 1e-3
    assert stats.kstest(eps_i / 2, stats.uniform(0, 4).cdf).pvalue < 1e-6  # U(0, ε): rejected
    out = twom.two_layer_perturb(np.full((50, 20), np.nan), 1.0, rng=rng("2l"), domain_size=5)
    assert out.shape == (50, 20)


def test_mf_solution_minimises_perturbed_objective():
    r = rng("mf")
    n, d, k = 60, 5, 10
    v = mfm.draw_task_profiles(n, d, rng=r)
    assert np.allclose(np.abs(v).sum(0), 1.0)
    a = r.integers(0, k, size=(3, n)).astype(float)
    a[r.random((3, n)) < 0.5] = np.nan
    prep = mfm.mf_prepare(a, v, domain_size=k)
    _, u, eta = mfm.mf_perturb_prepared(prep, 1.0, rng=r, return_u=True)
    for i in range(3):
        f = lambda x, i=i: mfm.mf_objective(a[i], x, v, eta[i])  # noqa: E731
        res = optimize.minimize(f, np.zeros(d), method="BFGS", options={"gtol": 1e-10})
        assert f(u[i]) <= res.fun + 1e-6 * max(1.0, abs(res.fun))
        assert np.allclose(u[i], res.x, rtol=1e-3, atol=1e-3 * np.abs(res.x).max())


def test_mf_minimum_norm_when_fewer_answers_than_d():
    r = rng("mfmin")
    n, d = 30, 8
    v = mfm.draw_task_profiles(n, d, rng=r)
    a = np.full((1, n), np.nan)
    a[0, :3] = [1, 2, 3]
    prep = mfm.mf_prepare(a, v, domain_size=5)
    _, u, eta = mfm.mf_perturb_prepared(prep, 1.0, rng=r, return_u=True)
    vt = v[:, :3]
    expect = np.linalg.pinv(vt @ vt.T) @ (vt @ a[0, :3] - eta[0])
    assert np.allclose(u[0], expect, rtol=1e-6, atol=1e-8)


def test_mf_output_is_dense_and_reproduces_constant_answers_without_noise():
    r = rng("mfconst")
    a = np.full((4, 50), 3.0)
    a[r.random((4, 50)) < 0.6] = np.nan
    out = mfm.mf_perturb(a, 1e9, rng=r, domain_size=10, d=6)
    assert not np.isnan(out).any()
    assert np.allclose(out, 3.0, atol=1e-3)


# ---------------------------------------------------------------- truth inference


def test_truth_inference_noise_free_returns_truth():
    r = rng("ti")
    truth = r.integers(0, 10, size=300).astype(float)
    a = np.tile(truth, (40, 1))
    a[r.random(a.shape) < 0.8] = np.nan
    a[0, :] = truth  # every task answered at least once
    res = L.infer_truth(a)
    assert np.allclose(res.truth, truth, atol=1e-5)
    assert L.mae(truth, res.truth) < 1e-5


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    m=st.integers(2, 12),
    n=st.integers(1, 15),
    sparsity=st.floats(0, 0.9),
)
def test_truth_inference_invariants(seed, m, n, sparsity):
    r = np.random.default_rng(seed)
    a = r.integers(0, 5, size=(m, n)).astype(float)
    a[r.random((m, n)) < sparsity] = np.nan
    res = L.infer_truth(a, dtype=np.float64)
    answered = ~np.isnan(a).all(0)
    assert np.all(np.isnan(res.truth[~answered]))
    lo, hi = np.nanmin(np.where(answered, a, 0), 0), np.nanmax(np.where(answered, a, 0), 0)
    t = res.truth[answered]
    assert np.all(t >= lo[answered] - 1e-9) and np.all(t <= hi[answered] + 1e-9)
    assert res.quality.sum() == pytest.approx(1.0 if answered.any() else 0.0)
    assert np.all(res.quality[np.isnan(a).all(1)] == 0)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), eps=st.floats(0.05, 8), k=st.integers(2, 10))
def test_rr_output_stays_in_domain_or_null(seed, eps, k):
    r = np.random.default_rng(seed)
    a = r.integers(0, k, size=(5, 40)).astype(float)
    a[r.random(a.shape) < 0.5] = np.nan
    out = rrm.rr_perturb(a, eps, rng=r, domain_size=k)
    vals = out[~np.isnan(out)]
    assert np.all((vals >= 0) & (vals <= k - 1) & (vals == np.rint(vals)))


def test_truth_inference_batched_equals_individual():
    r = rng("batch")
    stack = np.stack([L.generate_synthetic(60, 30, 0.5, rng=r).answers for _ in range(3)])
    res = L.infer_truth(stack)
    for b in range(3):
        one = L.infer_truth(stack[b])
        assert np.array_equal(one.truth, res.truth[b])
        assert one.iterations == res.iterations[b]


def test_truth_inference_downweights_noisy_workers():
    d = L.generate_synthetic(400, 200, 0.3, rng=rng("q"), sigma_low=5.0, sigma_high=1.0)
    res = L.infer_truth(d.answers)
    assert res.quality[d.sigma == 1].mean() > 2 * res.quality[d.sigma == 5].mean()


def test_mae_and_mae_change():
    truth = np.array([0.0, 1.0, np.nan, 2.0])
    assert L.mae(truth, [0.0, 2.0, 5.0, np.nan]) == pytest.approx(0.5)
    assert L.mae(truth, [0.0, 2.0, 5.0, np.nan], fill_value=4.0) == pytest.approx(1.0)
    assert L.mae_change(truth, [0, 1, 0, 2], [1, 1, 0, 2]) == pytest.approx(1 / 3)


# ---------------------------------------------------------------- synthetic data


def test_generate_synthetic_shape_sparsity_and_quality_split():
    d = L.generate_synthetic(100, 50, 0.9, rng=rng("gen"))
    answered = ~np.isnan(d.answers)
    assert np.all(answered.sum(1) == 5)
    vals = d.answers[answered]
    assert np.all((vals >= 0) & (vals <= 9) & (vals == np.rint(vals)))
    assert (d.sigma == 1).sum() == 50 and (d.sigma == 5).sum() == 50
    assert np.all((d.truth >= 0) & (d.truth <= 9))
    again = L.generate_synthetic(100, 50, 0.9, rng=rng("gen"))
    assert np.array_equal(d.answers, again.answers, equal_nan=True)


# ---------------------------------------------------------------- invalid parameters


@pytest.mark.parametrize("eps", [0, -1.0, float("nan"), float("inf")])
def test_invalid_epsilon(eps):
    a = np.zeros((2, 3))
    for f in (lpm.lp_perturb, rrm.rr_perturb, twom.two_layer_perturb):
        with pytest.raises(ValueError, match="epsilon"):
            f(a, eps, rng=rng("bad"), domain_size=5)
    with pytest.raises(ValueError, match="epsilon"):
        mfm.mf_perturb(a, eps, rng=rng("bad"), domain_size=5, d=2)


@pytest.mark.parametrize("sparsity", [1.0, -0.1, 1.5, "x"])
def test_invalid_sparsity(sparsity):
    with pytest.raises(ValueError, match="sparsity"):
        L.generate_synthetic(10, 10, sparsity, rng=rng("bad"))


@pytest.mark.parametrize("k", [1, 0, 2.5])
def test_invalid_domain(k):
    with pytest.raises(ValueError, match="domain_size"):
        rrm.rr_perturb(np.zeros((2, 2)), 1.0, rng=rng("bad"), domain_size=k)
    with pytest.raises(ValueError, match="domain_size"):
        L.lp_error_bound(
            quality=[1.0], answered_fraction=0.5, sigma=1, truth=[0], domain_size=k, epsilon=1
        )


def test_answers_outside_domain_rejected():
    with pytest.raises(ValueError, match="domain_size=5"):
        rrm.rr_perturb(np.array([[0.0, 7.0]]), 1.0, rng=rng("bad"), domain_size=5)


@pytest.mark.parametrize("d", [0, -3, 1.5])
def test_invalid_d(d):
    with pytest.raises(ValueError, match="d must"):
        mfm.mf_perturb(np.zeros((2, 4)), 1.0, rng=rng("bad"), domain_size=5, d=d)
    with pytest.raises(ValueError, match="d must"):
        L.mf_error_bound(quality=[1.0], n_tasks=10, d=d, domain_size=5, epsilon=1)


def test_profiles_must_respect_l1_constraint():
    with pytest.raises(ValueError, match="l1_norm"):
        mfm.draw_task_profiles(5, 2, rng=rng("bad"), l1_norm=1.5)
    with pytest.raises(ValueError, match=r"\|\|v_j\|\|_1"):
        mfm.mf_prepare(np.zeros((1, 3)), np.ones((2, 3)), domain_size=5)


def test_rr_bound_vectorised_matches_direct_sum():
    r = rng("rrbound")
    m, n, k, eps = 7, 9, 10, 0.7
    q, s, sig = r.random(m), r.random(m), r.random(m) + 0.5
    mu = r.integers(0, k, n).astype(float)
    w = r.random((m, n)) < 0.5
    g = np.arange(k)
    den = np.exp(eps) + k
    out_mean = (g.sum() - g + g * np.exp(eps)) / den
    per_task = []
    for j in range(n):
        num = tot = 0.0
        for i in np.flatnonzero(w[:, j]):
            pdf = np.exp(-0.5 * ((g - mu[j]) / sig[i]) ** 2)
            pdf /= pdf.sum()
            e = (1 - s[i]) * abs(mu[j] - g.sum() / den) + s[i] * (pdf * abs(mu[j] - out_mean)).sum()
            num, tot = num + q[i] * e, tot + q[i]
        if tot > 0:
            per_task.append(num / tot)
    got = L.rr_error_bound(
        quality=q, answered_fraction=s, sigma=sig, truth=mu, domain_size=k, epsilon=eps, answered=w
    )
    assert got == pytest.approx(np.mean(per_task), rel=1e-12)


# ---------------------------------------------------------------- experiment drivers


def test_run_synthetic_point_is_deterministic_and_batch_independent():
    kw = dict(experiment="t", n_workers=60, n_tasks=20, sparsity=0.5, epsilons=[0.5, 2],
              methods=["LP", "RR", "MF", "2-Layer"], repetitions=3, seed=7, d=3)
    a = L.run_synthetic_point(**kw)
    b = L.run_synthetic_point(**kw, max_batch_cells=1)  # one repetition per batch
    import pandas.testing as pd_testing  # pandas is a requirement: never a reason to skip

    pd_testing.assert_frame_equal(a, b)
    assert len(a) == 3 * 2 * 4
    assert np.allclose(a["mae_change"], a["mae_perturbed"] - a["mae_original"])
    assert a["bound"][a["method"] == "2-Layer"].isna().all()


def test_run_real_dataset_with_noise_free_limit():
    r = rng("real")
    truth = r.integers(0, 5, 40).astype(float)
    a = np.tile(truth, (30, 1))
    a[r.random(a.shape) < 0.5] = np.nan
    out = L.run_real_dataset(a, truth, dataset="toy", epsilons=[1e6], methods=["RR"],
                             repetitions=2, seed=1, domain_size=5)
    # with a huge budget RR keeps every symbol: no MAE change
    assert np.allclose(out["mae_change"], 0, atol=1e-6)
    assert np.allclose(out["mae_original"], 0, atol=1e-6)


def test_summarise_mean_std_r():
    raw = __import__("pandas").DataFrame(dict(
        method=["LP"] * 3, epsilon=[1.0] * 3, mae_change=[1.0, 2.0, 3.0],
        mae_original=[0.0] * 3, mae_perturbed=[1.0, 2.0, 3.0], bound=[5.0] * 3))
    s = L.summarise(raw, ["method", "epsilon"])
    assert s.loc[0, "mean"] == 2.0 and s.loc[0, "std"] == 1.0 and s.loc[0, "R"] == 3
    assert s.loc[0, "bound_mean"] == 5.0 and s.loc[0, "mae_perturbed_mean"] == 2.0


def test_answer_distribution_counts():
    a = np.array([[0, 1, np.nan], [0, 0, 2]], dtype=float)
    t = np.array([0, 1, np.nan])
    d = L.answer_distribution(a, t, domain_size=3)
    alls = d[d["truth"] == "all"].set_index("answer")["count"]
    assert list(alls) == [3, 1, 1]
    g1 = d[d["truth"] == "1"].set_index("answer")["count"]
    assert list(g1) == [1, 1, 0]
    gold = d[d["truth"] == "task_gold"].set_index("answer")["count"]
    assert list(gold) == [1, 1, 0]  # the third task has no gold


def test_dataset_table_and_markdown():
    pd = __import__("pandas")
    stats = pd.DataFrame(dict(
        dataset=["web", "adultcontent"], workers=[1, 2], tasks=[3, 4], claims=[5, 6],
        sparsity_max=[0.9, 0.99], sparsity_min=[0.1, 0.2], sparsity_avg=[0.5, 0.6],
        paper_workers=[34, 825]))
    t = L.dataset_table(stats)
    assert list(t["paper_workers"]) == [34, 825]
    assert t["paper_tasks"].isna().all()
    with pytest.raises(ValueError, match="web"):
        L.dataset_table(stats[stats["dataset"] != "web"])


def test_lp_bound_in_experiments_uses_the_configured_null_fill():
    # Theorem 2's φ_j = |μ_j − E(v)|: with a constant NULL replacement v, E(v) is that constant,
    # not the uniform mean (min + max)/2.
    kw = dict(experiment="t", n_workers=30, n_tasks=12, sparsity=0.5, epsilons=[1.0],
              methods=["LP"], repetitions=1, seed=3, d=2)
    out = L.run_synthetic_point(**kw, mechanisms={"lp_null_fill": 0})
    ds = L.generate_synthetic(30, 12, 0.5, rng=derive_rng(3, "ldp_sparse", "t", 0.5, 0, "data"))
    answered = ~np.isnan(ds.answers)
    expect = L.lp_error_bound(
        quality=np.full(30, 1 / 30), answered_fraction=answered.mean(1), sigma=ds.sigma,
        truth=ds.truth, domain_size=10, epsilon=1.0, null_mean=0.0,
    )
    assert out["bound"].iloc[0] == pytest.approx(expect, rel=1e-9)


def test_mf_objective_noise_is_laplace_domain_over_epsilon():
    """MF's η_i ~ Lap(|Γ|/ε)^d (LDP-sparse Eq. 9): mean |η| = b and var = 2b², b = |Γ|/ε."""
    from crowdpriv.mechanisms.mf import draw_task_profiles, mf_perturb_prepared, mf_prepare

    rng = np.random.default_rng(11)
    answers = rng.integers(0, 10, (3000, 40)).astype(float)
    v = draw_task_profiles(40, 5, rng=rng)
    prepared = mf_prepare(answers, v, domain_size=10)
    for eps in (0.5, 2.0):
        _, _, eta = mf_perturb_prepared(prepared, eps, rng=rng, return_u=True)
        b = 10 / eps
        assert eta.shape == (3000, 5)
        assert np.abs(eta).mean() == pytest.approx(b, rel=0.03)
        assert eta.var() == pytest.approx(2 * b * b, rel=0.06)
        assert abs(np.median(eta)) < 0.05 * b


# ---------------------------------------------------------------- label codes


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), null_share=st.sampled_from([0.0, 0.3, 0.9, 1.0]),
       eps=st.sampled_from([0.1, 1.0, 5.0]), k=st.sampled_from([2, 5, 10]))
def test_code_samplers_draw_what_the_float_samplers_draw(seed, null_share, eps, k):
    # the experiments run the *_codes samplers; the API and the audit the float ones: from the
    # same generator state they must give the same output (the same draws, in the same order)
    r = np.random.default_rng(seed)
    a = r.integers(0, k, size=(2, 40, 30)).astype(np.float32)
    a[r.random(a.shape) < null_share] = np.nan
    codes = M.answer_codes(a, k)
    assert codes.dtype == np.int8
    np.testing.assert_array_equal(M.codes_to_answers(codes, k), a)

    def same(seeded):
        return np.random.default_rng([seed, 1]) if seeded else None

    for fill in ("uniform", 1):
        np.testing.assert_array_equal(
            lpm.lp_perturb(a, eps, rng=same(True), domain_size=k, null_fill=fill),
            lpm.lp_perturb_codes(codes, eps, rng=same(True), domain_size=k, null_fill=fill))
    np.testing.assert_array_equal(
        rrm.rr_perturb(a, eps, rng=same(True), domain_size=k),
        M.codes_to_answers(rrm.rr_perturb_codes(codes, eps, rng=same(True), domain_size=k), k))
    np.testing.assert_array_equal(
        twom.two_layer_perturb(a, eps, rng=same(True), domain_size=k),
        M.codes_to_answers(twom.two_layer_perturb_codes(codes, eps, rng=same(True), domain_size=k),
                           k))
    # inference and MF's preparation read the codes as they read the float matrix
    np.testing.assert_array_equal(L.infer_truth(codes, null_code=k).truth, L.infer_truth(a).truth)
    v = mfm.draw_task_profiles(30, 4, rng=same(True))
    p_float, p_codes = mfm.mf_prepare(a, v, domain_size=k), mfm.mf_prepare(codes, v, domain_size=k,
                                                                        null_code=k)
    np.testing.assert_array_equal(p_float.solver, p_codes.solver)
    np.testing.assert_array_equal(p_float.rhs, p_codes.rhs)


def test_rr_codes_wrap_around_the_null_symbol():
    # (x + shift) mod (|Γ| + 1): from every symbol, every other symbol is reached, never itself
    k = 4
    codes = np.repeat(np.arange(k + 1, dtype=np.int8), 20000)[None]
    out = rrm.rr_perturb_codes(codes, 1e-9, rng=rng("wrap"), domain_size=k)  # keep p ~ 1/(k+1)
    for x in range(k + 1):
        got = np.bincount(out[0, codes[0] == x], minlength=k + 1) / 20000
        assert got[x] == pytest.approx(1 / (k + 1), abs=0.015)
        assert np.all(np.abs(np.delete(got, x) - 1 / (k + 1)) < 0.015)
    assert out.min() >= 0 and out.max() <= k


def test_synthetic_codes_are_the_synthetic_answers():
    for sparsity in (0.0, 0.5, 0.95):
        ds = L.generate_synthetic(60, 40, sparsity, rng=rng("syn", sparsity))
        codes, truth, sigma = L.generate_synthetic_codes(60, 40, sparsity, rng=rng("syn", sparsity))
        np.testing.assert_array_equal(M.codes_to_answers(codes, 10), ds.answers)
        np.testing.assert_array_equal(truth, ds.truth)
        np.testing.assert_array_equal(sigma, ds.sigma)


def test_answer_codes_check_the_domain():
    with pytest.raises(ValueError, match="integers in"):
        M.answer_codes(np.array([[0.0, 5.0]]), 5)
    with pytest.raises(ValueError, match="<= 63"):
        M.answer_codes(np.zeros((2, 2)), 64)


# ---------------------------------------------------------------- ε-free draws (common random numbers)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_rr_apply_has_eq8_probabilities(dtype, eps):
    # from every symbol of Γ ∪ {NULL}: keep e^ε/(|Γ|+e^ε), each other symbol 1/(|Γ|+e^ε), with
    # the float32 draws of the experiments as with the float64 draws of a release
    k, n = 5, 120_000
    codes = np.repeat(np.arange(k + 1, dtype=np.int8), n)[None]
    out = rrm.rr_apply(codes, rrm.rr_draws(codes, rng=rng("rra", eps), dtype=dtype), eps,
                     domain_size=k)
    keep, other = np.exp(eps) / (k + np.exp(eps)), 1 / (k + np.exp(eps))
    for x in range(k + 1):
        freq = np.bincount(out[0, codes[0] == x], minlength=k + 1) / n
        expect = np.full(k + 1, other)
        expect[x] = keep
        se = np.sqrt(expect * (1 - expect) / n)
        assert np.all(np.abs(freq - expect) < 5 * se), (x, freq, expect)


def test_one_set_of_draws_serves_every_epsilon():
    r = rng("crn")
    codes = r.integers(0, 6, size=(200, 50)).astype(np.int8)  # 5 = NULL, |Γ| = 5
    # LP: the same standard noise, scaled by |Γ|/ε
    draws = lpm.lp_draws(codes, rng=r, domain_size=5)
    lo, hi = lpm.lp_apply(draws, 0.5, domain_size=5), lpm.lp_apply(draws, 2.0, domain_size=5)
    filled = draws[0]
    np.testing.assert_allclose((lo - filled), 4.0 * (hi - filled), rtol=1e-5, atol=1e-4)
    # RR: a cell kept at a small ε is kept at every larger ε (keep p grows with ε)
    u = rrm.rr_draws(codes, rng=r, dtype=np.float32)
    kept = [rrm.rr_apply(codes, u, e, domain_size=5) == codes for e in (0.1, 1.0, 3.0)]
    assert (kept[0] <= kept[1]).all() and (kept[1] <= kept[2]).all()
    assert kept[0].mean() < kept[2].mean()
    # 2-Layer: ε_i = ε times a U(1 − spread, 1 + spread) multiplier of the worker
    mult, _ = twom.two_layer_draws(codes, rng=r, spread=0.5)
    assert mult.shape == (200,) and mult.min() >= 0.5 and mult.max() <= 1.5
    # MF: η = (|Γ|/ε) η°, the solve is linear in η
    v = mfm.draw_task_profiles(50, 4, rng=r)
    prep = mfm.mf_prepare(codes, v, domain_size=5, null_code=5)
    eta0 = mfm.mf_draws(prep, rng=r)
    u1, u2 = mfm.mf_apply(prep, eta0, 1.0), mfm.mf_apply(prep, eta0, 2.0)
    base = mfm.mf_apply(prep, np.zeros_like(eta0), 1.0)
    np.testing.assert_allclose(u1 - base, 2.0 * (u2 - base), rtol=1e-9, atol=1e-9)


def test_mf_worker_profiles_draw_laplace_domain_over_epsilon():
    # the API's one-ε path: numpy's laplace(0, b) is b times laplace(0, 1), so the draws are
    # those of rng.laplace(0, |Γ|/ε)
    r = rng("mfapi")
    v = mfm.draw_task_profiles(40, 5, rng=r)
    a = r.integers(0, 5, size=(30, 40)).astype(float)
    prep = mfm.mf_prepare(a, v, domain_size=5)
    u, eta = mfm.mf_worker_profiles(prep, 0.5, rng=np.random.default_rng(9))
    np.testing.assert_array_equal(eta, np.random.default_rng(9).laplace(0.0, 10.0, (30, 5)))
    np.testing.assert_allclose(u, np.einsum("...ij,...j->...i", prep.solver, prep.rhs - eta))


def test_mf_solver_inverse_where_positive_definite_pseudo_inverse_elsewhere():
    r = rng("mfsolver")
    n, d = 40, 6
    v = mfm.draw_task_profiles(n, d, rng=r)
    a = r.integers(0, 5, size=(5, n)).astype(float)
    a[0, 3:] = np.nan  # 3 answers < d: singular, minimum norm
    prep = mfm.mf_prepare(a, v, domain_size=5)
    for i in range(5):
        t = ~np.isnan(a[i])
        g = v[:, t] @ v[:, t].T
        expect = np.linalg.pinv(g, rcond=1e-8, hermitian=True)
        np.testing.assert_allclose(prep.solver[i], expect, rtol=1e-6, atol=1e-8 * np.abs(expect).max())
    ridge = mfm.mf_prepare(a, v, domain_size=5, ridge=0.5)  # λ > 0: every worker inverted
    t = ~np.isnan(a[0])
    np.testing.assert_allclose(ridge.solver[0], np.linalg.inv(v[:, t] @ v[:, t].T + 0.5 * np.eye(d)))


def test_draws_into_given_arrays_are_the_same_draws():
    codes = rng("out").integers(0, 6, size=(30, 20)).astype(np.int8)
    filled, noise = np.empty((30, 20), np.float32), np.empty((30, 20), np.float32)
    got = lpm.lp_draws(codes, rng=rng("o1"), domain_size=5, out=(filled, noise))
    want = lpm.lp_draws(codes, rng=rng("o1"), domain_size=5)
    assert got[0] is filled and got[1] is noise
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    u = np.empty((30, 20), np.float32)
    np.testing.assert_array_equal(rrm.rr_draws(codes, rng=rng("o2"), dtype=np.float32, out=u),
                                  rrm.rr_draws(codes, rng=rng("o2"), dtype=np.float32))
    mult, uu = np.empty(30), np.empty((30, 20), np.float32)
    a = twom.two_layer_draws(codes, rng=rng("o3"), dtype=np.float32, out=(mult, uu))
    b = twom.two_layer_draws(codes, rng=rng("o3"), dtype=np.float32)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
