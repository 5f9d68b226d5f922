"""ISE and SISE of released claims against reference densities, closed form (no grid).

PrisCrowd App. D: ``ISE = sum_i ∫ (f*_i - f~_i)^2`` and ``SISE = sum_i (∫ (f*_i - f~_i)^2)^2``,
``f~_i`` the KDE (bandwidth h_i) of the claims released for object i. Both densities are
Gaussian mixtures, so every integral is a sum of normal densities
(:func:`~crowdpriv.priscrowd._kde.mixture_cross`).
"""

from __future__ import annotations

import numpy as np

from ._kde import gaussian_density, mixture_cross

__all__ = ["prefix_ise"]


#: exp(x) is exactly +0 for every float x below this (it underflows below ln(2^-1075) ≈ −745.13);
#: such pair terms are left 0 without calling exp, whose underflow path is several times slower.
_UNDERFLOW = -750.0
#: Elements of the pair block computed per step (fits the L2 cache).
_PAIR_STEP = 1 << 16


def _pair_densities(yv, count, first, second, scale, norm, out):
    """``out[g, p] = N(yv[g, first[p]] − yv[g, second[p]]; 0, var_g)`` for the pairs of valid
    points (``second[p] < count[g]``), else 0, in the float operations of
    :func:`gaussian_density` (``d²``, times ``scale = −0.5/var``, exp, times
    ``norm = 1/√(2π var)``), so every term is the same float; computed in cache-sized steps of
    objects, with exp evaluated only where the term is not exactly 0."""
    G, P = out.shape
    rows = max(1, _PAIR_STEP // max(P, 1))
    work = np.empty((min(rows, G), P))
    live = np.empty((min(rows, G), P), dtype=bool)
    for lo in range(0, G, rows):
        s = slice(lo, lo + rows)
        n = min(rows, G - lo)
        t, alive, o, y = work[:n], live[:n], out[s], yv[s]
        np.subtract(y[:, first], y[:, second], out=t)
        np.square(t, out=t)
        t *= scale[s]
        np.greater_equal(t, _UNDERFLOW, out=alive)
        alive &= second[None, :] < count[s, None]
        o.fill(0.0)
        np.exp(t, out=o, where=alive)
        o *= norm[s]
    return out


def prefix_ise(points, h, ref_w, ref_mu, ref_sd, ms):
    """Per-object ISE of the KDE of the first ``m`` points, for every ``m`` in ``ms``.

    Parameters
    ----------
    points : ndarray (R, G, M)
        Released claims (normalised units); NaN marks missing ones, which must come after the
        valid ones in each row (as :func:`synthesize` and :func:`pack_objects` produce).
    h : ndarray (G,)
        Bandwidth of the released KDE ``f~ = (1/m) sum_j N(., y_j, h^2)``.
    ref_w, ref_mu, ref_sd : ndarray (G, J)
        Reference density ``f*`` as a Gaussian mixture per object.
    ms : sequence of int
        Prefix lengths. With fewer valid points than ``m`` all valid points are used (the
        object was partly released); with none, ``f~ = 0`` and the ISE is ``∫ f*^2``.

    Returns
    -------
    ndarray (R, G, len(ms))
    """
    points = np.asarray(points, dtype=float)
    R, G, M = points.shape
    ms = np.asarray(ms, dtype=int)
    if ms.size == 0 or ms.min() < 1 or ms.max() > M:
        raise ValueError(f"m values must lie in [1, {M}], got {ms.tolist()!r}")
    h = np.asarray(h, dtype=float)
    ref_w, ref_mu, ref_sd = (np.asarray(a, dtype=float) for a in (ref_w, ref_mu, ref_sd))
    a = mixture_cross(ref_w, ref_mu, ref_sd, ref_w, ref_mu, ref_sd)  # (G,)
    # Σ_{a,b ≤ m} N(y_a − y_b; 0, 2h²) from the strict upper triangle only (the matrix is
    # symmetric, its diagonal N(0; 0, 2h²)): pairs (a, b), a < b, ordered by b, so that the sum
    # over a of column b is one segment and the prefix sums are cumulative sums over b.
    column_start = np.arange(1, M) * np.arange(0, M - 1) // 2  # pairs before column b
    pair_var = 2.0 * h[:, None] ** 2
    self_density = gaussian_density(0.0, pair_var)  # (G, 1)
    # the pairs in that order: (first[p], second[p]); gaussian_density's factors per object
    second = np.repeat(np.arange(M), np.arange(M))
    first = np.arange(M * (M - 1) // 2) - column_start[second - 1]
    scale = -0.5 / pair_var
    norm = 1.0 / np.sqrt(2.0 * np.pi * pair_var)
    pair = np.empty((G, M * (M - 1) // 2))
    out = np.empty((R, G, ms.size))
    for r in range(R):
        y = points[r]
        valid = ~np.isnan(y)
        yv = np.where(valid, y, 0.0)
        count = valid.sum(axis=1)
        # cross terms with the reference: b[g, j] = sum_l w_l N(y_j - mu_l; 0, sd_l^2 + h^2)
        b = np.einsum(
            "gl,gjl->gj",
            ref_w,
            gaussian_density(yv[:, :, None] - ref_mu[:, None, :],
                             ref_sd[:, None, :] ** 2 + h[:, None, None] ** 2),
        )
        b = np.where(valid, b, 0.0)
        _pair_densities(yv, count, first, second, scale, norm, pair)
        n_eff = np.minimum(ms[None, :], count[:, None])  # (G, len(ms))
        if ms.size == 1 and ms[0] == M:  # whole rows: plain sums, no prefix sums needed
            s1 = b.sum(axis=1)[:, None]
            s2 = (count * self_density[:, 0] + 2.0 * pair.sum(axis=1))[:, None]
        else:
            column = np.zeros((G, M))  # column[g, j] = Σ_{a<j} pair term (a, j)
            if M > 1:
                column[:, 1:] = np.add.reduceat(pair, column_start, axis=1)
            within = np.cumsum(valid * self_density + 2.0 * column, axis=1)
            cb = np.cumsum(b, axis=1)
            idx = np.maximum(n_eff - 1, 0)
            s1 = np.take_along_axis(cb, idx, axis=1)
            s2 = np.take_along_axis(within, idx, axis=1)
        safe = np.maximum(n_eff, 1)
        ise = a[:, None] - 2.0 * s1 / safe + s2 / safe**2
        out[r] = np.where(n_eff > 0, np.maximum(ise, 0.0), a[:, None])
    return out
