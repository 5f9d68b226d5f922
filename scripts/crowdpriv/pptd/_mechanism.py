"""The perturbation of PPTD Alg. 2 and the noise it adds.

Each user s draws a private variance ``δ_s² ~ Exp(rate λ2)`` and adds ``N(0, δ_s²)`` noise to
every claim he makes (PPTD Eq. 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_positive

__all__ = ["Perturbation", "perturb", "perturb_answers", "average_noise",
           "expected_average_noise"]


@dataclass(frozen=True)
class Perturbation:
    """Perturbed claims and what was added.

    Attributes
    ----------
    claims : ndarray, shape lam2.shape + (..., S, N)
        ``x̂_n^s = x_n^s + ξ_n^s`` (PPTD Eq. 4); ``NaN`` stays ``NaN``.
    noise : ndarray, same shape
        ``ξ_n^s`` (``NaN`` where there is no claim).
    variance : ndarray, shape lam2.shape + (..., S)
        Each user's ``δ_s²``.
    """

    claims: np.ndarray
    noise: np.ndarray
    variance: np.ndarray


def perturb(claims, lam2, *, rng: np.random.Generator) -> Perturbation:
    """Perturb claims with PPTD Alg. 2 (lines "sample δ_s² ~ Exp(λ2); x̂ = x + N(0, δ_s²)").

    Parameters
    ----------
    claims : array_like, shape (..., S, N)
        Original claims, ``NaN`` where missing; leading axes are e.g. repetitions.
    lam2 : float or array_like
        Rate λ2 > 0 of the exponential distribution of the noise variances (mean 1/λ2). An
        array adds its shape in front of the output: every λ2 value reuses the same standard
        draws ``E_s ~ Exp(1)``, ``Z_n^s ~ N(0, 1)`` (``δ_s² = E_s / λ2``, ``ξ = δ_s Z``), i.e.
        common random numbers, so a sweep over λ2 is smooth while each point has exactly the
        distribution of Alg. 2.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Perturbation
    """
    lam = np.asarray(lam2, dtype=float)
    for v in lam.ravel():
        check_positive("lam2", v)
    x = np.asarray(claims, dtype=float)
    if x.ndim < 2:
        raise ValueError(f"claims must have shape (..., S, N), got shape {x.shape}")
    e = rng.standard_exponential(size=x.shape[:-1] + (1,))
    z = rng.standard_normal(size=x.shape)
    var = e / lam.reshape(lam.shape + (1,) * x.ndim)
    noise = np.sqrt(var) * z
    noise = np.where(np.isnan(x), np.nan, noise)
    return Perturbation(x + noise, noise, var[..., 0])


def perturb_answers(answers, lam2: float, *, rng: np.random.Generator):
    """PPTD Alg. 2 on long-format answers (:class:`crowdpriv.answers.Answers`, float values).

    Worker s draws ``δ_s² ~ Exp(rate λ2)`` once and adds ``N(0, δ_s²)`` to each of his answers
    (PPTD Eq. 4); only the answers are touched, so the cost is one pass over them. Returns
    ``(perturbed, variance)``: the perturbed :class:`~crowdpriv.answers.Answers` (same tasks and
    workers) and each worker's ``δ_s²``.
    """
    from ..answers import Answers

    lam = check_positive("lam2", lam2)
    variance = rng.standard_exponential(size=answers.n_workers) / lam
    noise = rng.standard_normal(size=answers.size) * np.sqrt(variance)[answers.worker]
    values = answers.value.astype(np.float64) + noise
    return (Answers(answers.task, answers.worker, values, answers.n_tasks, answers.n_workers,
                    answers.groups, answers.task_ids, answers.worker_ids), variance)


def average_noise(noise) -> np.ndarray:
    """Average absolute added noise ``mean |ξ_n^s|`` over the claims made, per problem.

    This is the "average noise" of PPTD Figs. 2b–6b, on the same scale as the MAE it is
    compared with (Sec. 5.1: "the same x-axis and ... the same scale of y-axis").

    Parameters
    ----------
    noise : array_like, shape (..., S, N)
        ``NaN`` where no claim was made.

    Returns
    -------
    ndarray, shape (...)
    """
    a = np.abs(np.asarray(noise, dtype=float))
    obs = ~np.isnan(a)
    return np.where(obs, a, 0.0).sum(axis=(-2, -1)) / obs.sum(axis=(-2, -1))


def expected_average_noise(lam2) -> np.ndarray:
    """``E|ξ|`` under Alg. 2: ``E|ξ| = sqrt(2/π) E[δ] = 1 / sqrt(2 λ2)`` (δ² ~ Exp(λ2))."""
    lam = np.asarray(lam2, dtype=float)
    for v in lam.ravel():
        check_positive("lam2", v)
    return 1.0 / np.sqrt(2.0 * lam)
