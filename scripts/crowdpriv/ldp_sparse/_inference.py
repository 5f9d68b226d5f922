"""Truth inference on sparse answers and the MAE-change metric (LDP-sparse Alg. 1, Eq. 1-3).

Answers are a worker x task matrix (optionally with leading batch axes for repetitions), with
``NaN`` standing for NULL (the worker did not answer the task).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crowdpriv.answers import from_array, from_codes
from crowdpriv.streaming import FactoredAnswers
from crowdpriv.truth import sun

__all__ = ["TruthInferenceResult", "infer_truth", "infer_truth_factored", "mae", "mae_change"]


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
    null_code: int | None = None,
) -> TruthInferenceResult:
    """Iterative weighted-mean truth inference with NULL answers (LDP-sparse Alg. 1).

    A thin adapter over :func:`crowdpriv.truth.sun` (implemented once for every paper) for a
    worker x task matrix with leading batch axes (repetitions): starting from q_i = 1/m, it
    alternates the weighted mean over the workers who answered each task (Eq. 1) and the quality
    update q_i ∝ 1/σ_i with σ_i = sqrt(mean over T_i of (a_ij − μ̂_j)²) (Eq. 2) until the largest
    change of any estimated truth is below ``tol``; each batch element converges on its own.

    Parameters
    ----------
    answers : array_like, shape (..., m, n)
        Worker x task answers, ``NaN`` = NULL. Mostly-answered matrices (a dense-by-design
        mechanism's output) are reduced by matrix products in ``dtype``, sparse ones in long
        format (:func:`crowdpriv.answers.from_array`).
    tol, max_iter, sigma_floor
        See :func:`crowdpriv.truth.sun`.
    dtype : numpy dtype
        Floating type of the dense matrix products (float32 halves memory traffic).
    null_code : int, optional
        When given, ``answers`` are integer label codes with this code for NULL
        (:func:`crowdpriv.ldp_sparse.answer_codes`); the result is the same as for the float
        matrix with ``NaN`` for NULL.
    """
    a = np.asarray(answers)
    if a.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {a.ndim}")
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    flat = a.reshape((-1, m, n))
    source = (from_array(flat, dtype=dtype) if null_code is None
              else from_codes(flat, null_code, dtype=dtype))
    res = sun(source, tol=tol, max_iter=max_iter, sigma_floor=sigma_floor)
    return TruthInferenceResult(res.truths.reshape(batch + (n,)), res.weights.reshape(batch + (m,)),
                                res.sigma.reshape(batch + (m,)), res.iterations.reshape(batch),
                                res.converged.reshape(batch))


def infer_truth_factored(u, profiles, *, tol: float = 1e-4, max_iter: int = 100,
                         sigma_floor: float = 1e-3) -> TruthInferenceResult:
    """Alg. 1 on MF's output U·V from its factors (never formed; float64).

    ``u`` is (..., m, d) and ``profiles`` (..., d, n) or (d, n); leading axes are repetitions,
    each converging on its own, as in :func:`infer_truth`.
    """
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(profiles, dtype=np.float64)
    batch, (m, d) = u.shape[:-2], u.shape[-2:]
    n = v.shape[-1]
    v = np.broadcast_to(v, batch + (d, n)).reshape((-1, d, n))
    res = sun(FactoredAnswers(u.reshape((-1, m, d)), v), tol=tol, max_iter=max_iter,
              sigma_floor=sigma_floor)
    return TruthInferenceResult(res.truths.reshape(batch + (n,)), res.weights.reshape(batch + (m,)),
                                res.sigma.reshape(batch + (m,)), res.iterations.reshape(batch),
                                res.converged.reshape(batch))


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
