"""Mechanisms in worker blocks (crowdpriv.streaming): compact outputs, same reductions as dense."""

from __future__ import annotations

import numpy as np
import pytest

from crowdpriv.answers import DenseAnswers
from crowdpriv.ldp_sparse import synthetic_long
from crowdpriv.mechanisms.mf import draw_task_profiles
from crowdpriv.streaming import BlockedAnswers, perturb_in_blocks
from crowdpriv.truth import sun


@pytest.fixture(scope="module")
def data():
    return synthetic_long(300, 50, 0.8, seed=1, block_workers=70)


def _dense_of(out):
    if hasattr(out, "u"):
        return out.u @ out.v
    rows = []
    for _, _, block, null in out.blocks:
        b = block.astype(float)
        rows.append(np.where(block == null, np.nan, b) if null is not None else b)
    return np.vstack(rows)


def test_synthetic_long_follows_the_papers_model(data):
    answers, truth, sigma = data
    per_worker = np.bincount(answers.worker, minlength=300)
    assert (per_worker == 10).all()  # round((1 - 0.8) * 50) each
    assert answers.value.dtype == np.int8 and 0 <= answers.value.min() <= answers.value.max() <= 9
    assert (np.diff(answers.worker) >= 0).all()
    assert set(np.unique(sigma)) == {1.0, 5.0} and (sigma == 1.0).sum() == 150
    again = synthetic_long(300, 50, 0.8, seed=1, block_workers=70)[0]
    np.testing.assert_array_equal(again.value, answers.value)


@pytest.mark.parametrize("method", ["LP", "RR", "2-Layer", "MF"])
def test_blocked_output_reduces_like_its_dense_matrix(data, method):
    answers, _, _ = data
    profiles = draw_task_profiles(50, 10, rng=np.random.default_rng(2))
    out = perturb_in_blocks(answers, method, 1.0, seed=3, domain_size=10, block_workers=70,
                            profiles=profiles)
    ref = DenseAnswers(_dense_of(out))
    rng = np.random.default_rng(0)
    w, t, scale = rng.random(300), rng.normal(size=50), rng.uniform(0.5, 2, 50)
    for got, want in zip(out.task_sums(w), ref.task_sums(w)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out.worker_losses(t, scale), ref.worker_losses(t, scale),
                               rtol=1e-5)
    np.testing.assert_allclose(out.worker_counts, ref.worker_counts)
    np.testing.assert_allclose(out.task_counts, ref.task_counts)
    a, b = sun(out), sun(ref)
    np.testing.assert_allclose(a.truths, b.truths, atol=1e-5)
    assert a.iterations[0] == b.iterations[0]


def test_outputs_are_compact(data):
    answers, _, _ = data
    lp = perturb_in_blocks(answers, "LP", 1.0, seed=3, domain_size=10, block_workers=70)
    rr = perturb_in_blocks(answers, "RR", 1.0, seed=3, domain_size=10, block_workers=70)
    assert lp.nbytes == 300 * 50 * 4 and rr.nbytes == 300 * 50  # float32, int8 per cell
    assert isinstance(lp, BlockedAnswers) and all(b[2].dtype == np.int8 for b in rr.blocks)
    two = perturb_in_blocks(answers, "2-Layer", 1.0, seed=3, domain_size=10, block_workers=70)
    assert two.nbytes == 300 * 50 and all(b[2].dtype == np.int8 for b in two.blocks)


def test_two_layer_blocks_draw_each_workers_budget_from_the_block_stream(data):
    """2-Layer in blocks is the mechanism's own sampler on each block's stream."""
    from crowdpriv.mechanisms import get
    from crowdpriv.seeds import derive_rng

    answers, _, _ = data
    two = get("two-layer")
    settings = two.settings(spread=0.5)
    out = perturb_in_blocks(answers, "two-layer", 2.0, seed=5, domain_size=10, block_workers=70,
                            settings=settings)
    dense = _dense_of(out)
    full = np.full((300, 50), np.nan)
    full[answers.worker, answers.task] = answers.value
    for block, (start, stop) in enumerate([(0, 70), (70, 140), (140, 210), (210, 280),
                                           (280, 300)]):
        block_codes = np.where(np.isnan(full[start:stop]), 10, full[start:stop]).astype(np.int8)
        want = two.perturb(block_codes, 2.0, settings, domain_size=10, dtype=np.float32,
                           rng=derive_rng(5, "streaming", "2-Layer", 2.0, "block", block))
        np.testing.assert_array_equal(dense[start:stop], want.dense(np.float64))


