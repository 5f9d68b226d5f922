"""Per-object normalisation, bandwidth rules and the Gaussian kernel (PrisCrowd Sec. 3, 5).

The units PrisCrowd's weights, its release (Algorithm 1) and the ISE live in: every object's
claims z-scored (as KDEm does) or only centred, and a per-object bandwidth. They belong to the
release as it runs (each dataset normalised and its bandwidth chosen from its own claims), so
the mechanism family (:mod:`crowdpriv.mechanisms.priscrowd`) and the PrisCrowd reproduction
(:mod:`crowdpriv.priscrowd`) both read them from here.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_nonnegative, check_positive

__all__ = ["BANDWIDTH_RULES", "UNITS", "normalise_objects", "require_two_claims",
           "object_scale", "bandwidth", "choose_bandwidth", "gaussian_density"]

BANDWIDTH_RULES = ("mad", "silverman")


def require_two_claims(counts, object_names=None) -> None:
    """Raise naming the first object with fewer than two claims (z-scoring needs two)."""
    if (counts < 2).any():
        i = int(np.flatnonzero(counts < 2)[0])
        name = object_names[i] if object_names is not None else i
        raise ValueError(
            f"object {name!r} has {int(counts[i])} claim(s); PrisCrowd's per-object "
            "normalisation needs at least 2 (filter such objects first)"
        )


def gaussian_density(d, var):
    """Normal density ``N(d; 0, var)`` evaluated elementwise (broadcasting)."""
    d = np.asarray(d, dtype=float)
    var = np.asarray(var, dtype=float)
    out = np.square(d)
    out *= -0.5 / var
    np.exp(out, out=out)
    out *= 1.0 / np.sqrt(2.0 * np.pi * var)
    return out


#: Units the claims are modelled in (config ``priscrowd.units``): ``zscore`` per object (KDEm,
#: the default) or ``raw`` (each object only centred on its mean, so bandwidths, weights, the
#: released claims and the ISE live in the claims' own units).
UNITS = ("zscore", "raw")


def normalise_objects(values, mask, object_names=None, units="zscore"):
    """Z-score the claims of every object (PrisCrowd Sec. 5, as KDEm does); ``units="raw"``
    only centres them (scale 1, see :data:`UNITS`).

    Parameters
    ----------
    values, mask : ndarray, shape (G, n)
        Padded claims and validity mask.
    object_names : sequence of str, optional
        Used to name an offending object in error messages.

    Returns
    -------
    z : ndarray (G, n)
        ``(x - mean) / std`` on valid entries, 0 on padding.
    mean, scale : ndarray (G,)
        Per-object mean and population standard deviation (ddof=0). An object whose claims are
        all equal gets ``scale = 1`` (its claims all map to 0).

    Raises
    ------
    ValueError
        If an object has fewer than two claims (a z-score needs two).
    """
    values = np.asarray(values, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    counts = mask.sum(axis=1)
    require_two_claims(counts, object_names)
    x = np.where(mask, values, 0.0)
    mean = x.sum(axis=1) / counts
    dev = np.where(mask, values - mean[:, None], 0.0)
    std = np.sqrt((dev * dev).sum(axis=1) / counts)
    scale = object_scale(std, units)
    z = np.where(mask, dev / scale[:, None], 0.0)
    return z, mean, scale


def object_scale(std, units):
    """The per-object scale of :func:`normalise_objects`: the std (1 where 0) or 1."""
    if units not in UNITS:
        raise ValueError(f"units must be one of {UNITS}, got {units!r}")
    return np.where(std > 0, std, 1.0) if units == "zscore" else np.ones_like(std)


def bandwidth(z, mask, *, rule="mad", mad_min=1e-6, h_min=0.05):
    """Per-object bandwidth in normalised units (PrisCrowd Sec. 3; rule from KDEm).

    ``rule="mad"``: the median absolute deviation of the normalised claims (KDEm's choice,
    but per object, not once for all). Where the MAD is below ``mad_min`` (ties: 39 % of
    population objects) it falls back to Silverman's rule ``1.06 * std * n^(-1/5)``, where std is
    the object's normalised std (1, or 0 if all claims are equal). ``rule="silverman"`` uses the
    latter throughout. Finally every bandwidth is floored at ``h_min``.

    Returns
    -------
    h : ndarray (G,)
    """
    z = np.asarray(z, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    n = mask.sum(axis=1)
    zn = np.where(mask, z, np.nan)
    std = np.sqrt(np.nanmean(zn * zn, axis=1) - np.nanmean(zn, axis=1) ** 2).clip(min=0)
    mad = None
    if rule == "mad":
        med = np.nanmedian(zn, axis=1)
        mad = np.nanmedian(np.abs(zn - med[:, None]), axis=1)
    return choose_bandwidth(mad, std, n, rule=rule, mad_min=mad_min, h_min=h_min)


def choose_bandwidth(mad, std, n, *, rule="mad", mad_min=1e-6, h_min=0.05):
    """The bandwidth rule of :func:`bandwidth` from per-object statistics of the normalised
    claims: MAD (``None`` unless ``rule="mad"``), std and count."""
    if rule not in BANDWIDTH_RULES:
        raise ValueError(f"bandwidth rule must be one of {BANDWIDTH_RULES}, got {rule!r}")
    check_nonnegative("mad_min", mad_min)
    check_positive("h_min", h_min)
    silver = 1.06 * np.asarray(std, dtype=float) * np.asarray(n, dtype=float) ** (-0.2)
    h = np.where(mad >= max(mad_min, 1e-300), mad, silver) if rule == "mad" else silver
    return np.maximum(h, h_min)
