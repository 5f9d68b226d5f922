"""Weight helpers of PrisCrowd on padded :class:`~crowdpriv.priscrowd._kde.ObjectBatch` es.

The weights themselves (global Eq. 1-2, local Eq. 3-4, combined Eq. 5-6) are learnt on the flat
claim layout (:mod:`crowdpriv.priscrowd._flat`); here are Hampel's IRWLS weight they share and
the per-batch seed weights of the release phase (Uniform, global-only).
"""

from __future__ import annotations

import numpy as np

from ._kde import ObjectBatch

__all__ = [
    "normalise_rows",
    "hampel_irwls_weight",
    "global_only_weights",
    "uniform_weights",
]

def normalise_rows(w, mask):
    """Normalise non-negative weights to sum 1 per row; a row summing to 0 becomes uniform."""
    w = np.where(mask, np.asarray(w, dtype=float), 0.0)
    tot = w.sum(axis=1, keepdims=True)
    uni = mask / mask.sum(axis=1, keepdims=True)
    return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), uni)


def uniform_weights(batch: ObjectBatch) -> np.ndarray:
    """Equal weights per object (the paper's **Uniform** baseline)."""
    return normalise_rows(np.ones_like(batch.z), batch.mask)


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


def global_only_weights(batch: ObjectBatch, g) -> np.ndarray:
    """Density weights of ``f_i^g`` (global weights only, PrisCrowd Eq. 2; Fig. 3 black line)."""
    return normalise_rows(np.asarray(g)[np.maximum(batch.src, 0)], batch.mask)
