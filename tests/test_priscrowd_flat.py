"""PrisCrowd phase 1 on the flat claim layout (crowdpriv.priscrowd._flat)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crowdpriv.priscrowd._flat import fit_flat, flat_claims, rkhs_sq, segment_quantiles
from crowdpriv.priscrowd._kde import bandwidth, pack_objects, rkhs_sq_distances
from crowdpriv.priscrowd._weights import hampel_irwls_weight


def _claims(rng, n_objects=30, n_sources=12, low=2, high=9):
    obj, src, val = [], [], []
    for i in range(n_objects):
        k = rng.integers(low, high + 1)
        who = rng.choice(n_sources, size=k, replace=False)
        truth = rng.normal(100, 30)
        obj += [i] * k
        src += list(who)
        val += list(truth + rng.normal(0, 5, k) * (1 + (who % 3)))
    return np.array(obj), np.array(src), np.array(val), n_objects, n_sources


@pytest.fixture(scope="module")
def toy():
    return _claims(np.random.default_rng(7))


def test_segment_quantiles_match_numpy(toy):
    obj, src, val, n_obj, _ = toy
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    got = segment_quantiles(fc.z, fc, [0.1, 0.5, 0.85])
    for i in range(n_obj):
        z = fc.z[fc.obj == i]
        np.testing.assert_allclose(got[:, i], np.quantile(z, [0.1, 0.5, 0.85]), rtol=1e-12)


def test_bandwidths_and_distances_match_the_batched_layout(toy):
    obj, src, val, n_obj, _ = toy
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    batches = pack_objects(obj, src, val, n_objects=n_obj)
    w = np.random.default_rng(1).random(len(fc.obj))
    w = fc.normalise(w)
    d = rkhs_sq(fc, w)
    for b in batches:
        np.testing.assert_allclose(fc.h[b.index], bandwidth(b.z, b.mask), rtol=1e-12)
        idx = fc.start[b.index][:, None] + np.arange(b.mask.shape[1])[None, :]
        wb = np.where(b.mask, w[np.minimum(idx, len(w) - 1)], 0.0)
        db = rkhs_sq_distances(b.K, wb)
        np.testing.assert_allclose(d[idx[b.mask]], db[b.mask], rtol=1e-9, atol=1e-12)


def _gram(z, h):
    d = z[:, None] - z[None, :]
    return np.exp(-0.5 * d * d / h**2) / (np.sqrt(2 * np.pi) * h)


def _sq_dist(K, w):
    return np.maximum(np.diag(K) - 2 * K @ w + w @ K @ w, 0.0)


def _objects(fc):
    for i in range(fc.n_objects):
        sl = slice(fc.start[i], fc.start[i] + fc.counts[i])
        yield sl, _gram(fc.z[sl], fc.h[i])


def test_global_weights_equal_a_plain_loop_over_objects(toy):
    """Eq. 1-2 written object by object with explicit Gram matrices (reference)."""
    obj, src, val, n_obj, n_src = toy
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    g_flat, _, _, n_iter, _ = fit_flat(fc, n_src, tol=1e-10)
    g = np.ones(n_src)
    for it in range(1, 101):
        total = np.zeros(n_src)
        for sl, K in _objects(fc):
            w = g[fc.src[sl]]
            w = w / w.sum() if w.sum() > 0 else np.full(len(w), 1 / len(w))
            np.add.at(total, fc.src[sl], _sq_dist(K, w))
        g_new = -np.log(np.maximum(total / total.sum(), 1e-300))
        delta, g = np.abs(g_new - g).max(), g_new
        if delta < 1e-10:
            break
    np.testing.assert_allclose(g_flat, g, rtol=1e-9)
    assert n_iter == it


def test_local_weights_equal_a_plain_irwls_per_object(toy):
    """Eq. 3-4 (Hampel IRWLS, thresholds from the initial residuals) object by object."""
    obj, src, val, n_obj, n_src = toy
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    _, local, _, _, iterations = fit_flat(fc, n_src)
    for i, (sl, K) in enumerate(_objects(fc)):
        n = K.shape[0]
        w = np.full(n, 1 / n)
        r = np.sqrt(_sq_dist(K, w))
        q1, q2, q3 = np.quantile(r, [0.5, 0.75, 0.85])
        for it in range(1, 101):
            w_new = hampel_irwls_weight(r, q1, q2, q3)
            w_new = w_new / w_new.sum() if w_new.sum() > 0 else np.full(n, 1 / n)
            delta, w = np.abs(w_new - w).max(), w_new
            if delta < 1e-8:
                break
            r = np.sqrt(_sq_dist(K, w))
        np.testing.assert_allclose(local[sl], w, rtol=1e-9, atol=1e-13)
        assert iterations[i] == it


def test_local_weights_of_an_object_do_not_depend_on_the_others(toy):
    """Per-object convergence: fitting an object alone gives its weights exactly."""
    obj, src, val, n_obj, n_src = toy
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    _, local, _, _, iterations = fit_flat(fc, n_src)
    for i in (0, 7, 19):
        sel = obj == i
        alone = flat_claims(np.zeros(sel.sum(), dtype=int), src[sel], val[sel], n_objects=1)
        _, local_alone, _, _, it_alone = fit_flat(alone, n_src)
        np.testing.assert_allclose(local[fc.obj == i], local_alone, rtol=1e-12, atol=1e-15)
        assert iterations[i] == it_alone[0]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_weights_are_distributions_per_object(seed):
    obj, src, val, n_obj, n_src = _claims(np.random.default_rng(seed), n_objects=8)
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    g, local, combined, _, _ = fit_flat(fc, n_src)
    assert (g >= 0).all() and (local >= 0).all() and (combined >= 0).all()
    np.testing.assert_allclose(fc.per_object_sum(local), 1.0)
    np.testing.assert_allclose(fc.per_object_sum(combined), 1.0)


def test_single_claim_object_is_refused():
    with pytest.raises(ValueError, match="needs at least 2"):
        flat_claims([0, 1, 1], [0, 0, 1], [1.0, 2.0, 3.0], n_objects=2)


@pytest.mark.parametrize("pairs_up_to, block_min", [(0, 1), (10**9, 1), (16, 16), (5, 2)])
def test_gram_layout_changes_no_weight_and_no_iteration(monkeypatch, pairs_up_to, block_min):
    """Flat pairs and (G, n, n) blocks add (K w)_s in the same order: every layout gives
    bit-identical weights and iteration counts, also when the local phase narrows to objects
    that are all in blocks (a subset with no pairs left)."""
    from crowdpriv.priscrowd import _flat

    obj, src, val, n_obj, n_src = _claims(np.random.default_rng(3), n_objects=60,
                                          n_sources=50, low=2, high=30)
    reference = fit_flat(flat_claims(obj, src, val, n_objects=n_obj), n_src)
    monkeypatch.setattr(_flat, "PAIRS_UP_TO", pairs_up_to)
    monkeypatch.setattr(_flat, "BLOCK_MIN_OBJECTS", block_min)
    fc = flat_claims(obj, src, val, n_objects=n_obj)
    in_blocks = sum(rows.size for rows, _ in fc.blocks)
    assert in_blocks + len(np.unique(fc.pair_s)) == len(fc.obj)
    if pairs_up_to == 0:
        assert len(fc.pair_s) == 0 and in_blocks == len(fc.obj)
    got = fit_flat(fc, n_src)
    for a, b in zip(reference, got):
        np.testing.assert_array_equal(a, b)
