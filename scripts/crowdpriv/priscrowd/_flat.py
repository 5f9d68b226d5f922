"""PrisCrowd phase 1 on a flat claim layout: segment sums, per-object convergence.

Claims are sorted by object (each object a contiguous segment). The RKHS Gram entries of
objects with few claims are kept as flat pairs ``(s, t, K_h(z_s − z_t))`` (one bincount pass
for all of them); objects with more than :data:`PAIRS_UP_TO` claims, where at least
:data:`BLOCK_MIN_OBJECTS` share a claim count, are kept in blocks of equal claim count,
``(G, n, n)`` with no padding, beside the flat positions of their claims (there a bincount over
n² pairs per object costs more than n column steps over the block). Every
quantity of Eq. 1-6 is then a handful of ``np.bincount`` passes over claims:

* ``‖Φ(x_s) − Σ_t w_t Φ(x_t)‖² = K_ss − 2 (K w)_s + wᵀK w`` per claim (:func:`rkhs_sq`);
* medians and quantiles per object from one sort (:func:`segment_quantiles`);
* the local weights (Eq. 3-4) iterate per object: an object stops at its own convergence, so
  its weights do not depend on which other objects are fitted with it.

:func:`fit_flat` returns global weights (Eq. 1-2), local and combined weights (Eq. 5-6) per
claim in the flat order, plus the iteration counts; ``_experiments.fit_weights`` scatters them
into the :class:`~crowdpriv.priscrowd._kde.ObjectBatch` es the release phase uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_int_at_least, check_positive
from ..kde import choose_bandwidth, gaussian_density, object_scale, require_two_claims
from ._weights import hampel_irwls_weight

__all__ = ["FlatClaims", "flat_claims", "segment_quantiles", "rkhs_sq", "combined_weights",
           "fit_flat", "PAIRS_UP_TO", "BLOCK_MIN_OBJECTS"]

_TINY = 1e-300
#: Objects with at most this many claims keep their Gram entries as flat pairs; larger ones go
#: into ``(G, n, n)`` blocks when at least ``BLOCK_MIN_OBJECTS`` of them share a claim count
#: (a block costs one Python step per column, worth it only over many objects). Measured on
#: population (2-40 claims per object: phase 1 5.2 ms in pairs, 8.3 ms in blocks) and on the
#: stock surrogate (24-46 claims: blocks ~10 % faster). Both layouts add (K w)_s over t in the
#: same order, so the weights do not depend on the layout.
PAIRS_UP_TO = 16
BLOCK_MIN_OBJECTS = 16


@dataclass
class FlatClaims:
    """Claims sorted by object, with the per-object kernel pairs.

    ``order`` maps flat position → input claim; ``obj``, ``src``, ``z`` are per flat claim;
    ``counts``, ``start``, ``mean``, ``scale``, ``h`` per object; ``pair_s``, ``pair_t``,
    ``pair_k`` the Gram entries of the objects with at most :data:`PAIRS_UP_TO` claims (s-major,
    t ascending); ``blocks`` those of the larger objects, one ``(rows, K)`` per claim count n:
    ``rows`` (G, n) the flat positions of the claims of G objects, ``K`` (G, n, n) their Gram
    entries K_h(z_s − z_t); ``diag`` = K_ss per claim.
    """

    order: np.ndarray
    obj: np.ndarray
    src: np.ndarray
    z: np.ndarray
    counts: np.ndarray
    start: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    h: np.ndarray
    pair_s: np.ndarray
    pair_t: np.ndarray
    pair_k: np.ndarray
    blocks: list
    diag: np.ndarray

    @property
    def n_objects(self) -> int:
        return len(self.counts)

    def per_object_sum(self, x: np.ndarray) -> np.ndarray:
        return np.bincount(self.obj, weights=x, minlength=self.n_objects)

    def per_object_max(self, x: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(x, self.start) if len(x) else np.zeros(0)

    def subset(self, keep: np.ndarray) -> tuple["FlatClaims", np.ndarray]:
        """The objects where ``keep`` holds, as a new :class:`FlatClaims`, and the flat
        positions of their claims in this one."""
        keep_claim = keep[self.obj]
        claims = np.flatnonzero(keep_claim)
        new_pos = np.full(len(self.obj), -1, dtype=np.int64)
        new_pos[claims] = np.arange(len(claims))
        new_obj = np.cumsum(keep) - 1
        counts = self.counts[keep]
        pairs = keep_claim[self.pair_s]
        blocks = []
        for rows, K in self.blocks:
            kept = keep_claim[rows[:, 0]]
            if kept.any():
                blocks.append((new_pos[rows[kept]], K[kept]))
        sub = FlatClaims(
            self.order[claims], new_obj[self.obj[claims]], self.src[claims], self.z[claims],
            counts, np.concatenate(([0], np.cumsum(counts)[:-1])), self.mean[keep],
            self.scale[keep], self.h[keep], new_pos[self.pair_s[pairs]],
            new_pos[self.pair_t[pairs]], self.pair_k[pairs], blocks, self.diag[claims])
        return sub, claims

    def normalise(self, w: np.ndarray) -> np.ndarray:
        """Non-negative weights to sum 1 per object; an object summing to 0 becomes uniform."""
        tot = self.per_object_sum(w)[self.obj]
        return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), 1.0 / self.counts[self.obj])


def segment_quantiles(x: np.ndarray, fc: FlatClaims, qs) -> np.ndarray:
    """Quantiles of ``x`` within each object (linear interpolation, as ``np.quantile``);
    shape ``(len(qs), n_objects)``. One sort for all objects."""
    srt = x[np.lexsort((x, fc.obj))]
    n = fc.counts
    pos = np.asarray(qs, dtype=float)[:, None] * (n - 1)[None, :]
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n[None, :] - 1)
    a, b = srt[fc.start + lo], srt[fc.start + hi]
    return a + (pos - lo) * (b - a)


def rkhs_sq(fc: FlatClaims, w: np.ndarray) -> np.ndarray:
    """``‖Φ(x_s) − Σ_t w_t Φ(x_t)‖²`` for every claim (PrisCrowd Eq. 1-4), clipped at 0.

    (K w)_s is summed over t in order, whichever layout holds the object: a bincount over its
    pairs, or a running sum over the columns of its Gram block."""
    # (np.bincount of empty weights returns int64: a float array is kept explicitly)
    kw = (np.bincount(fc.pair_s, weights=fc.pair_k * w[fc.pair_t], minlength=len(w))
          if len(fc.pair_s) else np.zeros(len(w)))
    for rows, K in fc.blocks:
        wt = w[rows]
        # K[:, :, t] read as the row K[:, t, :] (contiguous): a Gram block is exactly symmetric,
        # as fl(z_s − z_t) = −fl(z_t − z_s) and every later step is elementwise
        acc = K[:, 0, :] * wt[:, :1]
        for t in range(1, K.shape[2]):
            acc += K[:, t, :] * wt[:, t:t + 1]
        kw[rows] = acc
    quad = fc.per_object_sum(w * kw)
    return np.maximum(fc.diag - 2.0 * kw + quad[fc.obj], 0.0)


def flat_claims(obj_codes, src_codes, values, *, n_objects, object_names=None, rule="mad",
                mad_min=1e-6, h_min=0.05, units="zscore", gram=True) -> FlatClaims:
    """Sort claims by object, z-score them per object (PrisCrowd Sec. 5, as KDEm; ``units="raw"``
    only centres them), choose each
    object's bandwidth (``rule``: MAD of the normalised claims with Silverman's rule where it is
    below ``mad_min``, or Silverman throughout; floored at ``h_min``) and build the Gram pairs
    (only the weights read them: ``gram=False`` leaves them empty).
    """
    obj_codes = np.asarray(obj_codes, dtype=np.int64)
    order = np.argsort(obj_codes, kind="stable")
    obj = obj_codes[order]
    src = np.asarray(src_codes, dtype=np.int64)[order]
    x = np.asarray(values, dtype=float)[order]
    counts = np.bincount(obj, minlength=n_objects)
    require_two_claims(counts, object_names)
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    mean = np.bincount(obj, weights=x, minlength=n_objects) / counts
    dev = x - mean[obj]
    std = np.sqrt(np.bincount(obj, weights=dev * dev, minlength=n_objects) / counts)
    scale = object_scale(std, units)
    z = dev / scale[obj]
    fc = FlatClaims(order, obj, src, z, counts, start, mean, scale, np.ones(n_objects),
                    *(np.zeros(0, dtype=np.int64),) * 2, np.zeros(0), [], np.zeros(0))
    zmean = fc.per_object_sum(z) / counts
    zstd = np.sqrt(np.clip(fc.per_object_sum(z * z) / counts - zmean**2, 0, None))
    mad = None
    if rule == "mad":
        med = segment_quantiles(z, fc, [0.5])[0]
        mad = segment_quantiles(np.abs(z - med[obj]), fc, [0.5])[0]
    fc.h = choose_bandwidth(mad, zstd, counts, rule=rule, mad_min=mad_min, h_min=h_min)
    if not gram:
        return fc
    # Gram matrices, built per claim count n as (G, n, n); small ones flattened into pairs
    ps, pt, pk = [], [], []
    for n in np.unique(counts):
        objs = np.flatnonzero(counts == n)
        rows = start[objs][:, None] + np.arange(n)[None, :]
        zz = z[rows]
        k = gaussian_density(zz[:, :, None] - zz[:, None, :], (fc.h[objs] ** 2)[:, None, None])
        if n <= PAIRS_UP_TO or len(objs) < BLOCK_MIN_OBJECTS:
            ps.append(np.broadcast_to(rows[:, :, None], k.shape).ravel())
            pt.append(np.broadcast_to(rows[:, None, :], k.shape).ravel())
            pk.append(k.ravel())
        else:
            fc.blocks.append((rows, k))
    if ps:
        fc.pair_s, fc.pair_t, fc.pair_k = (np.concatenate(a) for a in (ps, pt, pk))
    fc.diag = 1.0 / (np.sqrt(2.0 * np.pi) * fc.h[obj])
    return fc


def _global(fc: FlatClaims, n_sources: int, groups, max_iter: int, tol: float):
    """Global weights g_s (Eq. 1-2): CRH in the RKHS, iterated until max |Δg| < tol."""
    groups = np.zeros(n_sources, dtype=int) if groups is None else np.asarray(groups, dtype=int)
    has = np.bincount(fc.src, minlength=n_sources) > 0
    g = np.ones(n_sources)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        d = rkhs_sq(fc, fc.normalise(g[fc.src]))
        total = np.bincount(fc.src, weights=d, minlength=n_sources)
        grand = np.bincount(groups, weights=total)[groups]
        ratio = np.where(grand > 0, total / np.where(grand > 0, grand, 1.0), 1.0)
        g_new = np.where(has, -np.log(np.maximum(ratio, _TINY)), 0.0)
        delta = np.max(np.abs(g_new - g))
        g = g_new
        if delta < tol:
            break
    return g, n_iter


def _local(fc: FlatClaims, quantiles, update_thresholds: bool, max_iter: int, tol: float):
    """Local weights (Eq. 3-4, Hampel IRWLS), each object iterated to its own convergence.

    An object's weights are kept from the iteration where their largest change fell below
    ``tol``. The objects still iterating are narrowed into a smaller :class:`FlatClaims`
    whenever they hold less than half of the claims in use, so late iterations cost little.
    """
    out = 1.0 / fc.counts[fc.obj]
    iterations = np.zeros(fc.n_objects, dtype=np.int64)
    sub, claims, objs = fc, np.arange(len(fc.obj)), np.arange(fc.n_objects)
    w = out.copy()
    r = np.sqrt(rkhs_sq(sub, w))
    q = segment_quantiles(r, sub, quantiles)
    recorded = np.zeros(sub.n_objects, dtype=bool)
    for _ in range(max_iter):
        w_new = sub.normalise(hampel_irwls_weight(r, q[0][sub.obj], q[1][sub.obj],
                                                  q[2][sub.obj]))
        delta = sub.per_object_max(np.abs(w_new - w))
        w = w_new
        iterations[objs[~recorded]] += 1
        newly = (delta < tol) & ~recorded
        if newly.any():
            on = newly[sub.obj]
            out[claims[on]] = w[on]
            recorded |= newly
        if recorded.all():
            break
        if (~recorded[sub.obj]).sum() < 0.5 * len(sub.obj):
            keep = ~recorded
            sub, pos = sub.subset(keep)
            claims, objs, w, q = claims[pos], objs[keep], w[pos], q[:, keep]
            recorded = np.zeros(sub.n_objects, dtype=bool)
        r = np.sqrt(rkhs_sq(sub, w))
        if update_thresholds:
            q = segment_quantiles(r, sub, quantiles)
    else:
        on = ~recorded[sub.obj]
        out[claims[on]] = w[on]
    return out, iterations


def combined_weights(fc: FlatClaims, local: np.ndarray, g_claims: np.ndarray) -> np.ndarray:
    """Combined weights ``c_is = sqrt(l_is g_s) / Σ_t sqrt(l_it g_t)`` (PrisCrowd Eq. 5-6) per
    claim; ``g_claims`` is the global weight of each claim's source. An object where every
    product is 0 falls back to its local weights (then to equal weights)."""
    prod = np.sqrt(np.maximum(local * g_claims, 0.0))
    tot = fc.per_object_sum(prod)[fc.obj]
    return np.where(tot > 0, prod / np.where(tot > 0, tot, 1.0), fc.normalise(local))


def fit_flat(fc: FlatClaims, n_sources: int, *, quantiles=(0.5, 0.75, 0.85),
             update_thresholds=False, max_iter=100, tol=1e-8, groups=None):
    """Global, local and combined weights (PrisCrowd Eq. 1-6) on a :class:`FlatClaims`.

    Returns ``g`` (per source), ``local`` and ``combined`` (per flat claim), the number of
    global iterations and the local iterations per object.
    """
    qs = np.asarray(quantiles, dtype=float)
    if qs.shape != (3,) or not (0 < qs[0] < qs[1] < qs[2] <= 1):
        raise ValueError(f"hampel_quantiles must be 3 increasing numbers in (0, 1], got "
                         f"{quantiles!r}")
    max_iter = check_int_at_least("max_iter", max_iter, 1)
    tol = check_positive("tol", tol)
    g, n_iter = _global(fc, n_sources, groups, max_iter, tol)
    local, local_iter = _local(fc, qs, update_thresholds, max_iter, tol)
    return g, local, combined_weights(fc, local, g[fc.src]), n_iter, local_iter
