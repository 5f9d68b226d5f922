"""Truth discovery for continuous claims: CRH and GTM behind one interface.

Both take a claims array of shape ``(..., S, N)`` (users × objects, any number of leading
batch axes such as repetitions or sweep points; ``NaN`` = the user made no claim) and return a
:class:`TruthResult` with the aggregated truths ``(..., N)``, the user weights ``(..., S)`` and
the number of iterations each batch element needed. Every batch element is iterated until its own
convergence test holds (then frozen), so a batch gives exactly the results of separate calls.

Convergence (PPTD Sec. 5.3: "if the change in aggregated results is smaller than a threshold"):
``max_n |x*_n(t) - x*_n(t-1)| / scale_n < tol`` with ``scale_n`` the standard deviation of the
claims on object ``n`` (1 where that is 0), so ``tol`` means the same on every dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_int_at_least, check_nonnegative, check_positive

__all__ = ["TruthResult", "crh", "gtm", "crh_weights", "truth_discovery", "METHODS"]


@dataclass(frozen=True)
class TruthResult:
    """Output of a truth-discovery run.

    Attributes
    ----------
    truths : ndarray, shape (..., N)
        Aggregated results x*_n (PPTD Eq. 1).
    weights : ndarray, shape (..., S)
        User weights w_s (CRH: PPTD Eq. 3; GTM: precision 1/σ_s²).
    iterations : ndarray of int, shape (...)
        Iterations until the convergence test held (or ``max_iter``).
    converged : ndarray of bool, shape (...)
        Whether the test held before ``max_iter``.
    """

    truths: np.ndarray
    weights: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray


def _prepare(claims) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(claims, dtype=float)
    if x.ndim < 2:
        raise ValueError(f"claims must have shape (..., S, N), got shape {x.shape}")
    if x.shape[-2] < 1 or x.shape[-1] < 1:
        raise ValueError(f"claims must have at least one user and one object, got {x.shape}")
    if np.isinf(x).any():
        raise ValueError("claims must be finite or NaN (missing); found an infinite value")
    obs = ~np.isnan(x)
    if not obs.any(axis=-2).all():
        raise ValueError("claims: every object needs at least one claim")
    return x, obs, np.where(obs, x, 0.0)


def _object_std(xz: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Standard deviation of the claims on each object, ``(..., N)``; 1 where it is 0."""
    n = obs.sum(axis=-2)
    mean = xz.sum(axis=-2) / n
    var = (np.where(obs, xz - mean[..., None, :], 0.0) ** 2).sum(axis=-2) / n
    std = np.sqrt(var)
    return np.where(std > 0, std, 1.0)


