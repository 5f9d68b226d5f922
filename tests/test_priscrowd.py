"""Unit tests of the PrisCrowd core (Huai et al., IJCAI 2019)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from crowdpriv.mechanisms.basic import basic_release
from crowdpriv.mechanisms.priscrowd import (
    pass_probability,
    privacy_levels,
    privacy_test_counts,
    synthesize,
    theorem2_budget,
)
from crowdpriv.priscrowd import (
    Params,
    bandwidth,
    combined_weights,
    drop_single_claim_objects,
    fit_flat,
    flat_claims,
    fit_claims_table,
    fit_weights,
    hampel_irwls_weight,
    ise_gaussian_mixtures,
    pack_objects,
    prefix_ise,
    run_real_dataset,
    time_phase2,
    run_simulated,
    simulate_claims,
)


def _mixture(x, w, mu, sd):
    return sum(wi * np.exp(-0.5 * ((x - m) / s) ** 2) / (np.sqrt(2 * np.pi) * s)
               for wi, m, s in zip(w, mu, sd))


def _flat(values):
    """(objects, users) matrix -> flat codes of a complete claim table."""
    n_obj, n_users = values.shape
    return (np.repeat(np.arange(n_obj), n_users), np.tile(np.arange(n_users), n_obj),
            values.ravel())


# --- closed-form ISE ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_closed_form_ise_matches_numerical_integration(seed):
    rng = np.random.default_rng(seed)
    j, k = rng.integers(1, 5, size=2)
    w1, w2 = rng.dirichlet(np.ones(j)), rng.dirichlet(np.ones(k))
    mu1, mu2 = rng.normal(0, 2, j), rng.normal(0, 2, k)
    sd1, sd2 = rng.uniform(0.2, 1.5, j), rng.uniform(0.2, 1.5, k)
    closed = ise_gaussian_mixtures(w1, mu1, sd1, w2, mu2, sd2)
    lo = min(mu1.min(), mu2.min()) - 15
    hi = max(mu1.max(), mu2.max()) + 15
    num, _ = integrate.quad(
        lambda x: (_mixture(x, w1, mu1, sd1) - _mixture(x, w2, mu2, sd2)) ** 2, lo, hi,
        points=sorted([*mu1, *mu2]), limit=500, epsabs=1e-14, epsrel=1e-12,
    )
    assert closed == pytest.approx(num, rel=1e-6)


def test_prefix_ise_matches_direct_ise_and_empty_release():
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(2, 3, 6))
    pts[0, 1, 4:] = np.nan  # partly released
    pts[1, 2, :] = np.nan  # never released
    h = np.array([0.3, 0.5, 0.7])
    rw, rmu, rsd = np.ones((3, 1)), rng.normal(size=(3, 1)), np.full((3, 1), 0.4)
    got = prefix_ise(pts, h, rw, rmu, rsd, [1, 3, 6])
    for r in range(2):
        for g in range(3):
            for j, m in enumerate([1, 3, 6]):
                y = pts[r, g, :m]
                y = y[~np.isnan(y)]
                if y.size == 0:
                    want = 1 / (2 * np.sqrt(np.pi) * rsd[g, 0])  # never released: ∫ f*^2
                else:
                    want = ise_gaussian_mixtures(rw[g], rmu[g], rsd[g], np.full(y.size, 1 / y.size),
                                                 y, np.full(y.size, h[g]))
                assert got[r, g, j] == pytest.approx(want, rel=1e-10)


# --- weights --------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 9), st.integers(3, 12))
def test_weights_nonnegative_and_sum_to_one(seed, n_obj, n_users):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_obj, n_users)) * rng.uniform(0.1, 10, size=(n_obj, 1))
    values[0, :2] = 1.0  # ties
    keep = rng.random(values.shape) < 0.7
    keep[:, :2] = True  # at least two claims per object
    o, s, v = _flat(values)
    k = keep.ravel()
    fitted = fit_weights(o[k], s[k], v[k], objects=np.arange(n_obj), sources=np.arange(n_users),
                         params=Params())
    assert np.all(fitted.g >= 0) and np.all(np.isfinite(fitted.g))
    for b, lw, cw in zip(fitted.batches, fitted.local, fitted.combined):
        for w in (lw, cw):
            assert np.all(w >= 0)
            assert np.all(w[~b.mask] == 0)
            np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)


def test_injected_outlier_user_gets_lower_combined_weight():
    rng = np.random.default_rng(7)
    values = rng.normal(100, 1, size=(40, 12))
    values[:, 5] = rng.normal(100, 1, size=40) + rng.choice([-1, 1], 40) * rng.uniform(8, 12, 40)
    fitted = fit_weights(*_flat(values), objects=np.arange(40), sources=np.arange(12),
                         params=Params())
    assert fitted.g[5] < np.delete(fitted.g, 5).min()
    (b,) = fitted.batches
    c = fitted.combined[0]
    col = b.src == 5
    outlier = c[col]
    others = np.where(~col, c, np.nan)
    # Hampel zeroes the farthest 15 % of claims of every object, so compare with the mean
    assert np.all(outlier < np.nanmean(others, axis=1))
    assert outlier.mean() < 0.25 * np.nanmean(others)
    # local weights alone already down-weight it (Hampel), global-only too
    assert np.all(fitted.local[0][col] < np.nanmean(np.where(~col, fitted.local[0], np.nan), 1))


def test_hampel_weight_is_psi_over_r_and_decreasing():
    r = np.linspace(0, 5, 501)
    w = hampel_irwls_weight(r, 1.0, 2.0, 4.0)
    assert w[0] == 1 and np.all(np.diff(w) <= 1e-12) and np.all(w[r > 4] == 0)
    np.testing.assert_allclose(w[(r > 1) & (r <= 2)], 1 / r[(r > 1) & (r <= 2)])


def test_global_weights_stacking_with_groups_is_exact():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(5, 6)), rng.normal(size=(7, 6)) * 3

    def g_of(o, s, v, n_objects, n_sources, **kw):
        return fit_flat(flat_claims(o, s, v, n_objects=n_objects), n_sources, **kw)[0]

    ga = g_of(*_flat(a), 5, 6)
    gb = g_of(*_flat(b), 7, 6)
    o = np.concatenate([_flat(a)[0], _flat(b)[0] + 5])
    s = np.concatenate([_flat(a)[1], _flat(b)[1] + 6])
    v = np.concatenate([a.ravel(), b.ravel()])
    g = g_of(o, s, v, 12, 12, groups=np.repeat([0, 1], 6), tol=1e-12)
    np.testing.assert_allclose(g, np.concatenate([ga, gb]), rtol=1e-6)


def test_combined_weight_formula():
    l = np.array([0.2, 0.3, 0.5])
    g = np.array([1.0, 4.0, 0.5])
    fc = flat_claims(np.zeros(3, dtype=int), np.arange(3), [1.0, 2.0, 4.0], n_objects=1)
    c = combined_weights(fc, l, g)
    want = np.sqrt(l * g) / np.sqrt(l * g).sum()
    np.testing.assert_allclose(c, want)


# --- privacy test ---------------------------------------------------------------------------


def test_privacy_levels_band_definition():
    gamma = 4.0
    y, z, h = 0.3, np.array([0.0, 1.0, 2.5, -0.2]), 0.5
    a = privacy_levels(y, z, h, gamma)
    p = np.exp(-0.5 * ((y - z) / h) ** 2) / (np.sqrt(2 * np.pi) * h)
    assert np.all(gamma ** (-a - 1) < p) and np.all(p <= gamma ** (-a))


def test_pass_probability_matches_lemma5_exact_case():
    # 6 records; the candidate's band is shared by exactly k' of them (computed by hand below).
    z = np.array([[0.0, 0.05, -0.05, 0.1, 3.0, -3.0]])
    mask = np.ones_like(z, dtype=bool)
    h, gamma, k, eps0 = np.array([0.5]), 4.0, 5, 1.0
    y = np.array([[0.02]])
    seed = np.array([[0]])
    kp = privacy_test_counts(y, seed, z, mask, h, gamma)[0, 0]
    lev = privacy_levels(0.02, z[0], 0.5, gamma)
    assert kp == (lev == lev[0]).sum() == 4
    # Lemma 5: Pr{L >= k - k'}, L ~ Lap(1/eps0); k' - k = -1 -> 0.5 e^{-1}
    assert pass_probability(kp, k, eps0) == pytest.approx(0.5 * np.exp(-1.0))
    rng = np.random.default_rng(0)
    draws = rng.laplace(0, 1 / eps0, 400_000)
    emp = np.mean(kp >= k + draws)
    assert emp == pytest.approx(pass_probability(kp, k, eps0), abs=4e-3)


def test_algorithm1_pass_rate_matches_lemma6_integral():
    # Pr{pass} = sum_s c_s ∫ K_h(y - z_s) pt(k'(y, s)) dy  (Lemma 5/6), by quadrature.
    z = np.array([[0.0, 0.3, 0.35, 0.5, 2.0]])
    mask = np.ones_like(z, dtype=bool)
    c = np.array([[0.1, 0.3, 0.2, 0.3, 0.1]])
    h, k, gamma, eps0 = np.array([0.4]), 3, 2.0, 1.0
    grid = np.linspace(-4, 6, 200_001)
    exact = 0.0
    for s in range(5):
        lev = privacy_levels(grid[:, None], z[0][None, :], h[0], gamma)
        kp = (lev == lev[:, [s]]).sum(axis=1)
        dens = np.exp(-0.5 * ((grid - z[0, s]) / h[0]) ** 2) / (np.sqrt(2 * np.pi) * h[0])
        exact += c[0, s] * integrate.trapezoid(dens * pass_probability(kp, k, eps0), grid)
    # with m = 1 Alg. 1 stops at the first pass: candidates ~ Geometric(p)
    res = synthesize(np.repeat(z, 2000, 0), np.repeat(mask, 2000, 0), np.repeat(h, 2000),
                     np.repeat(c, 2000, 0), m=1, k=k, gamma=gamma, eps0=eps0, batch_size=50,
                     max_candidates=10_000, rng=np.random.default_rng(5))
    rate = res.n_passed.sum() / res.n_candidates.sum()
    assert rate == pytest.approx(exact, rel=0.03)


def test_synthesize_counts_and_cap():
    rng = np.random.default_rng(2)
    z = np.vstack([rng.normal(size=(1, 12)), np.r_[[-1.0, 1.0], np.zeros(10)][None]])
    mask = np.ones_like(z, dtype=bool)
    mask[1, 2:] = False  # two claims: k' <= 2 < k, rarely passes
    w = mask / mask.sum(1, keepdims=True)
    res = synthesize(z, mask, np.array([0.5, 0.5]), w, m=30, k=5, reps=4, max_candidates=200,
                     rng=rng)
    assert np.all(res.n_released[:, 0] == 30)
    assert np.all(np.isfinite(res.released[:, 0]))
    assert np.all(res.n_candidates <= 200) and np.all(res.n_candidates[:, 1] == 200)
    assert np.all(res.n_passed == res.n_released)
    assert np.all(np.isnan(res.released[:, 1][:, res.n_released[:, 1].max():]))
    no_test = synthesize(z, mask, np.array([0.5, 0.5]), w, m=7, privacy_test=False, reps=2,
                         rng=rng)
    assert np.all(no_test.n_released == 7) and np.all(np.isfinite(no_test.released))


def test_candidates_for_m_is_what_a_run_with_that_m_tests():
    """Fig. 5's work measure: the m-th release's position in the candidate stream equals the
    candidates a run with that m tests (one object, one candidate per round: same stream)."""
    rng = np.random.default_rng(3)
    z = rng.normal(size=(1, 9))
    mask = np.ones_like(z, dtype=bool)
    w = mask / mask.sum()
    args = dict(k=5, gamma=4.0, eps0=1.0, batch_size=1, max_candidates=400)
    full = synthesize(z, mask, np.array([0.4]), w, m=12, rng=np.random.default_rng(8), **args)
    for m in (1, 5, 12):
        short = synthesize(z, mask, np.array([0.4]), w, m=m, rng=np.random.default_rng(8), **args)
        assert full.candidates_for(m)[0, 0] == short.n_candidates[0, 0]
    steps = np.diff(full.tested_at[0, 0])
    assert np.all(steps >= 1) and full.tested_at[0, 0, -1] == full.n_candidates[0, 0]
    capped = synthesize(np.r_[[-1.0, 1.0]][None], np.ones((1, 2), bool), np.array([0.5]),
                        np.full((1, 2), 0.5), m=3, reps=2,
                        rng=np.random.default_rng(1), **{**args, "max_candidates": 50})
    assert np.all(capped.candidates_for(3) == 50)  # never released: the cap
    no_test = synthesize(z, mask, np.array([0.4]), w, m=4, privacy_test=False,
                         rng=np.random.default_rng(0))
    assert no_test.candidates_for(3).tolist() == [[3]]
    with pytest.raises(ValueError, match="run's m"):
        full.candidates_for(13)


def test_synthesize_without_test_samples_the_weighted_kde():
    z = np.array([[0.0, 10.0]])
    w = np.array([[0.8, 0.2]])
    res = synthesize(z, np.ones((1, 2), bool), np.array([0.1]), w, m=20_000,
                     privacy_test=False, rng=np.random.default_rng(0))
    y = res.released[0, 0]
    assert np.mean(y > 5) == pytest.approx(0.2, abs=0.01)
    assert np.std(y[y < 5]) == pytest.approx(0.1, rel=0.05)


def test_theorem2_uniform_weights_reduce_to_bindschaedler():
    mask = np.ones((1, 10), bool)
    eps, delta = theorem2_budget(np.full((1, 10), 0.1), mask, k=5, gamma=4, eps0=1, t=2)
    assert eps[0] == pytest.approx(1 + np.log(1 + 4 / 2))
    assert delta[0] == pytest.approx(np.exp(-1 * 3))
    small = theorem2_budget(np.full((1, 3), 1 / 3), np.ones((1, 3), bool), k=5)
    assert np.isnan(small[0][0]) and np.isnan(small[1][0])
    zero = theorem2_budget(np.array([[0.0, 0.5, 0.5, 0, 0, 0]]), np.ones((1, 6), bool), k=5)
    assert np.isinf(zero[0][0])


def test_basic_release_noise_scale():
    z = np.array([[-1.0, 0.0, 2.0]])
    pts = basic_release(z, np.ones_like(z, bool), 1.0, reps=20_000, rng=np.random.default_rng(1))
    noise = pts - z[None]
    assert np.mean(np.abs(noise)) == pytest.approx(3.0, rel=0.02)  # Lap(range / eps), range 3


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, name",
    [({"k": 0}, "k"), ({"gamma": 1.0}, "gamma"), ({"eps0": 0.0}, "eps0"), ({"m": 0}, "m"),
     ({"k": 2.5}, "k")],
)
def test_invalid_test_parameters_are_named(kw, name):
    z = np.zeros((1, 3))
    args = dict(m=3, k=5, gamma=4.0, eps0=1.0) | kw
    with pytest.raises(ValueError, match=rf"^{name} "):
        synthesize(z, np.ones((1, 3), bool), np.ones(1), np.ones((1, 3)) / 3,
                   rng=np.random.default_rng(0), **args)
    with pytest.raises(ValueError, match=rf"^{name} "):
        Params(**kw)


def test_invalid_bandwidth_is_named():
    z, mask = np.zeros((1, 3)), np.ones((1, 3), bool)
    with pytest.raises(ValueError, match="bandwidth rule"):
        bandwidth(z, mask, rule="scott")
    with pytest.raises(ValueError, match="h_min"):
        bandwidth(z, mask, h_min=0)
    with pytest.raises(ValueError, match="bandwidth must be > 0"):
        synthesize(z, mask, np.zeros(1), mask / 3, m=2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="bandwidth"):
        Params(bandwidth="scott")
    with pytest.raises(ValueError, match="t must"):
        Params(t=5)
    with pytest.raises(ValueError, match="repetitions"):
        Params(repetitions=0)


def test_single_claim_object_is_named():
    with pytest.raises(ValueError, match="object 'lonely' has 1 claim"):
        pack_objects([0, 0, 1], [0, 1, 0], [1.0, 2.0, 3.0], n_objects=2,
                     object_names=["ok", "lonely"])
    claims = pd.DataFrame({"task": ["a", "a", "b"], "worker": ["x", "y", "x"],
                           "value": [1.0, 2.0, 3.0]})
    kept, dropped = drop_single_claim_objects(claims)
    assert dropped == 1 and set(kept["task"]) == {"a"}


def test_bandwidth_mad_fallback_on_ties():
    z = np.array([[-0.7071, -0.7071, 1.4142], [-1.2247, 0.0, 1.2247]])
    h = bandwidth(z, np.ones_like(z, bool), rule="mad", h_min=0.01)
    assert h[0] == pytest.approx(1.06 * 3 ** -0.2, rel=1e-3)  # MAD = 0 -> Silverman
    assert h[1] == pytest.approx(1.2247)


# --- data generator and experiment drivers ---------------------------------------------------


def test_simulate_claims_shape_and_unreliable_fraction():
    v, bad = simulate_claims(30, 50, 0.3, rng=np.random.default_rng(0))
    assert v.shape == (50, 30) and bad.sum() == 9
    assert np.all((v[:, bad] >= 0) & (v[:, bad] <= 10))
    assert abs(v[:, ~bad].mean() - 5) < 0.05 and abs(v[:, ~bad].std() - 0.5) < 0.05
    with pytest.raises(ValueError, match="p must"):
        simulate_claims(30, 50, 1.5, rng=np.random.default_rng(0))


def test_run_simulated_is_deterministic_and_complete():
    params = Params(repetitions=3)
    a = run_simulated(0.3, params, rng=np.random.default_rng(4))
    b = run_simulated(0.3, params, rng=np.random.default_rng(4))
    pd.testing.assert_frame_equal(a["table"], b["table"])
    assert set(a["table"]["method"]) == {"PrisCrowd", "Uniform", "Basic(Strong)",
                                         "Basic(Normal)", "Basic(Weak)"}
    assert len(a["table"]) == 5 * 3
    assert (a["release"]["tasks"] == 50).all()


def test_run_real_dataset_tables():
    rng = np.random.default_rng(0)
    truth = rng.normal(50, 10, size=20)
    values = truth[:, None] + rng.normal(0, 1, size=(20, 8))
    values[:, 0] += 30
    claims = pd.DataFrame({"task": np.repeat([f"o{i}" for i in range(20)], 8),
                           "worker": np.tile([f"s{j}" for j in range(8)], 20),
                           "value": values.ravel()})
    truth_df = pd.DataFrame({"task": [f"o{i}" for i in range(0, 20, 2)], "truth": truth[::2]})
    fig3 = dict(quantiles=[0.5, 0.9], min_claims=3, min_distinct=2, grid=50)
    out = run_real_dataset(claims, truth_df, Params(repetitions=2), fig3=fig3,
                           fig4_m=(1, 10, 30), rng=np.random.default_rng(1))
    assert out["info"]["tasks_with_truth"].item() == 10
    assert set(out["fig4"]["m"]) == {1, 10, 30}
    work = out["work"]
    assert len(work) == 2 * 30 * 2  # reps x m' x with/without the test
    tested = work[work["privacy_test"]].pivot(index="m", columns="rep", values="candidates")
    assert (tested.diff().dropna() >= 0).all().all()  # more claims never need fewer candidates
    assert (tested.to_numpy() >= np.arange(1, 31)[:, None] * 10).all()  # >= m' per object
    ratio = work[work["privacy_test"]].eval("kernel_evaluations / candidates")
    assert np.allclose(ratio, 8.0)  # every object has 8 claims: |U_i| kernels per candidate
    untested = work[~work["privacy_test"]]
    assert (untested["candidates"] == untested["m"] * 10).all()
    assert (untested["kernel_evaluations"] == 0).all()
    with pytest.raises(ValueError, match=r"fig4.m must be integers in \[1, m=30\]"):
        run_real_dataset(claims, truth_df, Params(repetitions=2), fig3=fig3, fig4_m=(1, 31),
                         rng=np.random.default_rng(1))
    assert (out["release"]["tasks"] == 10).all()
    assert set(out["fig3_curves"]["curve"]) == {"combined", "global", "uniform", "reference"}
    claims3 = out["fig3_claims"]
    assert claims3.loc[claims3["worker"] == "s0", "combined_weight"].max() < \
        claims3.loc[claims3["worker"] != "s0", "combined_weight"].mean()
    t = out["table"].groupby("method")["ISE"].mean()
    assert np.all(np.isfinite(out["table"][["ISE", "SISE"]].to_numpy()))
    assert t["Basic(Strong)"] > t["Basic(Weak)"]  # more Laplace noise, worse density
    fitted = fit_claims_table(claims, Params())
    assert len(fitted.objects) == 20


def test_time_phase2_medians_after_warm_up():
    rng = np.random.default_rng(0)
    claims = pd.DataFrame({"task": np.repeat(["a", "b"], 6), "worker": np.tile(list("uvwxyz"), 2),
                           "value": rng.normal(size=12)})
    truth = pd.DataFrame({"task": ["a", "b"], "truth": [0.0, 0.0]})
    out = time_phase2(claims, truth, Params(), ms=[1, 3], calls=5, rng=np.random.default_rng(1))
    assert out[["m", "privacy_test"]].values.tolist() == [[1, True], [1, False], [3, True],
                                                         [3, False]]
    assert (out["calls"] == 5).all()
    assert (out["min_seconds"] <= out["seconds"]).all()
    assert (out["seconds"] <= out["max_seconds"]).all()
    with pytest.raises(ValueError, match="fig5.timing_calls"):
        time_phase2(claims, truth, Params(), ms=[1], calls=4, rng=np.random.default_rng(1))


def test_table1_per_object_average_column():
    from crowdpriv.priscrowd import summarise_table1

    paper1 = pd.DataFrame([{"measure": ms, "method": "PrisCrowd", "population": 0.5, "stock": 2.0,
                            "indoor": 1.0} for ms in ("ISE", "SISE")])
    runs = pd.DataFrame([{"dataset": "population", "method": "PrisCrowd", "rep": r,
                          "ISE": 40.0 + r, "SISE": 100.0} for r in range(2)])
    t = summarise_table1(runs, paper1, n_objects={"population": 81}).set_index("measure")
    assert t.loc["ISE", "per_object"] == pytest.approx(40.5 / 81)
    assert t.loc["ISE", "per_object_ratio_to_paper"] == pytest.approx(40.5 / 81 / 0.5)
    assert t.loc["SISE", "per_object"] == pytest.approx(100 / 81)
    assert "per_object" not in summarise_table1(runs, paper1).columns


def test_uniform_ise_closed_form_matches_numeric_integration():
    from crowdpriv.priscrowd._experiments import uniform_ise_to_reference
    from crowdpriv.priscrowd._kde import gaussian_density

    z = np.array([[0.0, 0.5, 2.0, 0.0], [1.0, -1.0, 0.0, 0.0]])
    mask = np.array([[True, True, True, False], [True, True, False, False]])
    h = np.array([0.4, 0.7])
    mu = np.array([0.3, -0.2])
    got = uniform_ise_to_reference(z, mask, h, mu)
    for g in range(2):
        zs = z[g, mask[g]]

        def sq(x, g=g, zs=zs):
            f = gaussian_density(x - zs, np.full(zs.shape, h[g] ** 2)).mean()
            ref = gaussian_density(np.array([x - mu[g]]), np.array([h[g] ** 2]))[0]
            return (f - ref) ** 2

        want, _ = integrate.quad(sq, -20, 20, limit=200)
        assert got[g] == pytest.approx(want, rel=1e-6)


def test_case_studies_follow_the_documented_rule():
    """No seed; objects whose claims all agree are never chosen; the 0.9 quantile is harder
    (larger uniform ISE) than the 0.1 quantile; ties are broken by name, so the choice is
    deterministic."""
    from crowdpriv.priscrowd._experiments import (
        choose_case_studies,
        fit_claims_table,
        uniform_ise_to_reference,
    )

    rng = np.random.default_rng(3)
    n_obj, n_src = 30, 6
    truth = rng.normal(100, 10, n_obj)
    spread = np.linspace(0.1, 20, n_obj)  # object i is harder the larger i
    values = truth[:, None] + rng.normal(0, 1, (n_obj, n_src)) * spread[:, None]
    values[:5] = truth[:5, None]  # five objects whose claims all equal the truth
    claims = pd.DataFrame({"task": np.repeat([f"o{i:02d}" for i in range(n_obj)], n_src),
                           "worker": np.tile([f"s{j}" for j in range(n_src)], n_obj),
                           "value": values.ravel()})
    fitted = fit_claims_table(claims, Params())
    ref = pd.Series(truth, index=[f"o{i:02d}" for i in range(n_obj)]).reindex(
        fitted.objects).to_numpy()
    picks = choose_case_studies(fitted, ref, quantiles=[0.1, 0.9], min_claims=3, min_distinct=3)
    again = choose_case_studies(fitted, ref, quantiles=[0.1, 0.9], min_claims=3, min_distinct=3)
    assert picks == again and len(picks) == 2
    names = [fitted.objects[fitted.batches[i].index[r]] for i, r in picks]
    assert not {"o00", "o01", "o02", "o03", "o04"} & set(names)

    def ise(pick):
        i, r = pick
        b = fitted.batches[i]
        mu = (ref[b.index[r]] - b.mean[r]) / b.scale[r]
        return uniform_ise_to_reference(b.z[[r]], b.mask[[r]], b.h[[r]], np.array([mu]))[0]

    assert ise(picks[0]) < ise(picks[1])
    with pytest.raises(Exception, match="quantiles"):
        from crowdpriv.priscrowd._experiments import _fig3_tables

        _fig3_tables(fitted, ref, None, quantiles=[1.5], min_claims=3, min_distinct=3, grid=20)


# --- the privacy test counted from band edges: the counts (and draws) of the level comparison


def _counts_by_levels(y, seed, z, mask, h, gamma):
    """k' as Alg. 1 step 3 reads (crowdpriv eff617d): every pair's band against the seed's."""
    lev = privacy_levels(y[:, :, None], z[:, None, :], h[:, None, None], gamma)
    own = np.take_along_axis(lev, seed[:, :, None], axis=2)
    return ((lev == own) & mask[:, None, :]).sum(axis=2)


