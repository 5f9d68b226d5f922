"""The long-format container (crowdpriv.answers) and truth inference written once (crowdpriv.truth)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crowdpriv.answers import Answers, DenseAnswers, from_array, from_codes
from crowdpriv.truth import crh, crh_weights, gtm, infer, sun


def _noisy(rng, groups, m, n, missing, labels=False):
    truth = rng.uniform(0, 9, size=(groups, 1, n))
    sd = rng.uniform(0.3, 3, size=(groups, m, 1))
    x = truth + rng.normal(size=(groups, m, n)) * sd
    if labels:
        x = np.clip(np.rint(x), 0, 9)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, 0, :] = np.where(np.isnan(x[:, 0, :]), 4.0, x[:, 0, :])  # every task answered
    return x


# -- Answers ---------------------------------------------------------------------------------

def test_answers_dtypes_and_roundtrip():
    df = pd.DataFrame({"task": ["b", "a", "b"], "worker": ["w2", "w1", "w1"],
                       "value": [3.0, 1.5, 2.0]})
    ans = Answers.from_frame(df)
    assert ans.task.dtype == np.int32 and ans.worker.dtype == np.int32
    assert ans.value.dtype == np.float64 and (ans.n_tasks, ans.n_workers) == (2, 2)
    back = ans.to_frame()
    assert back.sort_values(["task", "worker"]).to_numpy().tolist() == (
        df.sort_values(["task", "worker"]).to_numpy().tolist())
    labels = Answers.from_frame(df.assign(value=[1, 0, 1]), categorical=True)
    assert labels.value.dtype == np.int8


def test_float64_keeps_population_counts_exact():
    big = 2**24 + 1  # float32 would round it
    ans = Answers([0], [0], [float(big)], 1, 1)
    assert ans.value[0] == big


@pytest.mark.parametrize("kwargs, message", [
    (dict(task=[0, 1], worker=[0], value=[1.0, 2.0]), "one length"),
    (dict(task=[2], worker=[0], value=[1.0]), r"task indices must lie in \[0, 2\)"),
    (dict(task=[0], worker=[-1], value=[1.0]), r"worker indices must lie in \[0, 1\)"),
    (dict(task=[0], worker=[0], value=[np.nan]), "must be finite"),
    (dict(task=[0], worker=[0], value=[300]), "fit int8"),
])
def test_answers_reject_bad_arrays(kwargs, message):
    sizes = dict(n_tasks=2, n_workers=1)
    with pytest.raises(ValueError, match=message):
        Answers(**kwargs, **sizes)


def test_groups_must_divide_the_sizes():
    with pytest.raises(ValueError, match="must divide"):
        Answers([0], [0], [1.0], 3, 2, groups=2)


def test_from_frame_refuses_missing_ids():
    df = pd.DataFrame({"task": ["a", None], "worker": ["w", "w"], "value": [1.0, 2.0]})
    with pytest.raises(ValueError, match="missing"):
        Answers.from_frame(df)


def test_dense_roundtrip_and_reductions_agree():
    rng = np.random.default_rng(3)
    x = _noisy(rng, 2, 7, 5, missing=0.4)
    long, dense = Answers.from_dense(x), DenseAnswers(x)
    np.testing.assert_array_equal(long.to_dense(), x)
    w = rng.uniform(0.1, 2, size=long.n_workers)
    t = rng.normal(size=long.n_tasks)
    scale = rng.uniform(0.5, 2, size=long.n_tasks)
    for a, b in zip(long.task_sums(w), dense.task_sums(w)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(long.worker_losses(t, scale), dense.worker_losses(t, scale),
                               rtol=1e-10)
    np.testing.assert_allclose(long.task_moments(), dense.task_moments(), rtol=1e-12)
    np.testing.assert_allclose(long.task_medians(), np.nanmedian(x, axis=1).ravel())
    np.testing.assert_allclose(dense.task_medians(), np.nanmedian(x, axis=1).ravel())


def test_from_array_picks_the_layout():
    dense = np.ones((4, 4))
    sparse = np.full((10, 10), np.nan)  # 1 % answered: below DENSE_ABOVE
    sparse[0, 0] = 1
    assert isinstance(from_array(dense), DenseAnswers)
    assert isinstance(from_array(sparse), Answers)


# -- truth inference ---------------------------------------------------------------------------

METHODS = [("sun", dict(), True), ("crh", dict(), False), ("gtm", dict(), False)]


@pytest.mark.parametrize("method, kwargs, labels", METHODS)
def test_long_and_dense_layouts_give_the_same_result(method, kwargs, labels):
    rng = np.random.default_rng(1)
    x = _noisy(rng, 3, 20, 15, missing=0.3, labels=labels)
    a = infer(Answers.from_dense(x), method=method, **kwargs)
    b = infer(DenseAnswers(x), method=method, **kwargs)
    np.testing.assert_allclose(a.truths, b.truths, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(a.iterations, b.iterations)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), groups=st.integers(1, 4),
       method=st.sampled_from(["sun", "crh", "gtm"]))
def test_a_group_does_not_depend_on_what_it_is_stacked_with(seed, groups, method):
    rng = np.random.default_rng(seed)
    x = _noisy(rng, groups, 6, 5, missing=0.3, labels=method == "sun")
    stacked = infer(Answers.from_dense(x), method=method)
    for g in range(groups):
        alone = infer(Answers.from_dense(x[g]), method=method)
        np.testing.assert_allclose(stacked.truths.reshape(groups, -1)[g], alone.truths,
                                   rtol=1e-12, atol=1e-12)
        assert stacked.iterations[g] == alone.iterations[0]


@pytest.mark.parametrize("method", ["sun", "crh", "gtm"])
def test_unanimous_workers_give_the_common_answer(method):
    x = np.tile(np.array([[2.0, 5.0, 7.0]]), (4, 1))
    res = infer(Answers.from_dense(x), method=method)
    np.testing.assert_allclose(res.truths, [2.0, 5.0, 7.0], atol=1e-9)
    assert res.converged.all()


def test_sun_trusts_the_accurate_worker():
    rng = np.random.default_rng(5)
    truth = rng.uniform(0, 9, 200)
    good = truth + rng.normal(0, 0.1, 200)
    bad = truth + rng.normal(0, 3, (4, 200))
    res = sun(Answers.from_dense(np.vstack([good, bad])))
    assert res.weights[0] > 2 * res.weights[1:].max()
    assert np.abs(res.truths - truth).mean() < np.abs(bad.mean(0) - truth).mean()
    np.testing.assert_allclose(res.weights.sum(), 1.0)


def test_sun_leaves_unanswered_tasks_nan():
    x = np.array([[1.0, np.nan], [3.0, np.nan]])
    res = sun(Answers.from_dense(x))
    assert np.isfinite(res.truths[0]) and np.isnan(res.truths[1])


def test_crh_weights_are_minus_log_normalised_losses():
    x = np.array([[1.0, 2.0], [1.0, 4.0], [3.0, 2.0]])
    t = np.array([1.0, 2.0])
    w = crh_weights(Answers.from_dense(x), t, scale=np.ones(2), loss_floor=1e-12)
    loss = np.array([0.0, 4.0, 4.0]) + 1e-12
    np.testing.assert_allclose(w, -np.log(loss / loss.sum()))


def test_crh_and_gtm_refuse_an_object_without_claims():
    x = np.array([[1.0, np.nan], [2.0, np.nan]])
    for method in (crh, gtm):
        with pytest.raises(ValueError, match="every object needs at least one claim"):
            method(Answers.from_dense(x))


def test_gtm_prior_pulls_a_lone_claim_towards_the_median():
    x = np.array([[0.0, 10.0], [0.0, 10.0], [6.0, 10.0]])
    res = gtm(Answers.from_dense(x))
    assert 0.0 <= res.truths[0] < 3.0 and res.truths[1] == pytest.approx(10.0)


def test_unknown_method():
    with pytest.raises(ValueError, match="method must be one of"):
        infer(np.ones((2, 2)), method="mean")


# -- label codes (LDP-sparse's 1-byte answers) -------------------------------------------------


def _codes_and_float(rng, groups, m, n, null_share, k=5):
    codes = rng.integers(0, k, size=(groups, m, n)).astype(np.int8)
    codes[rng.random(codes.shape) < null_share] = k
    values = codes.astype(np.float32)
    values[codes == k] = np.nan
    return codes, values


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), groups=st.integers(1, 3),
       null_share=st.sampled_from([0.0, 0.01, 0.5, 0.99, 1.0]),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_codes_give_the_numbers_of_the_float_matrix(seed, groups, null_share, dtype):
    # from_codes must pick the same layout and hold the same numbers as from_array on the
    # float matrix with NaN for NULL, so results do not depend on the representation
    rng = np.random.default_rng(seed)
    codes, values = _codes_and_float(rng, groups, 30, 20, null_share)
    a, b = from_array(values, dtype=dtype), from_codes(codes, 5, dtype=dtype)
    assert type(a) is type(b)
    if isinstance(a, DenseAnswers):
        for name in ("block", "center", "_worker_counts", "_task_counts"):
            x, y = getattr(a, name), getattr(b, name)
            assert x.dtype == y.dtype and np.array_equal(x, y), name
        assert a.dense == b.dense
    else:
        for name in ("task", "worker", "value"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
    ra, rb = sun(a), sun(b)
    np.testing.assert_array_equal(ra.truths, rb.truths)
    np.testing.assert_array_equal(ra.weights, rb.weights)


def test_from_codes_refuses_float_codes():
    with pytest.raises(ValueError, match="integers"):
        from_codes(np.zeros((2, 2)), 5)


# -- the reductions: one pass each, exact far from zero, the results of the per-answer sums ----


def _far_from_zero(rng, m=40, n=30):
    """Answers around 1e6 with a spread of 1e-3 (population counts, say), 30 % NULL."""
    truth = 1e6 + rng.uniform(-5, 5, size=n)
    x = truth + rng.normal(size=(m, n)) * 1e-3
    x[rng.random(x.shape) < 0.3] = np.nan
    x[0] = truth + 1e-3  # every task answered
    return x, truth + rng.normal(size=n) * 1e-3


@pytest.mark.parametrize("layout", [Answers.from_dense, DenseAnswers])
def test_worker_losses_stay_exact_far_from_zero(layout):
    """Σ (a − t)² / s per worker from the one-pass expansion equals the per-answer sum on data
    around 1e6 with a spread of 1e-3; the uncentred expansion Σ a² − 2 t Σ a + Σ t², written
    here, loses every digit on the same data (so this check can fail)."""
    rng = np.random.default_rng(7)
    x, t = _far_from_zero(rng)
    scale = rng.uniform(0.5, 2.0, size=x.shape[1])
    direct = np.nansum((x - t) ** 2 / scale, axis=1)
    src = layout(x)
    np.testing.assert_allclose(src.worker_losses(t, scale), direct, rtol=1e-9)
    np.testing.assert_allclose(src.worker_losses(t), np.nansum((x - t) ** 2, axis=1), rtol=1e-9)
    a, answered = np.nan_to_num(x), ~np.isnan(x)
    naive = (a * a / scale).sum(1) - 2 * (a * t / scale).sum(1) + (answered * t * t / scale).sum(1)
    assert not np.allclose(naive, direct, rtol=1e-3)
    num, den = src.task_sums(np.ones(x.shape[0]))
    np.testing.assert_allclose(num / den, np.nanmean(x, axis=0), rtol=1e-15)


class _PerAnswerSums:
    """The reductions as per-answer ``np.bincount`` sums (crowdpriv at eff617d): the reference
    the one-pass reductions must reproduce to floating-point tolerance."""

    def __init__(self, answers):
        self.a = answers
        self.groups, self.n_tasks = answers.groups, answers.n_tasks
        self.n_workers = answers.n_workers
        self.task_counts, self.worker_counts = answers.task_counts, answers.worker_counts

    def task_sums(self, w):
        a, wk = self.a, w[self.a.worker]
        return (np.bincount(a.task, wk * a.value, a.n_tasks), np.bincount(a.task, wk, a.n_tasks))

    def worker_losses(self, truth, task_scale=None):
        d = (self.a.value - truth[self.a.task]) ** 2
        if task_scale is not None:
            d /= task_scale[self.a.task]
        return np.bincount(self.a.worker, d, self.a.n_workers)

    def task_moments(self):
        return self.a.task_moments()

    def task_medians(self):
        return self.a.task_medians()

    def standardised(self, center, scale):
        return _PerAnswerSums(self.a.standardised(center, scale))


@pytest.mark.parametrize("method, far", [("sun", False), ("crh", False), ("gtm", False),
                                         ("crh", True), ("gtm", True)])
def test_one_pass_reductions_give_the_per_answer_results(method, far):
    """Stated tolerance: truths and weights within 1e-9 (relative) of the per-answer sums, the
    same iteration counts. On data around 1e6 (CRH and GTM, both translation-equivariant; Sun's
    tolerance is absolute, for labels) the
    reference runs on the answers minus 1e6 (exact here), where its own sums Σ w a lose no
    digits: unshifted, the reference is the less accurate of the two (by ~1e-7). There the
    weights agree to 1e-6: a truth around 1e6 is held to its float64 spacing, 1.2e-10, i.e.
    1e-7 of the answers' 1e-3 spread, whatever the reductions (the reference on shifted data
    holds it near 0, finer)."""
    rng = np.random.default_rng(11)
    x = _far_from_zero(rng)[0] if far else _noisy(rng, 3, 30, 20, 0.4, labels=method == "sun")
    shift = 1e6 if far else 0.0
    new = infer(Answers.from_dense(x), method=method)
    ref = infer(_PerAnswerSums(Answers.from_dense(x - shift)), method=method)
    np.testing.assert_allclose(new.truths, ref.truths + shift, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(new.weights, ref.weights, rtol=1e-6 if far else 1e-9)
    np.testing.assert_array_equal(new.iterations, ref.iterations)


def test_free_reductions_drops_the_sparse_matrix_and_rebuilds_it_alike():
    from crowdpriv.answers import Answers

    rng = np.random.default_rng(5)
    matrix = rng.normal(size=(9, 7))
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    answers = Answers.from_dense(matrix)
    weights = rng.random(answers.n_workers)
    before = answers.task_sums(weights)
    assert "_paired" in answers.__dict__
    answers.free_reductions()
    assert "_paired" not in answers.__dict__
    after = answers.task_sums(weights)
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
