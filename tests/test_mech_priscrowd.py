"""Exact tests of PrisCrowd's Algorithm 1 and Theorem 2 (crowdpriv.mechanisms.priscrowd).

Each test checks the module against the paper's formula, a closed form, an independent
computation or a documented invariant, on small hand-built cases with fixed seeds: the
privacy levels of Alg. 1 step 2, the band table and the counts of step 3, the seeds of step 3,
the randomised test of step 5 (Lemma 5), a plain one-candidate-at-a-time Alg. 1 drawing the
same stream, Theorem 2's (ε, δ), and the registry member's settings, claims and audit cases.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from crowdpriv.mechanisms import priscrowd as pc
from crowdpriv.mechanisms.priscrowd import (
    Alg1Settings,
    PrisCrowdAlg1,
    audit_neighbours,
    draw_candidates,
    pass_probability,
    privacy_levels,
    privacy_test_counts,
    synthesize,
    theorem2_budget,
    validate_test_params,
)

# --- Alg. 1 step 2: the privacy levels ------------------------------------------------------


def test_privacy_levels_are_the_floor_of_minus_log_density_over_log_gamma():
    """a = floor(−log K_h(y − z) / log γ) with K_h the N(0, h²) density (scipy's), at points
    whose exact value is not within 1e-6 of a band edge."""
    rng = np.random.default_rng(11)
    y = rng.normal(0.0, 3.0, 400)
    z = rng.normal(0.0, 1.0, 400)
    h = np.exp(rng.uniform(-3.0, 1.5, 400))
    gamma = rng.choice([1.3, 2.0, 4.0, 9.0], 400)
    exact = -stats.norm.logpdf(y, loc=z, scale=h) / np.log(gamma)
    away = np.abs(exact - np.round(exact)) > 1e-6
    assert away.sum() > 390
    got = privacy_levels(y, z, h, gamma)
    np.testing.assert_array_equal(got[away], np.floor(exact[away]))
    # the band definition itself, γ^(−a−1) < P <= γ^(−a), where P is no subnormal
    p = stats.norm.pdf(y, loc=z, scale=h)
    ok = away & (p > 1e-250)
    assert ok.sum() > 300
    assert np.all(gamma[ok] ** (-got[ok] - 1) < p[ok]) and np.all(p[ok] <= gamma[ok] ** -got[ok])


def test_privacy_levels_hand_computed():
    """h = 1/√(2π): log P = −u²/2 exactly, so a = floor(u²/2 / log γ) (u = (y − z)/h)."""
    h = 1.0 / np.sqrt(2.0 * np.pi)
    gamma = np.e
    u = np.array([0.5, 1.9, 2.1, 3.0])  # u²/2 = 0.125, 1.805, 2.205, 4.5
    got = privacy_levels(u * h, 0.0, h, gamma)
    np.testing.assert_array_equal(got, [0.0, 1.0, 2.0, 4.0])


def test_validate_test_params_accepts_the_smallest_values():
    """k ≥ 1, γ > 1, ε0 > 0, m ≥ 1 (Alg. 1): the edges of each range are accepted."""
    assert validate_test_params(1, 1.2, 0.1, 1) == (1, 1.2, 0.1, 1)
    for kw, name in (({"k": 0}, "k"), ({"gamma": 1.0}, "gamma"), ({"m": 0}, "m"),
                     ({"eps0": 0.0}, "eps0")):
        args = {"k": 1, "gamma": 1.2, "eps0": 0.1, "m": 1} | kw
        with pytest.raises(ValueError, match=rf"^{name} "):
            validate_test_params(**args)


# --- Alg. 1 step 3: the band table and the counts k' ----------------------------------------


def _counts_by_levels(y, seed, z, mask, h, gamma):
    """k' by definition: the records whose privacy level equals the seed's."""
    lev = privacy_levels(y[:, :, None], z[:, None, :], h[:, None, None], gamma)
    own = np.take_along_axis(lev, seed[:, :, None], axis=2)
    return ((lev == own) & mask[:, None, :]).sum(axis=2)


def test_band_edges_of_the_first_band_and_beyond():
    """The first band starts at distance 0 exactly; each edge is the smallest float reaching
    its level (one ulp below stays in the band before)."""
    h = np.array([0.05, 0.3, 1.0, 7.5])
    for gamma in (1.05, 4.0, 1e3):
        first = privacy_levels(0.0, 0.0, h, gamma)
        np.testing.assert_array_equal(pc._band_edges(first, h, gamma), 0.0)
        np.testing.assert_array_equal(pc._band_edges(first - 3, h, gamma), 0.0)
        for j in (1, 2, 5, 40):
            e = pc._band_edges(first + j, h, gamma)
            assert np.all(e > 0)
            np.testing.assert_array_equal(privacy_levels(e, 0.0, h, gamma), first + j)
            assert np.all(privacy_levels(np.nextafter(e, 0.0), 0.0, h, gamma) < first + j)


def test_band_edges_at_the_smallest_bandwidth():
    """Exact down to a subnormal bandwidth h = 5e-324: there (γ = 2.892) every ulp of distance
    moves the level by one band, so the edges are the smallest positive floats, 1 and 2 ulps."""
    h, gamma = np.array([5e-324]), 2.892
    first = privacy_levels(0.0, 0.0, h, gamma)
    np.testing.assert_array_equal(privacy_levels(np.array([5e-324, 1e-323]), 0.0, h, gamma),
                                  [first[0] + 1, first[0] + 2])
    np.testing.assert_array_equal(pc._band_edges(first + np.arange(3), h, gamma),
                                  [0.0, 5e-324, 1e-323])


@pytest.mark.parametrize("gamma", [1.05, 1.5, 4.0, 50.0])
def test_band_table_covers_every_candidate_within_table_sigmas(gamma):
    """Documented at _TABLE_SIGMAS: a candidate within _TABLE_SIGMAS·h of its seed has its own
    band inside the table (its two edges tabulated), and the table's edges are the bands'."""
    h = np.exp(np.random.default_rng(5).uniform(-6.0, 3.0, 300 if gamma > 1.1 else 60))
    bands = pc._Bands(h, gamma)
    width = bands.table.shape[1]
    far = pc._TABLE_SIGMAS * h
    k = privacy_levels(far, 0.0, h, gamma) - bands.first
    assert np.all(k < width - 1)
    np.testing.assert_array_equal(bands.first, privacy_levels(0.0, 0.0, h, gamma))
    np.testing.assert_array_equal(bands.table[:, 0], 0.0)
    np.testing.assert_array_equal(
        bands.table, pc._band_edges(bands.first[:, None] + np.arange(width), h[:, None], gamma))


@pytest.mark.parametrize("gamma", [1.05, 4.0])
def test_counts_at_every_tabulated_band_and_past_the_table(gamma):
    """Candidates exactly on each band edge of the table (and one ulp inside), through the
    last tabulated bands and past them, on objects of several bandwidths: k' equals the count
    of records whose level equals the seed's."""
    h_values = np.array([0.2, 0.7, 2.0])
    table = pc._Bands(h_values, gamma)
    width = table.table.shape[1]
    rows_y, rows_z, rows_h = [], [], []
    for r, hv in enumerate(h_values):
        for j in list(range(width)) + [width, width + 1, width + 3]:
            e = (table.table[r, j] if j < width else
                 float(pc._band_edges(table.first[r] + j, hv, gamma)))
            # the seed (record 0) at 0; records placed in the candidate's own band and in
            # the bands around it
            y = np.array([e, np.nextafter(e, 0.0), -e, -np.nextafter(e, 0.0)])
            z = np.array([0.0, 2 * e, 2 * e + 1e-3 * hv, e / 2, 0.0, 3 * e + hv, -e])
            rows_y.append(y)
            rows_z.append(z)
            rows_h.append(hv)
    y, z, h = np.array(rows_y), np.array(rows_z), np.array(rows_h)
    mask = np.ones_like(z, dtype=bool)
    mask[::3, 4] = False  # a masked record is in no band
    seed = np.zeros(y.shape, dtype=int)
    got = privacy_test_counts(y, seed, z, mask, h, gamma)
    want = _counts_by_levels(y, seed, z, mask, h, gamma)
    np.testing.assert_array_equal(got, want)
    assert got.min() >= 1 and got.max() >= 3  # the seed always counts; bands are shared


def test_bands_are_half_open_intervals_of_the_distance():
    """A band is [edge_a, edge_(a+1)) of |y − z|: a record exactly on the next edge is in the
    next band, one ulp short of it in the candidate's own (here the seed's: y = z_s = 0)."""
    gamma, h = 4.0, np.array([0.5])
    e1, e2 = pc._Bands(h, gamma).table[0, 1:3]
    z = np.array([[0.0, e1, np.nextafter(e1, 0.0), -e1, -np.nextafter(e1, 0.0), e2,
                   np.nextafter(e2, 0.0)]])
    mask = np.ones_like(z, dtype=bool)
    y, seed = np.array([[0.0, e1]]), np.array([[0, 0]])
    got = privacy_test_counts(y, seed, z, mask, h, gamma)
    np.testing.assert_array_equal(got, _counts_by_levels(y, seed, z, mask, h, gamma))
    assert got[0, 0] == 3  # 0 and the two records one ulp inside e1


def test_band_tables_are_kept_for_the_16_latest_bandwidth_sets():
    """_Bands.of keeps a table per (bandwidths, γ) for the next call, the 16 latest (the
    oldest is dropped first)."""
    pc._BANDS_KEPT.clear()
    first = pc._Bands.of(np.array([0.5]), 4.0)
    assert pc._Bands.of(np.array([0.5]), 4.0) is first
    assert pc._Bands.of(np.array([0.5]), 2.0) is not first
    for i in range(15):
        pc._Bands.of(np.array([0.6 + i / 100]), 4.0)
    assert len(pc._BANDS_KEPT) == 16 and pc._Bands.of(np.array([0.5]), 4.0) is not first
    assert len(pc._BANDS_KEPT) == 16


@pytest.mark.parametrize("n", [256, 300, 65_536, 70_000])
def test_counts_of_many_records_in_one_band(n):
    """k' = n when every record equals the seed (all in the candidate's band): exact for n at
    and past 2^8 and 2^16 (no wrap-around of the count), with 4 candidates per object."""
    z = np.zeros((1, n))
    mask = np.ones_like(z, dtype=bool)
    y = np.array([[0.0, 0.1, -0.4, 1.3]])
    seed = np.array([[0, n - 1, 3, n // 2]])
    got = privacy_test_counts(y, seed, z, mask, np.array([0.5]), 4.0)
    np.testing.assert_array_equal(got, [[n, n, n, n]])
    mask[0, ::2] = False
    got = privacy_test_counts(y, seed * 0 + 1, z, mask, np.array([0.5]), 4.0)
    np.testing.assert_array_equal(got, [[n // 2] * 4])


def test_counts_of_an_empty_batch():
    z = np.zeros((2, 3))
    out = privacy_test_counts(np.zeros((2, 0)), np.zeros((2, 0), dtype=int), z,
                              np.ones_like(z, dtype=bool), np.array([0.5, 1.0]), 4.0)
    assert out.shape == (2, 0)


# --- Alg. 1 step 3: the seeds ----------------------------------------------------------------


def test_draw_seeds_counts_cdf_values_at_or_below_the_uniform():
    """The seed is the number of CDF values at or below u, capped at n − 1: seed j for u in
    [cdf_{j−1}, cdf_j), so a zero-weight record (its CDF value repeats its predecessor's, or is
    0 for the first) is never drawn, also at u = 0."""
    cdf = np.array([[0.25, 0.25, 0.75, 1.0], [0.5, 1.0, 1.0, 1.0], [0.0, 0.0, 0.5, 1.0]])
    u = np.array([[0.0, 0.2499999, 0.25, 0.75, 0.9],
                  [0.5, 0.4999, 0.75, 1.0, 0.0],
                  [0.0, 0.0, 0.4999, 0.5, 0.9]])
    got = pc._draw_seeds(u, cdf, np.array([0, 1, 2]))
    np.testing.assert_array_equal(got, [[0, 0, 2, 3, 3], [1, 0, 1, 3, 0], [2, 2, 2, 3, 3]])
    # rows of objects in another order, an object twice; unnormalised sums: capped at n − 1
    got = pc._draw_seeds(np.array([[0.6, 0.6], [0.2, 5.0], [0.6, 0.6]]), cdf * 0.5,
                         np.array([1, 0, 1]))
    np.testing.assert_array_equal(got, [[3, 3], [2, 3], [3, 3]])


@pytest.mark.parametrize("n", [257, 70_000])
def test_draw_candidates_all_weight_on_the_last_record(n):
    """Seeds of a CDF (0, …, 0, 1): always the last record (n − 1), past 2^8 and 2^16; the
    candidates are z_s + h·N(0, 1) from the same generator."""
    cdf = np.zeros((2, n))
    cdf[:, -1] = 1.0
    z = np.tile(np.arange(n, dtype=float), (2, 1))
    h = np.array([0.5, 2.0])
    seed, y = draw_candidates(cdf, z, h, 4, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(seed, np.full((2, 4), n - 1))
    rng = np.random.default_rng(1)
    rng.random((2, 4))
    np.testing.assert_array_equal(y, (n - 1) + h[:, None] * rng.standard_normal((2, 4)))


def test_draw_candidates_follow_the_seed_weights():
    """Seeds ~ the weights (a G-test would be overkill: 20 000 draws, within 0.015)."""
    w = np.array([[0.1, 0.0, 0.6, 0.3]])
    cdf = np.cumsum(w, axis=1)
    seed, _ = draw_candidates(cdf, np.zeros((1, 4)), np.array([1.0]), 20_000,
                              rng=np.random.default_rng(2))
    freq = np.bincount(seed.ravel(), minlength=4) / seed.size
    np.testing.assert_allclose(freq, w[0], atol=0.015)
    assert freq[1] == 0.0


# --- Alg. 1 step 5 and Lemma 5: the randomised test --------------------------------------


def test_pass_probability_is_the_laplace_survival_function():
    """Lemma 5: Pr{pass} = Pr{L ≥ k − k'}, L ~ Lap(1/ε0): scipy's Laplace survival function,
    for counts below, at and above k, and real-valued thresholds."""
    for eps0 in (0.3, 1.0, 2.5):
        k = 5
        kp = np.array([0, 2, 4, 4.5, 5, 5.25, 6, 9])
        want = stats.laplace(scale=1.0 / eps0).sf(k - kp)
        np.testing.assert_allclose(pass_probability(kp, k, eps0), want, rtol=1e-12)
    # hand values at ε0 = 1: k' = k → 1/2; k' = k + 1 → 1 − e^(−1)/2; k' = k − 2 → e^(−2)/2
    np.testing.assert_allclose(pass_probability([5, 6, 3], 5, 1.0),
                               [0.5, 1 - 0.5 * np.exp(-1.0), 0.5 * np.exp(-2.0)])


def test_test_batch_passes_a_count_equal_to_its_threshold():
    """Step 5 passes iff k' ≥ k~ (Lemma 5's ≥): a threshold equal to k' passes, one just above
    fails, in the whole-batch count (need ≥ B) and the column-at-a-time count (need < B)."""
    z = np.array([[0.0, 0.0, 0.0, 5.0]])  # k' = 3 for a candidate near 0 seeded at 0
    records = np.ascontiguousarray(z.T)
    bands = pc._Bands(np.array([0.5]), 4.0)
    y = np.array([[0.1, 0.2, -0.1, 0.05]])
    centre = np.zeros_like(y)
    o = np.array([0])
    thr = np.array([[3.0, 3.0 + 1e-9, 3.0, 2.0]])
    cap = np.ones_like(y, dtype=bool)
    full = pc._test_batch(bands, y, centre, records, o, thr, cap, np.array([4]))
    np.testing.assert_array_equal(full, [[True, False, True, True]])
    one = pc._test_batch(bands, y, centre, records, o, thr, cap, np.array([1]))
    np.testing.assert_array_equal(one, [[True, False, False, False]])  # stops at its need
    two = pc._test_batch(bands, y, centre, records, o, thr, cap, np.array([2]))
    np.testing.assert_array_equal(two, [[True, False, True, False]])
    capped = pc._test_batch(bands, y, centre, records, o, thr,
                            np.array([[True, True, False, False]]), np.array([2]))
    np.testing.assert_array_equal(capped, [[True, False, False, False]])
    capped = pc._test_batch(bands, y, centre, records, o, thr,
                            np.array([[True, True, True, False]]), np.array([4]))
    np.testing.assert_array_equal(capped, [[True, False, True, False]])


# --- Alg. 1 as a whole: one candidate at a time, the same draws -----------------------------


def _alg1_reference(z, mask, h, w, *, m, k, gamma, eps0, reps, batch_size, max_candidates,
                    rng, privacy_test=True):
    """Algorithm 1 written plainly, one candidate at a time, from the generator calls
    synthesize documents: per round, for the objects still short of m releases and under the
    cap, ``batch_size`` uniforms (seeds: the number of CDF values at or below each), normals
    (candidates z_s + h·N) and Laplace draws (k~ = k + Lap(1/ε0)); candidates are tested in
    order until the m-th pass or the cap."""
    G, n = z.shape
    cdf = np.cumsum(np.where(mask, w, 0.0), axis=1)
    cdf = cdf / cdf[:, -1:]
    R = reps * G
    obj = np.tile(np.arange(G), reps)
    released = np.full((R, m), np.nan)
    tested_at = np.zeros((R, m), dtype=int)
    n_rel, n_cand, n_pass = (np.zeros(R, dtype=int) for _ in range(3))

    def seeds(u, o):
        return np.minimum((u[:, :, None] >= cdf[o][:, None, :]).sum(axis=2), n - 1)

    if not privacy_test:
        u = rng.random((R, m))
        s = seeds(u, obj)
        y = z[obj[:, None], s] + h[obj][:, None] * rng.standard_normal((R, m))
        return y, np.full(R, m), np.full(R, m), np.full(R, m), np.tile(np.arange(1, m + 1),
                                                                          (R, 1))
    B = batch_size
    while True:
        active = [r for r in range(R) if n_rel[r] < m and n_cand[r] < max_candidates]
        if not active:
            break
        o = obj[active]
        u = rng.random((len(active), B))
        s = seeds(u, o)
        y = z[o[:, None], s] + h[o][:, None] * rng.standard_normal((len(active), B))
        noise = rng.laplace(0.0, 1.0 / eps0, size=(len(active), B))
        for i, r in enumerate(active):
            g = o[i]
            for c in range(B):
                if n_rel[r] == m or n_cand[r] == max_candidates:
                    break
                n_cand[r] += 1
                lev = privacy_levels(y[i, c], z[g], h[g], gamma)
                kp = int(np.sum((lev == lev[s[i, c]]) & mask[g]))
                if kp >= k + noise[i, c]:
                    n_pass[r] += 1
                    released[r, n_rel[r]] = y[i, c]
                    tested_at[r, n_rel[r]] = n_cand[r]
                    n_rel[r] += 1
    return released, n_rel, n_cand, n_pass, tested_at


def _objects():
    rng = np.random.default_rng(21)
    z = np.round(rng.normal(size=(5, 8)), 1)
    mask = np.ones_like(z, dtype=bool)
    mask[1, 5:] = False
    mask[3, 2:] = False  # two claims: k' <= 2, passes rarely
    w = np.where(mask, rng.uniform(0.2, 3.0, z.shape), 0.0)  # unnormalised, masked zero
    w[0, 2] = 0.0  # a zero-weight claim is never a seed
    z[~mask] = 7.0  # masked values are never seeds nor counted
    h = np.array([0.3, 0.5, 0.25, 0.4, 0.6])
    return z, mask, h, w


@pytest.mark.parametrize("m, batch_size, max_candidates, reps", [
    (3, 5, 4, 2),     # m < batch, the cap inside the first batch
    (2, 4, 9, 3),     # m < batch, a cap that is no multiple of the batch
    (7, 3, 40, 2),    # m > batch: several whole batches per object
    (4, 4, 13, 1),    # need = batch
    (1, 1, 6, 2),     # one candidate per round
])
def test_synthesize_equals_algorithm1_one_candidate_at_a_time(m, batch_size, max_candidates,
                                                              reps):
    z, mask, h, w = _objects()
    args = dict(m=m, k=3, gamma=2.5, eps0=0.7, reps=reps, batch_size=batch_size,
                max_candidates=max_candidates)
    got = synthesize(z, mask, h, w, rng=np.random.default_rng(7), **args)
    want = _alg1_reference(z, mask, h, w, rng=np.random.default_rng(7), **args)
    G = z.shape[0]
    for name, a in zip(("released", "n_released", "n_candidates", "n_passed", "tested_at"),
                       want):
        b = getattr(got, name)
        np.testing.assert_array_equal(b, a.reshape(b.shape), err_msg=name)
    assert got.released.shape == (reps, G, m)
    assert (got.n_candidates <= max_candidates).all() and (got.n_released <= m).all()
    assert (got.n_released == got.n_passed).all()
    assert ((got.n_released == m) | (got.n_candidates == max_candidates)).all()


def test_synthesize_without_the_test_releases_m_draws_of_the_mixture():
    z, mask, h, w = _objects()
    args = dict(m=5, k=3, gamma=2.5, eps0=0.7, reps=2, batch_size=3, max_candidates=40)
    got = synthesize(z, mask, h, w, privacy_test=False, rng=np.random.default_rng(3), **args)
    want = _alg1_reference(z, mask, h, w, privacy_test=False, rng=np.random.default_rng(3),
                           **args)
    for name, a in zip(("released", "n_released", "n_candidates", "n_passed", "tested_at"),
                       want):
        b = getattr(got, name)
        np.testing.assert_array_equal(b, a.reshape(b.shape), err_msg=name)


def test_synthesize_defaults_are_the_papers():
    """Sec. 5 (k = 5, γ = 4), ε0 = 1, the test on, one repetition, 10 candidates a round and
    300 at most (Alg1Settings' documented defaults)."""
    z, mask, h, w = _objects()
    d = Alg1Settings()
    explicit = synthesize(z, mask, h, w, m=20, k=d.k, gamma=d.gamma, eps0=d.eps0,
                          privacy_test=True, reps=1, batch_size=d.batch_size,
                          max_candidates=d.max_candidates, rng=np.random.default_rng(4))
    default = synthesize(z, mask, h, w, m=20, rng=np.random.default_rng(4))
    for f in dataclasses.fields(explicit):
        np.testing.assert_array_equal(getattr(default, f.name), getattr(explicit, f.name))
    # the object of two claims (k' <= 2 < k) passes rarely: it stops at the cap of 300
    assert default.n_candidates[0, 3] == 300 and default.n_released[0, 3] < 20
    assert (d.k, d.gamma, d.eps0, d.batch_size, d.max_candidates) == (5, 4.0, 1.0, 10, 300)


def test_synthesize_rejects_bad_counts_and_bandwidths_by_name():
    z, mask, h, w = _objects()
    for key in ("reps", "batch_size", "max_candidates"):
        with pytest.raises(ValueError, match=rf"^{key} "):
            synthesize(z, mask, h, w, m=2, rng=np.random.default_rng(0), **{key: 0})
    for bad, shown in ((-1.0, "-1.0"), (0.0, "0.0"), (np.nan, "nan")):
        hb = h.copy()
        hb[3] = bad  # the first bad one is named, not a good one
        with pytest.raises(ValueError, match=rf"bandwidth must be > 0, got \S*{shown}"):
            synthesize(z, mask, hb, w, m=2, rng=np.random.default_rng(0))
    one = synthesize(z, mask, h, w, m=1, reps=1, batch_size=1, max_candidates=1,
                     rng=np.random.default_rng(0))
    assert one.n_candidates.tolist() == [[1] * 5]


def test_synthesize_chunks_wide_objects():
    """An object of 70 000 claims with 60 candidates a round (a work array past the chunk):
    every claim equal, so every candidate has k' = n and passes."""
    n = 70_000
    z = np.zeros((1, n))
    mask = np.ones_like(z, dtype=bool)
    res = synthesize(z, mask, np.array([0.5]), mask / n, m=2, k=5, batch_size=60,
                     max_candidates=60, rng=np.random.default_rng(0))
    assert res.n_released.tolist() == [[2]] and res.n_candidates.tolist() == [[2]]


def test_candidates_for_reads_the_position_of_the_m_th_release():
    """The m-th release's position where it was reached, the candidates tested (the cap)
    where it was not; m outside [1, the run's m] is named."""
    res = pc.ReleaseResult(
        released=np.zeros((1, 2, 4)), n_released=np.array([[4, 2]]),
        n_candidates=np.array([[9, 30]]),
        tested_at=np.array([[[1, 3, 6, 9], [5, 12, 0, 0]]]), n_passed=np.array([[4, 2]]))
    assert res.candidates_for(1).tolist() == [[1, 5]]
    assert res.candidates_for(2).tolist() == [[3, 12]]
    assert res.candidates_for(3).tolist() == [[6, 30]]
    assert res.candidates_for(4).tolist() == [[9, 30]]
    for bad in (0, 5):
        with pytest.raises(ValueError, match=rf"m must lie in \[1, 4\].*got {bad}"):
            res.candidates_for(bad)


# --- Theorem 2 -------------------------------------------------------------------------------


def test_theorem2_closed_form_with_unequal_weights():
    """ε = ε0 + log(1 + (γ/t)·max c/min c); δ = |U|·max c·e^(−e(k − t)), e = ε0 (Lemmas 8-9)
    or ε (as printed); masked claims are not in U."""
    w = np.array([[0.1, 0.2, 0.3, 0.4, 0.0, 0.0], [0.25, 0.05, 0.3, 0.2, 0.15, 0.05]])
    mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=bool)
    eps, delta = theorem2_budget(w, mask, k=3, gamma=2.0, eps0=0.5, t=2)
    want_eps = 0.5 + np.log(1 + (2.0 / 2) * np.array([4.0, 6.0]))
    np.testing.assert_allclose(eps, want_eps, rtol=1e-14)
    np.testing.assert_allclose(delta, np.array([4 * 0.4, 6 * 0.3]) * np.exp(-0.5 * 1),
                               rtol=1e-14)
    eps_p, delta_p = theorem2_budget(w, mask, k=3, gamma=2.0, eps0=0.5, t=2,
                                     delta_exponent="epsilon")
    np.testing.assert_allclose(eps_p, want_eps, rtol=1e-14)
    np.testing.assert_allclose(delta_p, np.array([1.6, 1.8]) * np.exp(-want_eps), rtol=1e-14)


def test_theorem2_defaults_and_object_size():
    """Defaults k = 5, γ = 4, ε0 = 1, t = 1 (Sec. 5 and Alg1Settings); |U| = k is enough, a
    smaller object gets NaN; a zero weight makes ε infinite."""
    w = np.full((1, 5), 0.2)
    eps, delta = theorem2_budget(w, np.ones((1, 5), bool))
    np.testing.assert_allclose(eps, [1.0 + np.log(1 + 4.0)], rtol=1e-14)
    np.testing.assert_allclose(delta, [5 * 0.2 * np.exp(-1.0 * 4)], rtol=1e-14)
    mask = np.ones((2, 5), bool)
    mask[1, 0] = False
    eps, delta = theorem2_budget(np.full((2, 5), 0.2), mask)
    assert np.isfinite(eps[0]) and np.isnan(eps[1]) and np.isnan(delta[1])
    zero = theorem2_budget(np.array([[0.0, 0.5, 0.5, 0.0, 0.0]]), np.ones((1, 5), bool))
    assert np.isinf(zero[0][0]) and zero[1][0] == pytest.approx(5 * 0.5 * np.exp(-4.0))


def test_theorem2_rejects_bad_parameters_by_name():
    w, mask = np.full((1, 5), 0.2), np.ones((1, 5), bool)
    assert np.isfinite(theorem2_budget(w, mask, k=2, gamma=1.2, t=1)[0]).all()
    for kw, pattern in (({"k": 0}, "^k "), ({"gamma": 1.0}, "^gamma "), ({"t": 0}, "^t "),
                        ({"k": 3, "t": 3}, "t must satisfy 1 <= t < k=3, got 3"),
                        ({"delta_exponent": "eps"}, "delta_exponent must be 'eps0' or")):
        with pytest.raises(ValueError, match=pattern):
            theorem2_budget(w, mask, **kw)
    assert np.isfinite(theorem2_budget(w, mask, delta_exponent="epsilon")[1]).all()


def test_chunks_of_rows_draw_independently_of_the_rows_after_them():
    """synthesize draws a chunk of ⌊_CHUNK / (batch·n)⌋ rows at a time (_CHUNK = 4 000 000
    elements of the work array): the releases of a full chunk's rows do not depend on rows
    after it. With n = 41 claims and one candidate a round (41 divides 4 000 001), a chunk
    holds 97 560 rows: one row more starts a second chunk and leaves the first unchanged."""
    rows = 4_000_000 // 41
    z = np.linspace(-1.0, 1.0, 41)[None, :]
    mask = np.ones_like(z, dtype=bool)
    args = dict(m=1, k=1, batch_size=1, max_candidates=1, h=np.array([0.5]),
                weights=mask / 41.0, z=z, mask=mask)
    one = synthesize(reps=rows, rng=np.random.default_rng(6), **args)
    more = synthesize(reps=rows + 1, rng=np.random.default_rng(6), **args)
    np.testing.assert_array_equal(more.released[:rows], one.released)
    np.testing.assert_array_equal(more.n_released[:rows], one.n_released)


# --- the registry member: settings, claims, guarantee ---------------------------------------


def test_settings_defaults_are_the_documented_ones():
    """Sec. 5: m = 30, k = 5, γ = 4; ε0 = 1 and t = 1 (paper silent, documented ours); 10
    candidates a round, at most 300; z-scored units, MAD bandwidth with floors 1e-6 and 0.05;
    uniform seed weights (Alg1Settings' field help)."""
    d = Alg1Settings()
    assert (d.m, d.k, d.gamma, d.eps0, d.t, d.delta_exponent) == (30, 5, 4.0, 1.0, 1, "eps0")
    assert (d.batch_size, d.max_candidates, d.units, d.bandwidth) == (10, 300, "zscore", "mad")
    assert (d.mad_min, d.h_min, d.weights) == (1e-6, 0.05, "uniform")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.k = 3


def test_settings_are_validated_by_name():
    Alg1Settings(k=2, t=1, batch_size=1, max_candidates=1)  # the smallest valid ones
    for kw, name in (({"t": 0}, "t"), ({"k": 3, "t": 3}, "t"), ({"k": 3, "t": 4}, "t"),
                     ({"batch_size": 0}, "batch_size"), ({"max_candidates": 0},
                                                          "max_candidates"),
                     ({"units": "robust"}, "units"), ({"weights": "global2"}, "weights"),
                     ({"delta_exponent": "e"}, "delta_exponent"), ({"h_min": 0.0}, "h_min")):
        with pytest.raises(ValueError, match=rf"^{name} ") as err:
            Alg1Settings(**kw)
        assert getattr(err.value, "parameter", name) == name
    for weights in ("uniform", "combined", "global"):
        assert Alg1Settings(weights=weights).weights == weights


def test_member_is_not_float_safe_and_fills_no_nulls():
    """Alg. 1 releases Gaussian float64 candidates (not a floating-point-safe sampler: its
    per-record ε as run is ∞) and releases synthetic claims, not filled cells."""
    mech = PrisCrowdAlg1()
    assert mech.float_safe is False and mech.fills_nulls is False
    g = mech.guarantee(mech.settings(), pc.DataShape(workers=3, tasks=4,
                                                     max_records_per_worker=2))
    assert g.float_safe is False and g.record_epsilon == float("inf")


def test_claimed_is_theorem2_for_uniform_weights_over_k_claims():
    """Without weights: one object of k claims with weight 1/k each: ε = ε0 + log(1 + γ/t),
    δ = k·(1/k)·e^(−ε0 (k − t)) = e^(−ε0 (k − t))."""
    mech = PrisCrowdAlg1()
    s = mech.settings(k=4, gamma=3.0, eps0=0.5, t=2)
    c = mech.claimed(s)
    assert c.epsilon == pytest.approx(0.5 + np.log(1 + 3.0 / 2), rel=1e-14)
    assert c.delta == pytest.approx(np.exp(-0.5 * 2), rel=1e-14)
    w = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    c = mech.claimed(s, weights=w, mask=np.ones_like(w, dtype=bool))  # the worst object
    assert c.epsilon == pytest.approx(0.5 + np.log(1 + 1.5 * 4), rel=1e-14)
    assert c.delta == pytest.approx(4 * 0.4 * np.exp(-1.0), rel=1e-14)


def test_guarantee_composes_m_claims_per_object_of_a_worker():
    """Basic composition over the m claims of each of the worker's objects: the worker's δ is
    min(m·objects·δ, 1), the rule names m·objects·ε."""
    mech = PrisCrowdAlg1()
    s = mech.settings(m=3, k=4, gamma=3.0, eps0=2.0, t=1)
    c = mech.claimed(s)  # δ = e^(−6)
    small = mech.guarantee(s, pc.DataShape(workers=5, tasks=9, max_records_per_worker=2))
    assert small.worker_delta == pytest.approx(6 * c.delta, rel=1e-14)
    assert small.record_delta == c.delta and small.ideal_record_epsilon == c.epsilon
    assert f"{6 * c.epsilon:.6g}" in small.worker_rule and "m = 3" in small.worker_rule
    big = mech.guarantee(s, pc.DataShape(workers=5, tasks=900, max_records_per_worker=200))
    assert 600 * c.delta > 1.0 and big.worker_delta == 1.0


def test_sample_release_defaults_to_one_repetition_with_the_test():
    mech = PrisCrowdAlg1()
    z, mask, h, w = _objects()
    s = mech.settings(m=3, k=3, batch_size=4, max_candidates=20)
    got = mech.sample_release(z, mask, h, w, s, rng=np.random.default_rng(2))
    want = synthesize(z, mask, h, w, m=3, k=3, gamma=s.gamma, eps0=s.eps0, privacy_test=True,
                      reps=1, batch_size=4, max_candidates=20, rng=np.random.default_rng(2))
    for f in dataclasses.fields(want):
        np.testing.assert_array_equal(getattr(got, f.name), getattr(want, f.name))
    two = mech.sample_release(z, mask, h, w, s, rng=np.random.default_rng(2), m=2)
    assert two.released.shape == (1, 5, 2)


# --- the audit's neighbours and cases; the declared law ------------------------------------


def test_audit_neighbours_closed_form():
    """×1000, Q3 + 3 IQR (×1.01, just beyond Tukey's far fence), −last; numpy's percentiles."""
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 9.0, 2.5, 6.0])  # sorted: 1 2 2.5 3 4 5 6 7 9
    (w1, v1), (w2, v2), (w3, v3) = audit_neighbours(x)
    assert v1 == 6000.0 and "(1000 times it: 6000)" in w1
    q1, q3 = 2.5, 6.0  # linear interpolation at positions 2 and 6 of 0..8
    assert v2 == pytest.approx(q3 + 3.0 * (q3 - q1) * 1.01, rel=1e-15)
    assert f"Q3 + 3 IQR: {v2:.4g}" in w2 and v2 == pytest.approx(16.605)
    assert v3 == -6.0 and "(-6)" in w3


def test_audit_cases_claims_and_samplers():
    """The cases' claimed (ε, δ) are Theorem 2's for uniform weights over 12 claims and for
    1:3 weights (max/min = 3); the composition case is m × (ε, δ); a fixed-units case releases
    draws of D's normalised claims mapped back to the data's units (mean + scale · y)."""
    from crowdpriv.kde import normalise_objects

    mech = PrisCrowdAlg1()
    s = mech.settings(m=4, k=5, gamma=4.0, eps0=1.0, t=1)
    cases = mech.audit_cases(s)
    assert len(cases) == 8
    eps_u = 1.0 + np.log1p(4.0)
    delta_u = 12 * (1 / 12) * np.exp(-4.0)
    ranked = np.linspace(1.0, 3.0, 12)
    ranked = ranked / ranked.sum()
    eps_w, delta_w = 1.0 + np.log1p(4.0 * 3.0), 12 * ranked.max() * np.exp(-4.0)
    claimed = [(c.claimed_epsilon, c.claimed_delta) for c in cases]
    np.testing.assert_allclose(claimed[0], (eps_w, delta_w), rtol=1e-12)
    for i in (1, 2, 3, 4, 5):
        np.testing.assert_allclose(claimed[i], (eps_u, delta_u), rtol=1e-12)
    np.testing.assert_allclose(claimed[6], (eps_w, delta_w), rtol=1e-12)
    np.testing.assert_allclose(claimed[7], (4 * eps_u, min(4 * delta_u, 1.0)), rtol=1e-12)
    assert [c.claimed for c in cases] == [True] * 7 + [False]
    assert f"= ({4 * eps_u:.4g}, {min(4 * delta_u, 1.0):.3g})" in cases[7].composition
    for c in cases[:2]:
        assert "theorem's setting" in c.neighbours and "Theorem 2" in c.note
    for c in cases[2:7]:
        assert "as run" in c.neighbours and "Theorem 2" in c.note
    # D's own release: the theorem's setting and "as run" normalise D alike
    d = pc.AUDIT_OBJECT[None, :]
    mask = np.ones_like(d, dtype=bool)
    z, mean, scale = normalise_objects(d, mask, units=s.units)
    h = mech.units(d, mask, s)[3]
    uniform = np.full(d.shape, 1 / 12)
    for c in (cases[1], cases[2]):
        got = c.sample(np.random.default_rng(3), 50, "D")
        res = synthesize(z, mask, h, uniform, m=1, k=5, gamma=4.0, eps0=1.0, reps=50,
                         batch_size=s.batch_size, max_candidates=s.max_candidates,
                         rng=np.random.default_rng(3))
        want = mean[0] + scale[0] * res.released[:, 0, 0]
        np.testing.assert_allclose(got, np.nan_to_num(want, nan=-1e9), rtol=1e-12)
    # D' differs from D (its last claim replaced), the m-th and the max of m claims
    assert not np.array_equal(cases[1].sample(np.random.default_rng(3), 50, "D'"),
                              cases[1].sample(np.random.default_rng(3), 50, "D"))
    last = cases[5].sample(np.random.default_rng(4), 30, "D")
    top = cases[7].sample(np.random.default_rng(4), 30, "D")
    res = synthesize(z, mask, h, uniform, m=4, k=5, gamma=4.0, eps0=1.0, reps=30,
                     batch_size=s.batch_size, max_candidates=s.max_candidates,
                     rng=np.random.default_rng(4))
    vals = mean[0] + scale[0] * res.released[:, 0, :]
    np.testing.assert_allclose(last, np.nan_to_num(vals[:, -1], nan=-1e9), rtol=1e-12)
    np.testing.assert_allclose(top, np.nanmax(np.where(np.isnan(vals), -1e9, vals), axis=1),
                               rtol=1e-12)


def test_declared_law_is_the_mixture_and_lemma5():
    """The mixture's CDF is a CDF (0 → 1, at z_s it holds the weights left of it), and the
    test's pass probability for k' = k + 1 is Lemma 5's 1 − e^(−ε0)/2."""
    mech = PrisCrowdAlg1()
    for s in mech.law_settings():
        mixture, passes = mech.law(s)
        assert mixture.cdf(-50.0) == pytest.approx(0.0, abs=1e-15)
        assert mixture.cdf(50.0) == pytest.approx(1.0, rel=1e-15)
        p = 1.0 - 0.5 * np.exp(-s.eps0)
        np.testing.assert_allclose(passes.probabilities, [1.0 - p, p], rtol=1e-15)
        np.testing.assert_array_equal(passes.support, [0, 1])
        draws = passes.sample(np.random.default_rng(1), 4000)
        assert set(np.unique(draws)) <= {0, 1}
        assert draws.mean() == pytest.approx(p, abs=0.03)
        x = mixture.sample(np.random.default_rng(1), 4000)
        assert stats.kstest(x, mixture.cdf).pvalue > 1e-3
    assert [(s.k, s.eps0) for s in mech.law_settings()] == [(5, 1.0), (3, 0.5)]


def test_audit_releases_of_d_prime_and_the_unreleased_value():
    """D' is the audit object with its last claim replaced (the theorem's setting: normalised
    with D's units, D's bandwidth); a claim the cap left unreleased is −1e9 (documented)."""
    from crowdpriv.kde import normalise_objects

    mech = PrisCrowdAlg1()
    s = mech.settings(m=2, k=12, gamma=4.0, eps0=5.0, max_candidates=1, batch_size=1)
    cases = mech.audit_cases(s)
    d = pc.AUDIT_OBJECT[None, :]
    mask = np.ones_like(d, dtype=bool)
    _, mean, scale = normalise_objects(d, mask, units=s.units)
    h = mech.units(d, mask, s)[3]
    d2 = d.copy()
    d2[0, -1] = pc.AUDIT_MOVED
    uniform = np.full(d.shape, 1 / 12)
    res = synthesize((d2 - mean[:, None]) / scale[:, None], mask, h, uniform, m=1, k=12,
                     gamma=4.0, eps0=5.0, reps=200, batch_size=1, max_candidates=1,
                     rng=np.random.default_rng(8))
    want = mean[0] + scale[0] * res.released[:, 0, 0]
    assert np.isnan(want).sum() > 100  # k' = 12 is needed: most candidates fail
    got = cases[1].sample(np.random.default_rng(8), 200, "D'")
    np.testing.assert_array_equal(np.isnan(want), got == -1e9)
    np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=1e-12)
    for c in (cases[5], cases[7]):  # the m-th and the max of m = 2 claims
        out = c.sample(np.random.default_rng(8), 200, "D")
        assert (out == -1e9).sum() > 100 and np.all((out == -1e9) | (np.abs(out - 5) < 5))


def test_every_audit_case_releases_what_its_neighbours_say():
    """Each case's sampler, for D and D′, against a release built from its description: which
    claim value replaces the last (moved to AUDIT_MOVED, or audit_neighbours' data-entry
    error, far tail, sign flip), the weights (1:3 or uniform), the units (the theorem's
    setting: D's; as run: each input's own) and the statistic (first, m-th, max of m)."""
    mech = PrisCrowdAlg1()
    s = mech.settings(m=3, k=6, gamma=4.0, eps0=2.0, max_candidates=4, batch_size=2)
    cases = mech.audit_cases(s)
    d = pc.AUDIT_OBJECT[None, :]
    mask = np.ones_like(d, dtype=bool)
    z_d, mean_d, scale_d, h_d = mech.units(d, mask, s)
    uniform = np.full(d.shape, 1 / 12)
    ranked = np.linspace(1.0, 3.0, 12)[None, :] / np.linspace(1.0, 3.0, 12).sum()
    nb = [v for _, v in audit_neighbours(pc.AUDIT_OBJECT)]
    specs = [(pc.AUDIT_MOVED, ranked, True, "first"), (pc.AUDIT_MOVED, uniform, True, "first"),
             (nb[0], uniform, False, "first"), (nb[1], uniform, False, "first"),
             (nb[2], uniform, False, "first"), (nb[0], uniform, False, "last"),
             (nb[0], ranked, False, "first"), (pc.AUDIT_MOVED, uniform, True, "max")]
    assert "data-entry error" in cases[5].neighbours and "data-entry error" in cases[6].neighbours
    for case, (value, w, fixed, stat) in zip(cases, specs):
        for which in ("D", "D'"):
            claims = d.copy()
            if which == "D'":
                claims[0, -1] = value
            if fixed:
                z, mean, scale, h = (claims - mean_d[:, None]) / scale_d[:, None], mean_d, \
                    scale_d, h_d
            else:
                z, mean, scale, h = mech.units(claims, mask, s)
            res = synthesize(z, mask, h, w, m=1 if stat == "first" else 3, k=6, gamma=4.0,
                             eps0=2.0, reps=40, batch_size=2, max_candidates=4,
                             rng=np.random.default_rng(12))
            v = mean[0] + scale[0] * res.released[:, 0, :]
            v = np.where(np.isnan(v), -1e9, v)
            want = v[:, 0] if stat == "first" else v[:, -1] if stat == "last" else v.max(axis=1)
            got = case.sample(np.random.default_rng(12), 40, which)
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{case.neighbours} {which}")


def test_audit_composition_delta_is_capped_at_one():
    """m × δ of the composition case is capped at 1 (a probability): ε0 = 0.1 gives
    δ = e^(−0.4) per claim, 30 δ > 1."""
    case = PrisCrowdAlg1().audit_cases(Alg1Settings(m=30, eps0=0.1))[7]
    assert 30 * np.exp(-0.4) > 1 and case.claimed_delta == 1.0
    assert case.composition.endswith(", 1)") and case.claimed is False
