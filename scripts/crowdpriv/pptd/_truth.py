"""PPTD's truth discovery (CRH, GTM) on ``(..., S, N)`` claim arrays.

Thin adapters over :mod:`crowdpriv.truth`, where CRH and GTM are implemented once for every
paper: the claims array (users × objects, any number of leading batch axes such as
repetitions; ``NaN`` = no claim) is stacked into groups (:func:`crowdpriv.answers.from_array`:
dense blocks for mostly-answered data, long format otherwise), each group converges on its own,
and the results come back in the array's shape.

Convergence (PPTD Sec. 5.3: "if the change in aggregated results is smaller than a threshold"):
``max_n |x*_n(t) − x*_n(t−1)| / scale_n < tol`` with ``scale_n`` the standard deviation of the
claims on object ``n`` (1 where that is 0), so ``tol`` means the same on every dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import truth as _truth
from ..answers import from_array

__all__ = ["TruthResult", "crh", "gtm", "crh_weights", "truth_discovery", "METHODS"]


@dataclass(frozen=True)
class TruthResult:
    """Output of a truth-discovery run, in the claims array's batch shape.

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


def _prepare(claims) -> np.ndarray:
    x = np.asarray(claims, dtype=float)
    if x.ndim < 2:
        raise ValueError(f"claims must have shape (..., S, N), got shape {x.shape}")
    if x.shape[-2] < 1 or x.shape[-1] < 1:
        raise ValueError(f"claims must have at least one user and one object, got {x.shape}")
    if np.isinf(x).any():
        raise ValueError("claims must be finite or NaN (missing); found an infinite value")
    if not (~np.isnan(x)).any(axis=-2).all():
        raise ValueError("claims: every object needs at least one claim")
    return x


def _run(method, claims, **kwargs) -> TruthResult:
    x = _prepare(claims)
    batch, (s, n) = x.shape[:-2], x.shape[-2:]
    res = method(from_array(x.reshape((-1, s, n))), **kwargs)
    return TruthResult(res.truths.reshape(batch + (n,)), res.weights.reshape(batch + (s,)),
                       res.iterations.reshape(batch), res.converged.reshape(batch))


def crh(claims, *, tol: float = 1e-6, max_iter: int = 100, loss_floor: float = 1e-12,
        tol_relative: bool = True) -> TruthResult:
    """CRH (Li et al. SIGMOD 2014) as PPTD Alg. 1 instantiates it: :func:`crowdpriv.truth.crh`."""
    return _run(_truth.crh, claims, tol=tol, max_iter=max_iter, loss_floor=loss_floor,
                tol_relative=tol_relative)


def gtm(claims, *, tol: float = 1e-6, max_iter: int = 100, alpha: float = 10.0,
        beta: float = 10.0, mu0: float = 0.0, sigma0: float = 1.0, tol_relative: bool = True
        ) -> TruthResult:
    """GTM (Zhao & Han, QDB 2012), MAP by EM: :func:`crowdpriv.truth.gtm`; ``weights`` are the
    users' precisions 1/σ_s² in normalised units."""
    return _run(_truth.gtm, claims, tol=tol, max_iter=max_iter, alpha=alpha, beta=beta,
                mu0=mu0, sigma0=sigma0, tol_relative=tol_relative)


def crh_weights(claims, truths, *, loss_floor: float = 1e-12, scale=None) -> np.ndarray:
    """CRH weights given aggregated results or the ground truth (PPTD Eq. 3; Fig. 7's "true
    weights"): :func:`crowdpriv.truth.crh_weights`, shape ``(..., S)``."""
    x = _prepare(claims)
    batch, (s, n) = x.shape[:-2], x.shape[-2:]
    t = np.broadcast_to(np.asarray(truths, dtype=float), batch + (n,))
    sc = None if scale is None else np.broadcast_to(np.asarray(scale, dtype=float), batch + (n,))
    w = _truth.crh_weights(from_array(x.reshape((-1, s, n))), t.reshape(-1), loss_floor=loss_floor,
                           scale=None if sc is None else sc.reshape(-1))
    return w.reshape(batch + (s,))


METHODS = {"crh": crh, "gtm": gtm}


def truth_discovery(claims, *, method: str = "crh", **kwargs) -> TruthResult:
    """Dispatch to :func:`crh` or :func:`gtm` by name (PPTD Alg. 2 works with either)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    return METHODS[method](claims, **kwargs)
