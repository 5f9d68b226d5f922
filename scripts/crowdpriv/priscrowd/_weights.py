"""User weights of PrisCrowd phase 1: global (Eq. 1-2), local (Eq. 3-4), combined (Eq. 5-6).

All distances are RKHS distances computed in closed form from the per-object Gram matrices of
:class:`~crowdpriv.priscrowd._kde.ObjectBatch`; every step is batched over the objects of a
batch (padded claims with a mask).
"""

from __future__ import annotations

import numpy as np

from .._checks import check_int_at_least, check_positive
from ._kde import ObjectBatch, rkhs_sq_distances

__all__ = [
    "normalise_rows",
    "global_weights",
    "hampel_irwls_weight",
    "local_weights",
    "combined_weights",
    "global_only_weights",
    "uniform_weights",
]

_TINY = 1e-300


def normalise_rows(w, mask):
    """Normalise non-negative weights to sum 1 per row; a row summing to 0 becomes uniform."""
    w = np.where(mask, np.asarray(w, dtype=float), 0.0)
    tot = w.sum(axis=1, keepdims=True)
    uni = mask / mask.sum(axis=1, keepdims=True)
    return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), uni)


def uniform_weights(batch: ObjectBatch) -> np.ndarray:
    """Equal weights per object (the paper's **Uniform** baseline)."""
    return normalise_rows(np.ones_like(batch.z), batch.mask)


def global_weights(batches, n_sources, *, groups=None, max_iter=100, tol=1e-8):
    """Global user weights g_s (PrisCrowd Eq. 1-2), CRH extended to the RKHS.

    Iterates ``f_i^g = sum_t g_t K(., x_it) / sum_t g_t`` and
    ``g_s = -log( sum_{i in E_s} d_is / sum_{s'} sum_{i in E_s'} d_is' )`` with
    ``d_is = ||K(., x_is) - f_i^g||_H^2`` until ``max |g^(k+1) - g^(k)| < tol``. Starts from
    equal weights. An object whose users all have ``g = 0`` falls back to equal weights for its
    density, and a user whose total distance is 0 gets ``-log(1e-300)`` (finite).

    Parameters
    ----------
    batches : list of ObjectBatch
    n_sources : int
    groups : ndarray (n_sources,) int, optional
        Independent datasets stacked together (e.g. repetitions of a simulation): the
        normalising total of Eq. 2 is taken within each group, so stacking is exact.
    max_iter : int
    tol : float

    Returns
    -------
    g : ndarray (n_sources,)
        Non-negative global weights (0 for sources without claims).
    n_iter : int
    """
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    tol = check_positive("tol", tol)
    groups = np.zeros(n_sources, dtype=int) if groups is None else np.asarray(groups, dtype=int)
    has = np.zeros(n_sources, dtype=bool)
    for b in batches:
        has[b.src[b.mask]] = True
    g = np.ones(n_sources)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        total = np.zeros(n_sources)
        for b in batches:
            w = normalise_rows(g[np.maximum(b.src, 0)], b.mask)
            d = rkhs_sq_distances(b.K, w)
            total += np.bincount(b.src[b.mask], weights=d[b.mask], minlength=n_sources)
        grand = np.bincount(groups, weights=total)[groups]
        ratio = np.where(grand > 0, total / np.where(grand > 0, grand, 1.0), 1.0)
        g_new = np.where(has, -np.log(np.maximum(ratio, _TINY)), 0.0)
        delta = np.max(np.abs(g_new - g))
        g = g_new
        if delta < tol:
            break
    return g, n_iter


def hampel_irwls_weight(r, q1, q2, q3):
    """IRWLS weight ``psi(r)/r`` of Hampel's loss (PrisCrowd Eq. 3 loss; Eq. 4 erratum).

    Eq. 4 as printed makes weights proportional to the loss itself, which would give outliers
    *larger* weights; the standard IRWLS weight of Kim & Scott's robust KDE is used instead::

        1                             r <= q1
        q1 / r                        q1 < r <= q2
        q1 (q3 - r) / ((q3 - q2) r)   q2 < r <= q3
        0                             r > q3

    Broadcasts ``r`` against ``q1, q2, q3``.
    """
    r = np.asarray(r, dtype=float)
    q1, q2, q3 = (np.asarray(q, dtype=float) for q in (q1, q2, q3))
    safe_r = np.where(r > 0, r, 1.0)
    span = np.where(q3 > q2, q3 - q2, 1.0)
    out = np.where(r <= q1, 1.0, q1 / safe_r)
    out = np.where((r > q2) & (r <= q3), q1 * (q3 - r) / (span * safe_r), out)
    out = np.where(r > q3, 0.0, out)
    return np.maximum(out, 0.0)