@pytest.mark.parametrize("gamma", [1.05, 2.0, 4.0, 10.0])
def test_band_edges_are_exact_on_the_float_grid(gamma):
    from crowdpriv.mechanisms.priscrowd import _band_edges

    rng = np.random.default_rng(int(gamma * 100))
    h = np.exp(rng.uniform(-12, 4, 400))
    level = privacy_levels(0.0, 0.0, h, gamma) + rng.integers(0, 60, 400)
    e = _band_edges(level, h, gamma)
    assert np.all(privacy_levels(e, 0.0, h, gamma) >= level)
    below = np.nextafter(e, 0.0)
    assert np.all((e == 0) | (privacy_levels(below, 0.0, h, gamma) < level))


@pytest.mark.parametrize("gamma", [1.05, 4.0, 10.0])
def test_privacy_test_counts_equal_the_level_comparison(gamma):
    """Random objects and candidates, candidates on the band edges to the last bit (where a
    rounding would show), far candidates beyond the tabulated bands, padding."""
    from crowdpriv.mechanisms.priscrowd import _band_edges

    rng = np.random.default_rng(3)
    G, B, n = 300, 12, 15
    z = np.round(rng.normal(size=(G, n)), rng.integers(1, 4))  # ties too
    mask = rng.random((G, n)) < 0.8
    mask[:, 0] = True
    h = np.exp(rng.uniform(-4, 1, G))
    seed = (rng.random((G, B, n)) * mask[:, None, :]).argmax(axis=2)  # a record of the object
    y = np.take_along_axis(z, seed, 1) + h[:, None] * rng.standard_normal((G, B))
    # candidates at an edge away from another record: |y − z_s| = edge, and one ulp either side
    s = rng.integers(0, n, (G, B))
    zs = np.take_along_axis(z, s, 1)
    level = privacy_levels(0.0, 0.0, h, gamma)[:, None] + rng.integers(1, 8, (G, B))
    edge = _band_edges(level, np.broadcast_to(h[:, None], (G, B)), gamma)
    pick = rng.integers(0, 4, (G, B))
    on_edge = np.choose(pick, [zs + edge, zs - edge, np.nextafter(zs + edge, -np.inf),
                               np.nextafter(zs - edge, np.inf)])
    y = np.where(rng.random((G, B)) < 0.5, on_edge, y)
    y[:5, :3] += 40 * h[:5, None]  # far beyond the table of own bands
    got = privacy_test_counts(y, seed, z, mask, h, gamma)
    np.testing.assert_array_equal(got, _counts_by_levels(y, seed, z, mask, h, gamma))
    assert (got != _counts_by_levels(y, seed, z, mask, h, gamma * 1.01)).any()  # can differ


