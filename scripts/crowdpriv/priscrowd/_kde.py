"""Per-object normalisation, bandwidths, Gaussian kernels and closed-form ISE.

PrisCrowd (Huai et al., IJCAI 2019) works object by object on claims of very different sizes.
Objects are therefore packed into :class:`ObjectBatch` es: padded ``(G, n)`` arrays with a
boolean mask, grouped by claim count, so every step is a batched numpy operation.

Kernel: the normal density ``K_h(x - y) = N(x - y; 0, h^2)`` (PrisCrowd Sec. 3 / App. A), used
both as the KDE component and as the reproducing kernel of the RKHS in which the distances of
Eq. 1-4 are taken (``<Phi(x), Phi(y)> = K_h(x - y)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..kde import (
    BANDWIDTH_RULES,
    UNITS,
    bandwidth,
    choose_bandwidth,
    gaussian_density,
    normalise_objects,
    require_two_claims,
)

__all__ = [
    "BANDWIDTH_RULES",
    "ObjectBatch",
    "normalise_objects",
    "UNITS",
    "bandwidth",
    "choose_bandwidth",
    "gaussian_density",
    "gram_matrices",
    "rkhs_sq_distances",
    "mixture_cross",
    "ise_gaussian_mixtures",
    "pack_objects",
    "far_from_others",
]


def far_from_others(z: np.ndarray, h: float) -> np.ndarray:
    """Claims of one object far from the others: outside Tukey's far fences (Q1 − 3 IQR,
    Q3 + 3 IQR) of its normalised claims ``z``, the IQR at least two bandwidths ``h`` (tied
    claims keep their neighbours). Sets Fig. 3's view and the claim about Fig. 3's far claims."""
    z = np.asarray(z, dtype=float)
    q1, q3 = np.percentile(z, [25, 75])
    spread = max(q3 - q1, 2 * float(h))
    return (z < q1 - 3 * spread) | (z > q3 + 3 * spread)
def gram_matrices(z, mask, h):
    """Gram matrices ``K[g, s, t] = N(z_gs - z_gt; 0, h_g^2)``, zero on padding."""
    z = np.asarray(z, dtype=float)
    d = z[:, :, None] - z[:, None, :]
    K = gaussian_density(d, (np.asarray(h, dtype=float) ** 2)[:, None, None])
    m = np.asarray(mask, dtype=bool)
    return K * (m[:, :, None] & m[:, None, :])


def rkhs_sq_distances(K, w):
    """``||Phi(x_s) - sum_t w_t Phi(x_t)||^2`` for every claim s (PrisCrowd Eq. 1-4).

    Closed form from the Gram matrix: ``K_ss - 2 (K w)_s + w^T K w``; clipped at 0 against
    round-off. ``K`` has shape (G, n, n), ``w`` (G, n) (zero on padding).
    """
    Kw = np.einsum("gst,gt->gs", K, w)
    quad = np.einsum("gs,gs->g", w, Kw)
    diag = np.einsum("gss->gs", K)
    return np.maximum(diag - 2.0 * Kw + quad[:, None], 0.0)


def mixture_cross(w1, mu1, sd1, w2, mu2, sd2):
    """``∫ f1 f2 dx`` for Gaussian mixtures ``f = sum_j w_j N(mu_j, sd_j^2)``.

    Uses ``∫ N(x; a, s^2) N(x; b, t^2) dx = N(a - b; 0, s^2 + t^2)``. The last axis indexes
    components; leading axes broadcast. Zero weights switch components off (padding).
    """
    w1, mu1, sd1 = (np.asarray(a, dtype=float) for a in (w1, mu1, sd1))
    w2, mu2, sd2 = (np.asarray(a, dtype=float) for a in (w2, mu2, sd2))
    w1, mu1, sd1 = np.broadcast_arrays(w1, mu1, sd1)
    w2, mu2, sd2 = np.broadcast_arrays(w2, mu2, sd2)
    d = mu1[..., :, None] - mu2[..., None, :]
    var = sd1[..., :, None] ** 2 + sd2[..., None, :] ** 2
    dens = gaussian_density(d, var)
    return np.einsum("...j,...jk,...k->...", w1, dens, w2)


def ise_gaussian_mixtures(w1, mu1, sd1, w2, mu2, sd2):
    """Integrated squared error ``∫ (f1 - f2)^2 dx`` of two Gaussian mixtures, closed form.

    PrisCrowd App. D: ``ISE = sum_i ∫ (f*_i - f~_i)^2``; this returns the per-object term. No
    grid: ``∫f1² - 2∫f1 f2 + ∫f2²`` with :func:`mixture_cross`. Clipped at 0 against round-off.
    """
    a = mixture_cross(w1, mu1, sd1, w1, mu1, sd1)
    b = mixture_cross(w1, mu1, sd1, w2, mu2, sd2)
    c = mixture_cross(w2, mu2, sd2, w2, mu2, sd2)
    return np.maximum(a - 2.0 * b + c, 0.0)


@dataclass
class ObjectBatch:
    """Objects with claim counts padded to ``n`` (one group of :func:`pack_objects`).

    Attributes
    ----------
    index : ndarray (G,) int
        Position of each object in the full object list.
    values, z : ndarray (G, n)
        Raw and normalised claims (0 on padding).
    mask : ndarray (G, n) bool
    src : ndarray (G, n) int
        Source (user) index of each claim, -1 on padding.
    mean, scale, h : ndarray (G,)
        Normalisation constants and bandwidth (normalised units).
    K : ndarray (G, n, n)
        Gram matrix of the kernel ``N(.; 0, h^2)``, computed when first read (no pipeline step
        reads it: phase 1 builds its own Gram entries, :mod:`._flat`).
    """

    index: np.ndarray
    values: np.ndarray
    z: np.ndarray
    mask: np.ndarray
    src: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    h: np.ndarray

    @cached_property
    def K(self) -> np.ndarray:
        return gram_matrices(self.z, self.mask, self.h)

    @property
    def counts(self) -> np.ndarray:
        return self.mask.sum(axis=1)


def _bucket(n: np.ndarray) -> np.ndarray:
    """Padded width for a claim count: exact up to 8, then quarter-octave steps (<= 25 % pad)."""
    n = np.asarray(n, dtype=int)
    step = 2 ** np.maximum(np.floor(np.log2(np.maximum(n, 1))).astype(int) - 2, 0)
    return np.where(n <= 8, n, -(-n // step) * step)


def pack_objects(
    obj_codes, src_codes, values, *, n_objects, object_names=None, rule="mad", mad_min=1e-6,
    h_min=0.05, h=None, units="zscore",
):
    """Group flat claims by object into padded :class:`ObjectBatch` es (no loop over claims).

    Parameters
    ----------
    obj_codes, src_codes : ndarray (C,) int
        Object and source index of each claim (one claim per source and object).
    values : ndarray (C,)
    n_objects : int
    object_names : sequence, optional
        For error messages.
    rule, mad_min, h_min
        Passed to :func:`bandwidth`.
    h : ndarray (n_objects,), optional
        Bandwidths already chosen (e.g. by :func:`crowdpriv.priscrowd._flat.flat_claims`).

    Returns
    -------
    list of ObjectBatch
        Objects bucketed by claim count (exact up to 8, then quarter-octave widths).
    """
    obj_codes = np.asarray(obj_codes, dtype=int)
    src_codes = np.asarray(src_codes, dtype=int)
    values = np.asarray(values, dtype=float)
    counts = np.bincount(obj_codes, minlength=n_objects)
    require_two_claims(counts, object_names)
    order = np.argsort(obj_codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(len(obj_codes)) - starts[obj_codes[order]]
    width = _bucket(counts)
    batches = []
    for w in np.unique(width):
        objs = np.flatnonzero(width == w)
        row = np.full(n_objects, -1)
        row[objs] = np.arange(len(objs))
        sel = row[obj_codes[order]] >= 0
        r, c = row[obj_codes[order]][sel], pos[sel]
        vals = np.zeros((len(objs), w))
        src = np.full((len(objs), w), -1)
        mask = np.zeros((len(objs), w), dtype=bool)
        vals[r, c] = values[order][sel]
        src[r, c] = src_codes[order][sel]
        mask[r, c] = True
        names = None if object_names is None else [object_names[i] for i in objs]
        z, mean, scale = normalise_objects(vals, mask, names, units=units)
        hb = (bandwidth(z, mask, rule=rule, mad_min=mad_min, h_min=h_min) if h is None
              else np.asarray(h, dtype=float)[objs])
        batches.append(
            ObjectBatch(objs, vals, z, mask, src, mean, scale, hb)
        )
    return batches