def _weighted_mean(xz: np.ndarray, obs: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PPTD Eq. 1 over observed claims; falls back to the plain mean where Σ w = 0."""
    wo = np.where(obs, w[..., :, None], 0.0)
    den = wo.sum(axis=-2)
    num = (wo * xz).sum(axis=-2)
    plain = xz.sum(axis=-2) / obs.sum(axis=-2)
    safe = den > 0
    return np.where(safe, num / np.where(safe, den, 1.0), plain)


def crh_weights(claims, truths, *, loss_floor: float = 1e-12, scale=None) -> np.ndarray:
    """CRH weights of every user given aggregated results (PPTD Eq. 3, CRH SIGMOD'14).

    ``w_s = -log( Σ_n d(x_n^s, x_n*) / Σ_s' Σ_n d(x_n^s', x_n*) )`` with
    ``d = (x_n^s - x_n*)² / std_n`` (squared distance normalised by the object's claim std).

    Parameters
    ----------
    claims : array_like, shape (..., S, N)
        Claims, ``NaN`` where missing.
    truths : array_like, shape (..., N)
        Aggregated results (or the ground truth, which gives PPTD Fig. 7's "true weights").
    loss_floor : float
        Added to each user's loss (and ``S`` times to the total) so that a user whose claims
        equal the aggregated results gets a large finite weight instead of ``+inf``.
    scale : array_like, optional
        Per-object normaliser ``(..., N)``; default the claims' standard deviation.

    Returns
    -------
    ndarray, shape (..., S)
    """
    loss_floor = check_positive("loss_floor", loss_floor)
    x, obs, xz = _prepare(claims)
    t = np.asarray(truths, dtype=float)
    std = _object_std(xz, obs) if scale is None else np.asarray(scale, dtype=float)
    return _crh_weights(xz, obs, t, std, loss_floor)


def _crh_weights(xz, obs, t, std, loss_floor):
    d = np.where(obs, (xz - t[..., None, :]) ** 2 / std[..., None, :], 0.0)
    loss = d.sum(axis=-1) + loss_floor
    total = loss.sum(axis=-1, keepdims=True)
    return -np.log(loss / total)


def crh(
    claims,
    *,
    tol: float = 1e-6,
    max_iter: int = 100,
    loss_floor: float = 1e-12,
) -> TruthResult:
    """CRH for continuous data (Li et al. SIGMOD 2014) as PPTD Alg. 1 instantiates it.

    Starts from equal weights (Alg. 1, "initialization of user weights"), then alternates the
    aggregation step (weighted mean, PPTD Eq. 1) and the weight step (PPTD Eq. 3, see
    :func:`crh_weights`) until the aggregated results change by less than ``tol``
    (relative to each object's claim std) or ``max_iter`` rounds have run.

    Parameters
    ----------
    claims : array_like, shape (..., S, N)
        Claims of S users on N objects; ``NaN`` marks a missing claim. Leading axes are
        independent problems solved together (repetitions, sweep points).
    tol : float
        Convergence threshold on ``max_n |Δx*_n| / std_n``.
    max_iter : int
        Upper bound on the number of rounds.
    loss_floor : float
        See :func:`crh_weights`.

    Returns
    -------
    TruthResult
    """
    tol = check_nonnegative("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    loss_floor = check_positive("loss_floor", loss_floor)
    x, obs, xz = _prepare(claims)
    std = _object_std(xz, obs)
    batch = x.shape[:-2]
    w = np.ones(batch + (x.shape[-2],))
    truth = _weighted_mean(xz, obs, w)
    active = np.ones(batch, dtype=bool)
    iters = np.zeros(batch, dtype=int)
    for _ in range(max_iter):
        w_new = _crh_weights(xz, obs, truth, std, loss_floor)
        t_new = _weighted_mean(xz, obs, w_new)
        change = (np.abs(t_new - truth) / std).max(axis=-1)
        w = np.where(active[..., None], w_new, w)
        truth = np.where(active[..., None], t_new, truth)
        iters += active
        active = active & (change >= tol)
        if not active.any():
            break
    return TruthResult(truth, w, iters, ~active)


def gtm(
    claims,
    *,
    tol: float = 1e-6,
    max_iter: int = 100,
    alpha: float = 10.0,
    beta: float = 10.0,
    mu0: float = 0.0,
    sigma0: float = 1.0,
) -> TruthResult:
    """GTM, the Gaussian Truth Model (Zhao & Han, QDB 2012), MAP estimation by EM.

    Claims on object n are normalised to ``z = (x - median_n) / std_n``; in those units the
    truth has prior ``N(mu0, sigma0²)``, user s's error variance ``σ_s² ~ InvGamma(alpha, beta)``
    and a claim is ``N(μ_n, σ_s²)``. Iterates (starting from ``μ_n = 0``, i.e. the median)

    * M-step  ``σ_s² = (2 beta + Σ_n (z_n^s - μ_n)²) / (2 (alpha + 1) + |N_s|)``
    * E-step  ``μ_n = (mu0/sigma0² + Σ_s z_n^s/σ_s²) / (1/sigma0² + Σ_s 1/σ_s²)``

    until ``max_n |Δμ_n| < tol`` (normalised units, as for CRH). Zhao & Han's optional outlier
    removal before normalisation is not applied: PPTD perturbs with Gaussian noise, and removing
    perturbed claims as outliers would change the mechanism under study.

    Parameters
    ----------
    claims : array_like, shape (..., S, N)
        As for :func:`crh`.
    tol, max_iter : float, int
        Convergence threshold and iteration cap.
    alpha, beta : float
        Inverse-Gamma prior of the users' error variances (GTM defaults 10, 10).
    mu0, sigma0 : float
        Gaussian prior of the normalised truth (GTM defaults 0, 1).

    Returns
    -------
    TruthResult
        ``weights`` are the users' precisions ``1/σ_s²`` (in normalised units).
    """
    tol = check_nonnegative("tol", tol)
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    alpha = check_positive("alpha", alpha)
    beta = check_positive("beta", beta)
    sigma0 = check_positive("sigma0", sigma0)
    mu0 = float(mu0)
    x, obs, xz = _prepare(claims)
    std = _object_std(xz, obs)
    if obs.all():
        med = np.median(x, axis=-2)
    else:
        med = np.nanmedian(x, axis=-2)
    z = np.where(obs, (xz - med[..., None, :]) / std[..., None, :], 0.0)
    n_s = obs.sum(axis=-1)
    batch = x.shape[:-2]
    mu = np.zeros(batch + (x.shape[-1],))

    def m_step(m):
        sq = np.where(obs, (z - m[..., None, :]) ** 2, 0.0).sum(axis=-1)
        return (2 * beta + sq) / (2 * (alpha + 1) + n_s)

    sig2 = m_step(mu)
    active = np.ones(batch, dtype=bool)
    iters = np.zeros(batch, dtype=int)
    p0 = 1.0 / sigma0**2
    for _ in range(max_iter):
        prec = np.where(obs, 1.0 / sig2[..., :, None], 0.0)
        mu_new = (mu0 * p0 + (prec * z).sum(axis=-2)) / (p0 + prec.sum(axis=-2))
        sig2_new = m_step(mu_new)
        change = np.abs(mu_new - mu).max(axis=-1)
        mu = np.where(active[..., None], mu_new, mu)
        sig2 = np.where(active[..., None], sig2_new, sig2)
        iters += active
        active = active & (change >= tol)
        if not active.any():
            break
    return TruthResult(mu * std + med, 1.0 / sig2, iters, ~active)


METHODS = {"crh": crh, "gtm": gtm}


def truth_discovery(claims, *, method: str = "crh", **kwargs) -> TruthResult:
    """Dispatch to :func:`crh` or :func:`gtm` by name (PPTD Alg. 2 works with either)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    return METHODS[method](claims, **kwargs)