def _row_quantiles(r, mask, qs):
    """Quantiles (linear interpolation, as ``np.quantile``) of the valid entries of each row."""
    count = mask.sum(axis=1)
    srt = np.sort(np.where(mask, r, np.inf), axis=1)
    pos = np.asarray(qs)[:, None] * (count - 1)[None, :]  # (Q, G)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, count[None, :] - 1)
    frac = pos - lo
    a = np.take_along_axis(srt, lo.T, axis=1).T
    b = np.take_along_axis(srt, hi.T, axis=1).T
    return a + frac * (b - a)


def local_weights(
    batch: ObjectBatch, *, quantiles=(0.5, 0.75, 0.85), update_thresholds=False, max_iter=100,
    tol=1e-8,
):
    """Local weights l_is by robust KDE with Hampel's loss, solved by IRWLS (PrisCrowd Eq. 3-4).

    Start from equal weights; the Hampel thresholds ``q1 < q2 < q3`` are the given quantiles of
    the initial residuals ``r_s = ||Phi(x_s) - f||_H`` per object (Kim & Scott), then iterate
    ``l_s ∝ psi(r_s)/r_s`` (:func:`hampel_irwls_weight`) until ``max |l^(k+1) - l^(k)| < tol``.
    With ``update_thresholds`` the quantiles are recomputed from the current residuals at every
    iteration instead.

    Returns
    -------
    l : ndarray (G, n)
        Non-negative, sums to 1 per object, 0 on padding.
    """
    qs = np.asarray(quantiles, dtype=float)
    if qs.shape != (3,) or not (0 < qs[0] < qs[1] < qs[2] <= 1):
        raise ValueError(f"hampel_quantiles must be 3 increasing numbers in (0, 1], got {quantiles!r}")
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    tol = check_positive("tol", tol)
    w = uniform_weights(batch)
    r = np.sqrt(rkhs_sq_distances(batch.K, w))
    q = _row_quantiles(r, batch.mask, qs)  # (3, G)
    q1, q2, q3 = (qq[:, None] for qq in q)
    for _ in range(max_iter):
        w_new = normalise_rows(hampel_irwls_weight(r, q1, q2, q3), batch.mask)
        delta = np.max(np.abs(w_new - w)) if w.size else 0.0
        w = w_new
        if delta < tol:
            break
        r = np.sqrt(rkhs_sq_distances(batch.K, w))
        if update_thresholds:
            q = _row_quantiles(r, batch.mask, qs)
            q1, q2, q3 = (qq[:, None] for qq in q)
    return w


def combined_weights(local, g_claims, mask):
    """Combined weights ``c_is = sqrt(l_is g_s) / sum_t sqrt(l_it g_t)`` (PrisCrowd Eq. 5-6).

    ``g_claims`` holds the global weight of each claim's user (shape of ``local``). An object
    where every product is 0 falls back to its local weights (then to equal weights).
    """
    prod = np.sqrt(np.maximum(np.asarray(local) * np.asarray(g_claims), 0.0))
    prod = np.where(mask, prod, 0.0)
    fallback = normalise_rows(local, mask)
    tot = prod.sum(axis=1, keepdims=True)
    return np.where(tot > 0, prod / np.where(tot > 0, tot, 1.0), fallback)


def global_only_weights(batch: ObjectBatch, g) -> np.ndarray:
    """Density weights of ``f_i^g`` (global weights only, PrisCrowd Eq. 2; Fig. 3 black line)."""
    return normalise_rows(np.asarray(g)[np.maximum(batch.src, 0)], batch.mask)
