"""Synthetic sparse crowdsourcing answers of LDP-sparse Sec. VI-A."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crowdpriv._checks import check_in_interval, check_int_at_least, check_positive
from crowdpriv.answers import Answers
from crowdpriv.seeds import derive_rng
from crowdpriv.streaming import worker_blocks

__all__ = ["SyntheticAnswers", "place_nulls", "answered_tasks", "generate_synthetic",
           "generate_synthetic_codes", "synthetic_long"]


@dataclass(frozen=True)
class SyntheticAnswers:
    """Answers (m x n, ``NaN`` = NULL), ground truth (n,) and worker error deviations (m,)."""

    answers: np.ndarray
    truth: np.ndarray
    sigma: np.ndarray


def place_nulls(n_workers: int, n_tasks: int, sparsity: float, *, rng) -> np.ndarray:
    """Boolean answered-mask where every worker leaves a fraction ``sparsity`` of tasks NULL.

    Each worker answers exactly max(1, round((1 − sparsity)·n)) tasks drawn uniformly without
    replacement (the paper assumes each worker answers at least one task, Sec. III-A); the
    tasks are :func:`answered_tasks`'.
    """
    m = check_int_at_least("n_workers", n_workers, 1)
    n = check_int_at_least("n_tasks", n_tasks, 1)
    idx = answered_tasks(m, n, sparsity, rng=rng)
    mask = np.zeros((m, n), dtype=bool)
    _put_rows(mask, idx, True)
    return mask


def answered_tasks(n_workers: int, n_tasks: int, sparsity: float, *, rng) -> np.ndarray:
    """The tasks each worker answers, shape (m, k) with k = max(1, round((1 − sparsity)·n)):
    the k smallest of one uniform key per task (a uniform k-subset per worker)."""
    m = check_int_at_least("n_workers", n_workers, 1)
    n = check_int_at_least("n_tasks", n_tasks, 1)
    s = check_in_interval("sparsity", sparsity, 0.0, 1.0)
    k = max(1, int(round((1.0 - s) * n)))
    if k >= n:
        return np.broadcast_to(np.arange(n), (m, n)).copy()
    keys = rng.random((m, n), dtype=np.float32)
    return np.argpartition(keys, k - 1, axis=1)[:, :k]


def generate_synthetic(n_workers: int, n_tasks: int, sparsity: float, *, rng, domain_size: int = 10,
                       dtype=np.float32, **generator) -> SyntheticAnswers:
    """Synthetic dataset of LDP-sparse Sec. VI-A (answers ``NaN`` = NULL).

    Truth μ_j ~ N(truth_mean, truth_std²) rounded and clipped into Γ = {0, ..., K-1};
    a random ``high_quality_fraction`` of the workers have σ_i = ``sigma_high``, the rest
    ``sigma_low``; NULLs are placed with :func:`place_nulls` so that every worker has sparsity
    ``sparsity``; each answer is a_ij = μ_j + N(0, σ_i²) rounded and clipped into Γ.
    ``generator`` takes the keyword arguments of :func:`generate_synthetic_codes`.

    Returns
    -------
    SyntheticAnswers
    """
    codes, truth, sigma = generate_synthetic_codes(n_workers, n_tasks, sparsity, rng=rng,
                                                   domain_size=domain_size, **generator)
    answers = codes.astype(dtype)
    answers[codes == domain_size] = np.nan
    return SyntheticAnswers(answers, truth, sigma)


def generate_synthetic_codes(
    n_workers: int,
    n_tasks: int,
    sparsity: float,
    *,
    rng,
    domain_size: int = 10,
    truth_mean: float = 0.0,
    truth_std: float = 1.0,
    sigma_high: float = 1.0,
    sigma_low: float = 5.0,
    high_quality_fraction: float = 0.5,
):
    """:func:`generate_synthetic` as int8 label codes (the label, or ``domain_size`` for NULL;
    :func:`crowdpriv.ldp_sparse.answer_codes`), with the same draws. Returns
    ``(codes, truth, sigma)``."""
    m = check_int_at_least("n_workers", n_workers, 1)
    n = check_int_at_least("n_tasks", n_tasks, 1)
    k = check_int_at_least("domain_size", domain_size, 2)
    if k > 63:
        raise ValueError(f"label codes hold |Γ| <= 63, got domain_size={k}")
    check_in_interval("sparsity", sparsity, 0.0, 1.0)
    truth_std = check_positive("truth_std", truth_std)
    sigma_high = check_positive("sigma_high", sigma_high)
    sigma_low = check_positive("sigma_low", sigma_low)
    frac = check_in_interval("high_quality_fraction", high_quality_fraction, 0.0, 1.0, closed_high=True)
    truth = np.clip(np.rint(rng.normal(truth_mean, truth_std, size=n)), 0, k - 1)
    n_high = int(round(frac * m))
    sigma = np.full(m, sigma_low)
    sigma[rng.permutation(m)[:n_high]] = sigma_high
    tasks = answered_tasks(m, n, sparsity, rng=rng)
    # an error per answered cell: answers a_ij = μ_j + N(0, σ_i²), rounded and clipped into Γ
    values = rng.standard_normal(tasks.shape, dtype=np.float32)
    values *= sigma.astype(np.float32)[:, None]
    values += truth.astype(np.float32)[tasks]
    np.rint(values, out=values)
    np.clip(values, 0, k - 1, out=values)
    codes = np.full((m, n), k, dtype=np.int8)
    _put_rows(codes, tasks, values.astype(np.int8))
    return codes, truth, sigma


def _put_rows(target, columns, values) -> None:
    """``target[i, columns[i, j]] = values[i, j]`` for a C-contiguous 2-D ``target``: what
    ``np.put_along_axis(target, columns, values, axis=1)`` does, through one flat index
    (about half its cost at 10,000 × 1,000)."""
    flat = np.array(columns, dtype=np.intp)  # a copy: the row offsets are added in place
    flat += (np.arange(target.shape[0], dtype=np.intp) * target.shape[1])[:, None]
    target.reshape(-1)[flat.reshape(-1)] = np.reshape(values, -1)


def synthetic_long(n_workers: int, n_tasks: int, sparsity: float, *, seed: int,
                   domain_size: int = 10, block_workers: int = 5000, truth_mean: float = 0.0,
                   truth_std: float = 1.0, sigma_high: float = 1.0, sigma_low: float = 5.0,
                   high_quality_fraction: float = 0.5):
    """LDP-sparse Sec. VI-A's synthetic data generated block by block straight into long format.

    The same model as :func:`crowdpriv.ldp_sparse.generate_synthetic` (truth N(mean, std²)
    rounded into Γ; half the workers σ = ``sigma_high``, the rest ``sigma_low``; answers rounded
    and clipped; every worker leaves a fraction ``sparsity`` NULL), drawn from per-block streams,
    so it is not the same draw. Returns ``(answers, truth, sigma)``.
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    rng = derive_rng(seed, "streaming", "synthetic", "shared")
    truth = np.clip(np.rint(rng.normal(truth_mean, truth_std, size=n_tasks)), 0, k - 1)
    sigma = np.full(n_workers, float(sigma_low))
    sigma[rng.permutation(n_workers)[:int(round(high_quality_fraction * n_workers))]] = sigma_high
    tasks, workers, values = [], [], []
    for block, start, stop in worker_blocks(n_workers, block_workers):
        brng = derive_rng(seed, "streaming", "synthetic", "block", block)
        mask = place_nulls(stop - start, n_tasks, sparsity, rng=brng)
        rows, cols = np.nonzero(mask)
        noise = brng.standard_normal(rows.size, dtype=np.float32)
        a = np.clip(np.rint(truth[cols] + noise * sigma[start + rows]), 0, k - 1)
        tasks.append(cols.astype(np.int32))
        workers.append((rows + start).astype(np.int32))
        values.append(a.astype(np.int8))
    answers = Answers(np.concatenate(tasks), np.concatenate(workers), np.concatenate(values),
                      n_tasks, n_workers)
    return answers, truth, sigma
