"""Sampler primitives shared by the categorical mechanisms: label codes and Laplace noise.

The experiments hold answers as int8 *label codes* (:func:`answer_codes`: the label, or |Γ|
for NULL; 1 byte per cell instead of 4). Every categorical mechanism reads codes; the float
functions of each member wrap them (the same random draws in the same order, so both give the
same output for the same generator state).
"""

from __future__ import annotations

import numpy as np

from .._checks import ParameterError, check_int_at_least, check_positive

__all__ = [
    "MAX_DOMAIN",
    "check_epsilon",
    "check_domain_answers",
    "answer_codes",
    "codes_to_answers",
    "laplace_noise",
]

#: Largest |Γ| the int8 label codes hold (labels 0 .. 62 and the NULL code 63, so that RR's
#: ``x + s`` of two codes stays below 127).
MAX_DOMAIN = 63


def check_epsilon(epsilon):
    """ε > 0 as a float, or per-worker budgets (finite, >= 0) as an array."""
    eps = np.asarray(epsilon, dtype=np.float64)
    if eps.ndim == 0:
        check_positive("epsilon", float(eps))
    elif not (np.isfinite(eps).all() and (eps >= 0).all()):
        raise ParameterError("epsilon", epsilon,
                             f"epsilon must be finite and >= 0 per worker, got {eps!r}")
    return eps


def check_domain_answers(answers, domain_size: int) -> np.ndarray:
    """Return answers as an array after checking they are NULL (NaN) or integers in Γ.

    The mechanisms run it unless told ``checked=True`` by a caller that already did (the
    experiments check each chunk of repetitions once, not once per mechanism and ε).

    Γ = {0, ..., domain_size-1} (LDP-sparse Sec. III-A: synthetic 0..9, real 0..4).
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    a = np.asarray(answers)
    if a.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {a.ndim}")
    vals = a[~np.isnan(a)]
    bad = (vals < 0) | (vals > k - 1) | (vals != np.round(vals))
    if bad.any():
        raise ValueError(
            f"answers must be NULL (NaN) or integers in [0, {k - 1}] (domain_size={k}); "
            f"found {vals[bad][0]!r}"
        )
    return a


def answer_codes(answers, domain_size: int, *, checked: bool = False) -> np.ndarray:
    """Int8 label codes of an answer matrix: the label for an answer, ``domain_size`` (|Γ|) for
    NULL. Checks the answers (:func:`check_domain_answers`) unless ``checked``."""
    k = check_int_at_least("domain_size", domain_size, 2)
    if k > MAX_DOMAIN:
        raise ParameterError("domain_size", k, f"label codes hold |Γ| <= {MAX_DOMAIN} labels, "
                                               f"got domain_size={k}")
    a = np.asarray(answers) if checked else check_domain_answers(answers, k)
    if a.dtype.kind in "iub":
        return a.astype(np.int8)
    return np.where(np.isnan(a), k, a).astype(np.int8)


def codes_to_answers(codes, domain_size: int, *, dtype=np.float32) -> np.ndarray:
    """The answer matrix of :func:`answer_codes`' codes (``NaN`` for the NULL code)."""
    c = np.asarray(codes)
    out = c.astype(dtype)
    out[c == int(domain_size)] = np.nan
    return out


def laplace_noise(rng, shape, scale: float, *, dtype=np.float32, out=None) -> np.ndarray:
    """Lap(0, ``scale``) draws in ``dtype`` as the difference of two standard exponentials.

    E₁ − E₂ with E₁, E₂ ~ Exp(1) independent is Lap(0, 1) exactly; numpy's ziggurat
    exponential in float32 makes this ~2× faster than ``rng.laplace`` (float64 inverse CDF
    plus a cast), the largest single cost of the LP experiments. Accuracy experiments only:
    floating-point Laplace samplers are not exactly ε-DP (Mironov 2012), so a release snaps
    instead (:mod:`crowdpriv.mechanisms.lp_snapped`). ``out``: an array of ``shape`` and
    ``dtype`` to fill.
    """
    noise = rng.standard_exponential(size=None if out is not None else shape, dtype=dtype,
                                     out=out)
    # E₂ in slices of the flattened output through one small buffer, in the same order (a
    # generator's draws do not depend on how a run of them is split into calls): no temporary
    # of the output's size, and each slice is subtracted while it is in cache
    if noise.flags.c_contiguous:
        flat = noise.reshape(-1)  # a view
        buf = np.empty(min(flat.size, _NOISE_SLICE), dtype=dtype)
        for start in range(0, flat.size, _NOISE_SLICE):
            part = flat[start:start + _NOISE_SLICE]
            e2 = buf[:part.size]
            rng.standard_exponential(dtype=dtype, out=e2)
            part -= e2
    else:
        noise -= rng.standard_exponential(size=shape, dtype=dtype)
    if scale != 1.0:  # x · 1 = x exactly: skip the pass
        noise *= np.dtype(dtype).type(scale)
    return noise


#: Cells per slice of the second exponential draw of :func:`laplace_noise` (256 KiB float32).
_NOISE_SLICE = 1 << 16
