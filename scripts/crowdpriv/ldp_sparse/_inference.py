"""Truth inference on sparse answers and the MAE-change metric (LDP-sparse Alg. 1, Eq. 1-3).

Answers are a worker x task matrix (optionally with leading batch axes for repetitions), with
``NaN`` standing for NULL (the worker did not answer the task).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crowdpriv._checks import check_int_at_least, check_nonnegative, check_positive

__all__ = ["TruthInferenceResult", "infer_truth", "mae", "mae_change"]


@dataclass(frozen=True)
class TruthInferenceResult:
    """Output of :func:`infer_truth`.

    Attributes
    ----------
    truth : ndarray, shape (..., n)
        Estimated truth per task (Eq. 1); ``NaN`` for a task nobody answered.
    quality : ndarray, shape (..., m)
        Worker quality q_i (Eq. 2), normalised to sum 1 over workers; 0 for a worker with no
        answer.
    sigma : ndarray, shape (..., m)
        Estimated error deviation sigma_i of each worker (Eq. 2); ``NaN`` without answers.
    iterations : ndarray of int, shape (...)
        Iterations until convergence (or ``max_iter``) per batch element.
    converged : ndarray of bool, shape (...)
    """

    truth: np.ndarray
    quality: np.ndarray
    sigma: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray


def infer_truth(
    answers,
    *,
    tol: float = 1e-4,
    max_iter: int = 100,
    sigma_floor: float = 1e-3,
    dtype=np.float32,
) -> TruthInferenceResult:
    """Iterative weighted-mean truth inference with NULL answers (LDP-sparse Alg. 1).

    Starting from q_i = 1/m, alternate the weighted mean over the workers who answered each
    task (Eq. 1) and the quality update q_i ∝ 1/σ_i with
    σ_i = sqrt(mean over T_i of (a_ij − μ̂_j)²) (Eq. 2) until the largest change of any
    estimated truth is below ``tol``.

    Parameters
    ----------
    answers : array_like, shape (..., m, n)
        Worker x task answers, ``NaN`` = NULL. Leading axes are independent problems (e.g.
        repetitions) solved together; each stops updating once it has converged, so a result
        does not depend on what it is batched with.
    tol : float
        Convergence threshold on max_j |μ̂_j^(t) − μ̂_j^(t−1)|.
    max_iter : int
        Maximum number of iterations.
    sigma_floor : float
        Lower bound on σ_i before inverting it (a worker who agrees exactly with the estimate
        would otherwise get infinite weight); Eq. 2 is silent on this case.
    dtype : numpy dtype
        Floating type of the big matrix products (float32 halves memory traffic).

    Returns
    -------
    TruthInferenceResult
    """
    tol = check_positive("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    sigma_floor = check_nonnegative("sigma_floor", sigma_floor)
    a = np.asarray(answers)
    if a.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {a.ndim}")
    if np.isinf(a).any():
        raise ValueError("answers must be finite or NaN (NULL); found an infinite value")
    mask = ~np.isnan(a)
    dense = bool(mask.all())
    a0 = np.where(mask, a, 0).astype(dtype, copy=False)
    w = None if dense else mask.astype(dtype)
    del mask
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    counts = np.full(batch + (m,), float(n)) if dense else w.sum(-1, dtype=np.float64)
    sq = np.einsum("...ij,...ij->...i", a0, a0, dtype=np.float64)
    has = counts > 0

    q = np.where(has, 1.0 / m, 0.0)
    mu = np.full(batch + (n,), np.nan)
    sigma = np.full(batch + (m,), np.nan)
    active = np.ones(batch, dtype=bool)
    iterations = np.zeros(batch, dtype=np.int64)
    for _ in range(max_iter):
        qd = q.astype(dtype)[..., None, :]
        num = (qd @ a0)[..., 0, :].astype(np.float64)
        if dense:
            den = np.broadcast_to(q.sum(-1, keepdims=True), num.shape)
        else:
            den = (qd @ w)[..., 0, :].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu_new = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        # den > 0 exactly when somebody answered the task (only answer-less workers get q = 0).
        change = np.abs(mu_new - mu)
        change = np.where(np.isnan(mu_new) & np.isnan(mu), 0.0, change)
        change = np.where(np.isnan(change), np.inf, change)
        delta = change.max(-1) if n else np.zeros(batch)
        mu = np.where(active[..., None], mu_new, mu)
        iterations = iterations + active
        # Eq. 2 via the expansion Σ w (a − μ)² = Σ a² − 2 Σ a μ + Σ w μ² (no m x n temporary).
        mu0 = np.nan_to_num(mu).astype(dtype)
        cross = (a0 @ mu0[..., :, None])[..., 0].astype(np.float64)
        if dense:
            musq = np.broadcast_to((mu0.astype(np.float64) ** 2).sum(-1, keepdims=True), cross.shape)
        else:
            musq = (w @ (mu0 * mu0)[..., :, None])[..., 0].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = np.maximum(sq - 2.0 * cross + musq, 0.0) / np.where(has, counts, 1.0)
            sigma_new = np.where(has, np.sqrt(var), np.nan)
            inv = np.where(has, 1.0 / np.maximum(sigma_new, max(sigma_floor, 1e-300)), 0.0)
            tot = inv.sum(-1, keepdims=True)
            q_new = inv / np.where(tot > 0, tot, 1.0)
        sigma = np.where(active[..., None], sigma_new, sigma)
        q = np.where(active[..., None], q_new, q)
        active = active & ~(delta < tol)
        if not active.any():
            break
    return TruthInferenceResult(mu, q, sigma, iterations, ~active)


def mae(truth, estimate, *, fill_value: float | None = None) -> np.ndarray:
    """Mean absolute error of estimated truths (LDP-sparse Eq. 3).

    Parameters
    ----------
    truth : array_like, shape (n,)
        Ground truth μ_j; tasks with ``NaN`` truth (no gold) are left out of the mean.
    estimate : array_like, shape (..., n)
        Estimated truth μ̂_j; ``NaN`` marks a task without any answer.
    fill_value : float, optional
        Estimate used for unanswered tasks (e.g. the midpoint of Γ). If ``None`` they are left
        out of the mean as well.

    Returns
    -------
    ndarray, shape (...)
    """
    mu = np.asarray(truth, dtype=np.float64)
    est = np.asarray(estimate, dtype=np.float64)
    if est.shape[-1] != mu.shape[-1]:
        raise ValueError(f"estimate has {est.shape[-1]} tasks but truth has {mu.shape[-1]}")
    if fill_value is not None:
        est = np.where(np.isnan(est), float(fill_value), est)
    err = np.abs(est - mu)
    ok = ~np.isnan(err)
    if not ok.any(-1).all():
        raise ValueError("no task has both a ground truth and an estimate")
    return np.where(ok, err, 0.0).sum(-1) / ok.sum(-1)


def mae_change(truth, estimate_original, estimate_perturbed, *, fill_value=None) -> np.ndarray:
    """MAE change MAE_P − MAE_O (LDP-sparse Sec. VI-A, "Utility metric").

    Both MAEs are against the ground truth; positive values mean the perturbation hurt.
    """
    return mae(truth, estimate_perturbed, fill_value=fill_value) - mae(
        truth, estimate_original, fill_value=fill_value
    )
