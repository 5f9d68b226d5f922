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
        for col in range(1, M):  # column col: the pairs (a, col), a < col, contiguous
            block = gaussian_density(yv[:, :col] - yv[:, col:col + 1], pair_var)
            # valid points come first, so (a, col) is a pair of points iff col < count
            block[count <= col] = 0.0
            pair[:, column_start[col - 1]:column_start[col - 1] + col] = block
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
