"""Truth inference on crowd answers: LDP-sparse's Alg. 1, CRH and GTM, written once.

Each method takes an answer source (:class:`crowdpriv.answers.Answers` in long format, or
:class:`crowdpriv.answers.DenseAnswers` for a mechanism's dense output, or a ``(m, n)`` /
``(groups, m, n)`` array with ``NaN`` = NULL) and returns a :class:`TruthResult`. They touch
the answers only through the source's reductions (per-task weighted sums, per-worker losses,
counts, moments, medians), so every iteration is two compiled passes over the answers (a sparse
matrix-vector product each in long format, a matrix product each over the dense block; about
2 ``np.bincount`` passes' worth of CPU at 1M answers, ``benchmarks/inference.py``), and any
mechanism pairs with any estimator. Stacked problems (``groups``) are solved together, each
iterating until its own convergence test holds and then frozen: a result never depends on what
it was stacked with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_int_at_least, check_nonnegative, check_positive
from .answers import as_source

__all__ = ["TruthResult", "sun", "crh", "gtm", "METHODS", "infer"]


@dataclass(frozen=True)
class TruthResult:
    """Output of every truth-inference method (flattened group-major index spaces).

    Attributes
    ----------
    truths : ndarray, shape (n_tasks,)
        Estimated truth per task; ``NaN`` for a task nobody answered (Sun) .
    weights : ndarray, shape (n_workers,)
        Worker weights: Sun's quality q_i (Eq. 2, sums to 1 per group), CRH's w_s (PPTD Eq. 3),
        GTM's precision 1/σ_s² (normalised units).
    sigma : ndarray, shape (n_workers,)
        Estimated error deviation per worker (Sun's σ_i; GTM's σ_s in normalised units;
        ``NaN`` for CRH, which has none, and for workers without answers).
    iterations : ndarray of int, shape (groups,)
        Iterations until the convergence test held (or ``max_iter``).
    converged : ndarray of bool, shape (groups,)
    """

    truths: np.ndarray
    weights: np.ndarray
    sigma: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray


def _per_group(values: np.ndarray, groups: int, reduce) -> np.ndarray:
    v = values.reshape(groups, -1)
    return reduce(v, axis=-1) if v.shape[1] else np.zeros(groups)


def _frozen(active: np.ndarray, new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """``new`` in the groups still iterating, ``old`` in those that converged."""
    return np.where(np.repeat(active, len(new) // len(active)), new, old)


def _crh_weight_step(src, truth, std, loss_floor):
    """PPTD Eq. 3: w_s = −log(loss_s / Σ_s' loss_s') within each group."""
    loss = src.worker_losses(truth, std) + loss_floor
    m = src.n_workers // src.groups
    return -np.log(loss / np.repeat(_per_group(loss, src.groups, np.sum), m))


def sun(answers, *, tol: float = 1e-4, max_iter: int = 100, sigma_floor: float = 1e-3
        ) -> TruthResult:
    """Iterative weighted-mean truth inference with NULL answers (LDP-sparse Alg. 1).

    Starting from q_i = 1/m, alternate the weighted mean over the workers who answered each
    task (Eq. 1) and the quality update q_i ∝ 1/σ_i with
    σ_i = sqrt(mean over T_i of (a_ij − μ̂_j)²) (Eq. 2), until the largest change of any
    estimated truth is below ``tol``. ``sigma_floor`` bounds σ_i below before inverting it
    (Eq. 2 is silent on a worker who agrees exactly with the estimate).
    """
    tol = check_positive("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    sigma_floor = check_nonnegative("sigma_floor", sigma_floor)
    src = as_source(answers)
    g = src.groups
    m = src.n_workers // g
    counts = src.worker_counts
    has = counts > 0
    q = np.where(has, 1.0 / m, 0.0)
    mu = np.full(src.n_tasks, np.nan)
    sigma = np.full(src.n_workers, np.nan)
    active = np.ones(g, dtype=bool)
    iterations = np.zeros(g, dtype=np.int64)
    for _ in range(max_iter):
        num, den = src.task_sums(q)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu_new = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        change = np.abs(mu_new - mu)
        change = np.where(np.isnan(mu_new) & np.isnan(mu), 0.0, change)
        change = np.where(np.isnan(change), np.inf, change)
        delta = _per_group(change, g, np.max)
        mu = _frozen(active, mu_new, mu)
        iterations += active
        with np.errstate(invalid="ignore", divide="ignore"):
            var = src.worker_losses(np.nan_to_num(mu)) / np.where(has, counts, 1.0)
            sigma_new = np.where(has, np.sqrt(var), np.nan)
            inv = np.where(has, 1.0 / np.maximum(sigma_new, max(sigma_floor, 1e-300)), 0.0)
        total = np.repeat(_per_group(inv, g, np.sum), m)
        q_new = inv / np.where(total > 0, total, 1.0)
        sigma = _frozen(active, sigma_new, sigma)
        q = _frozen(active, q_new, q)
        active = active & ~(delta < tol)
        if not active.any():
            break
    return TruthResult(mu, q, sigma, iterations, ~active)


def _claims_std(src) -> tuple[np.ndarray, np.ndarray]:
    """Mean and std of the claims per task, std 1 where it is 0 (so ``tol`` is scale-free)."""
    counts = src.task_counts
    if not (counts > 0).all():
        raise ValueError("claims: every object needs at least one claim")
    mean, std = src.task_moments()
    return mean, np.where(std > 0, std, 1.0)


def _weighted_mean(src, w, plain):
    """PPTD Eq. 1 over observed claims; the plain mean where Σ w = 0."""
    num, den = src.task_sums(w)
    safe = den > 0
    return np.where(safe, num / np.where(safe, den, 1.0), plain)


def crh(answers, *, tol: float = 1e-6, max_iter: int = 100, loss_floor: float = 1e-12,
        tol_relative: bool = True) -> TruthResult:
    """CRH for continuous data (Li et al., SIGMOD 2014) as PPTD Alg. 1 instantiates it.

    Equal initial weights; then the aggregation step (weighted mean, PPTD Eq. 1) and the weight
    step ``w_s = −log(loss_s / Σ_s' loss_s')`` with ``loss_s = Σ_n (x_n^s − x_n*)² / std_n +
    loss_floor`` (PPTD Eq. 3) alternate until ``max_n |Δx*_n| / std_n < tol`` (PPTD Sec. 5.3)
    or ``max_iter`` rounds. ``std_n`` is the std of the claims on object n (1 where it is 0).
    ``tol_relative=False`` compares the raw change ``max_n |Δx*_n|`` with ``tol`` instead (the
    literal "change in aggregated results is smaller than a threshold"; a reading of PPTD).
    """
    tol = check_nonnegative("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    loss_floor = check_positive("loss_floor", loss_floor)
    tol_relative = bool(tol_relative)
    src = as_source(answers)
    g = src.groups
    plain, std = _claims_std(src)
    w = np.ones(src.n_workers)
    truth = _weighted_mean(src, w, plain)
    active = np.ones(g, dtype=bool)
    iterations = np.zeros(g, dtype=np.int64)
    for _ in range(max_iter):
        w_new = _crh_weight_step(src, truth, std, loss_floor)
        t_new = _weighted_mean(src, w_new, plain)
        step = np.abs(t_new - truth)
        change = _per_group(step / std if tol_relative else step, g, np.max)
        w = _frozen(active, w_new, w)
        truth = _frozen(active, t_new, truth)
        iterations += active
        active = active & (change >= tol)
        if not active.any():
            break
    return TruthResult(truth, w, np.full(src.n_workers, np.nan), iterations, ~active)


def crh_weights(answers, truths, *, loss_floor: float = 1e-12, scale=None) -> np.ndarray:
    """CRH's weight step alone (PPTD Eq. 3) given aggregated results, or the ground truth
    (PPTD Fig. 7's "true weights"); ``scale`` defaults to the claims' std per task."""
    loss_floor = check_positive("loss_floor", loss_floor)
    src = as_source(answers)
    std = _claims_std(src)[1] if scale is None else np.asarray(scale, dtype=float).ravel()
    return _crh_weight_step(src, np.asarray(truths, dtype=float).ravel(), std, loss_floor)


def gtm(answers, *, tol: float = 1e-6, max_iter: int = 100, alpha: float = 10.0,
        beta: float = 10.0, mu0: float = 0.0, sigma0: float = 1.0, tol_relative: bool = True
        ) -> TruthResult:
    """GTM, the Gaussian Truth Model (Zhao & Han, QDB 2012), MAP estimation by EM.

    Claims on object n are normalised to ``z = (x − median_n) / std_n``; in those units the
    truth has prior ``N(mu0, sigma0²)``, worker s's error variance ``σ_s² ~ InvGamma(alpha,
    beta)`` and a claim is ``N(μ_n, σ_s²)``. From ``μ_n = 0`` it iterates the M-step
    ``σ_s² = (2 beta + Σ_n (z_n^s − μ_n)²) / (2 (alpha + 1) + |N_s|)`` and the E-step
    ``μ_n = (mu0/sigma0² + Σ_s z_n^s/σ_s²) / (1/sigma0² + Σ_s 1/σ_s²)`` until
    ``max_n |Δμ_n| < tol``. Zhao & Han's optional outlier removal is not applied (PPTD perturbs
    with Gaussian noise; removing perturbed claims would change the mechanism under study).
    ``tol_relative=False`` compares the change in the claims' own units, ``max_n |Δμ_n| std_n``.
    """
    tol = check_nonnegative("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    alpha = check_positive("alpha", alpha)
    beta = check_positive("beta", beta)
    sigma0 = check_positive("sigma0", sigma0)
    mu0 = float(mu0)
    src = as_source(answers)
    g = src.groups
    _, std = _claims_std(src)
    med = src.task_medians()
    z = src.standardised(med, std)
    n_s = src.worker_counts
    p0 = 1.0 / sigma0**2

    def m_step(mu):
        return (2 * beta + z.worker_losses(mu)) / (2 * (alpha + 1) + n_s)

    mu = np.zeros(src.n_tasks)
    sig2 = m_step(mu)
    active = np.ones(g, dtype=bool)
    iterations = np.zeros(g, dtype=np.int64)
    for _ in range(max_iter):
        num, den = z.task_sums(1.0 / sig2)
        mu_new = (mu0 * p0 + num) / (p0 + den)
        sig2_new = m_step(mu_new)
        step = np.abs(mu_new - mu)
        change = _per_group(step if tol_relative else step * std, g, np.max)
        mu = _frozen(active, mu_new, mu)
        sig2 = _frozen(active, sig2_new, sig2)
        iterations += active
        active = active & (change >= tol)
        if not active.any():
            break
    return TruthResult(mu * std + med, 1.0 / sig2, np.sqrt(sig2), iterations, ~active)


#: Truth-inference methods by name.
METHODS = {"sun": sun, "crh": crh, "gtm": gtm}


def infer(answers, *, method: str = "crh", **kwargs) -> TruthResult:
    """Dispatch to :func:`sun`, :func:`crh` or :func:`gtm` by name."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    return METHODS[method](answers, **kwargs)