@pytest.mark.parametrize("reps", [2, 300])
def test_synthesize_is_byte_identical_to_the_level_comparison(monkeypatch, reps):
    """Alg. 1 with the counts and seeds of the per-pair comparisons gives the same release,
    bit for bit, from the same generator (the draws are untouched)."""
    from crowdpriv.mechanisms import priscrowd as _release

    rng = np.random.default_rng(4)
    z = rng.normal(size=(6, 14))
    mask = rng.random(z.shape) < 0.85
    z[~mask] = 0.0
    h = rng.uniform(0.2, 0.6, 6)
    w = np.where(mask, rng.uniform(0.5, 2, z.shape), 0.0)
    args = dict(m=8, k=4, reps=reps, batch_size=7, max_candidates=60)
    fast = synthesize(z, mask, h, w, rng=np.random.default_rng(9), **args)

    def reference_counts(self, y, centre, records, row):
        h_ = self.h[row]
        lev = privacy_levels(y[:, :, None], records.T[:, None, :], h_[:, None, None], self.gamma)
        own = privacy_levels(y, centre, h_[:, None], self.gamma)
        return (lev == own[:, :, None]).sum(axis=2)  # NaN records (masked) are in no band

    def reference_seeds(u, cdf, o):
        return (u[:, :, None] >= cdf[o][:, None, :]).sum(axis=2).clip(max=cdf.shape[1] - 1)

    monkeypatch.setattr(_release._Bands, "counts", reference_counts)
    monkeypatch.setattr(_release, "_draw_seeds", reference_seeds)
    slow = synthesize(z, mask, h, w, rng=np.random.default_rng(9), **args)
    for name in ("released", "n_released", "n_candidates", "n_passed", "tested_at"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.tobytes() == b.tobytes(), name