def test_same_seed_same_noise_and_unsorted_input_refused(data):
    answers, _, _ = data
    one = perturb_in_blocks(answers, "LP", 2.0, seed=9, domain_size=10, block_workers=70)
    two = perturb_in_blocks(answers, "LP", 2.0, seed=9, domain_size=10, block_workers=70)
    np.testing.assert_array_equal(_dense_of(one), _dense_of(two))
    shuffled = type(answers)(answers.task[::-1], answers.worker[::-1], answers.value[::-1],
                             answers.n_tasks, answers.n_workers)
    with pytest.raises(ValueError, match="sorted by worker"):
        perturb_in_blocks(shuffled, "LP", 1.0, seed=1, domain_size=10)
    with pytest.raises(ValueError, match="unknown mechanism 'XX'"):
        perturb_in_blocks(answers, "XX", 1.0, seed=1, domain_size=10)
    with pytest.raises(ValueError, match="no streamed path"):
        perturb_in_blocks(answers, "pptd", 1.0, seed=1, domain_size=10)


@pytest.mark.parametrize("method", ["LP", "RR"])
def test_regenerated_blocks_equal_the_stored_ones(data, method):
    """mode="regenerate" redraws each block from its stream: the same values, nothing stored."""
    answers, _, _ = data
    kw = dict(seed=5, domain_size=10, block_workers=70)
    stored = perturb_in_blocks(answers, method, 1.0, **kw)
    redrawn = perturb_in_blocks(answers, method, 1.0, mode="regenerate", **kw)
    assert redrawn.nbytes == 0
    w = np.random.default_rng(0).random(300)
    t = np.random.default_rng(1).normal(size=50)
    for got, want in zip(redrawn.task_sums(w), stored.task_sums(w)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(redrawn.worker_losses(t), stored.worker_losses(t))
    np.testing.assert_array_equal(redrawn.worker_counts, stored.worker_counts)
    assert sun(redrawn).iterations[0] == sun(stored).iterations[0]
    with pytest.raises(ValueError, match="mode must be"):
        perturb_in_blocks(answers, method, 1.0, mode="lazy", **kw)


@pytest.mark.parametrize("method", ["LP", "RR"])
def test_blocks_reduce_the_same_in_any_number_of_steps(data, method, monkeypatch):
    """The reductions walk each block a few rows at a time (cache-sized float32 work); the
    rows per step change the float32 summation order only."""
    import crowdpriv.streaming as streaming

    answers, _, _ = data
    out = perturb_in_blocks(answers, method, 1.0, seed=3, domain_size=10, block_workers=70)
    rng = np.random.default_rng(1)
    w, t, scale = rng.random(300), rng.normal(size=50), rng.uniform(0.5, 2, 50)
    whole = out.task_sums(w), out.worker_losses(t, scale)
    monkeypatch.setattr(streaming, "_STEP_CELLS", 120)  # 2 rows of 50 tasks per step
    assert len(out._steps(out.blocks[0][2])) == 35
    stepped = out.task_sums(w), out.worker_losses(t, scale)
    for got, want in zip((*stepped[0], stepped[1]), (*whole[0], whole[1])):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_worker_blocks_cover_the_workers_and_refuse_an_empty_block():
    from crowdpriv.streaming import worker_blocks

    assert list(worker_blocks(7, 3)) == [(0, 0, 3), (1, 3, 6), (2, 6, 7)]
    assert list(worker_blocks(3, 5)) == [(0, 0, 3)]
    with pytest.raises(ValueError, match="block_workers"):
        list(worker_blocks(7, 0))


def test_blocks_of_5000_workers_by_default():
    """The default block is 5,000 workers (each block draws from its own stream, so the block
    size is part of what a seed means): 5,001 workers split there, not at 5,001."""
    answers = synthetic_long(5001, 2, 0.5, seed=3, block_workers=5000)[0]
    default = perturb_in_blocks(answers, "rr", 1.0, seed=4, domain_size=10)
    given = perturb_in_blocks(answers, "rr", 1.0, seed=4, domain_size=10, block_workers=5000)
    other = perturb_in_blocks(answers, "rr", 1.0, seed=4, domain_size=10, block_workers=5001)
    assert [b[:2] for b in default.blocks] == [(0, 5000), (5000, 5001)]
    np.testing.assert_array_equal(_dense_of(default), _dense_of(given))
    assert [b[:2] for b in other.blocks] == [(0, 5001)]
