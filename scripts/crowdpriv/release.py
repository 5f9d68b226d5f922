"""Release-path samplers: the mechanisms as used on real data, without floating-point leaks.

The reproduction's samplers draw textbook floating-point noise; the privacy audit shows that
LP's float32 output then has a support that depends on the input (Mironov, CCS 2012). A real
release uses Mironov's *snapping mechanism* instead: clamp the input to [−B, B], add Laplace
noise, round to the nearest multiple of Λ (the smallest power of two ≥ the noise scale λ) and
clamp to [−B, B] again. Rounding to a power-of-two grid is exact in floating point, so every
output is a grid point both neighbours can produce, and Mironov's Theorem 1 bounds the cost:
for sensitivity 1 and λ < B < 2^46 λ the mechanism is (1/λ + 2^−49 B/λ)-DP.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import ParameterError, check_positive

__all__ = ["snapping_grid", "snapped_laplace", "snapping_epsilon", "snap"]


def snapping_grid(scale: float) -> float:
    """Λ: the smallest power of two at least the noise scale λ."""
    return 2.0 ** math.ceil(math.log2(check_positive("scale", scale)))


def snapping_epsilon(sensitivity: float, scale: float, bound: float) -> float:
    """ε of the snapping mechanism (Mironov 2012, Theorem 1) for inputs that differ by at most
    ``sensitivity``: in units of the sensitivity λ' = scale/Δ and B' = bound/Δ, ε = 1/λ' +
    2^−49 B'/λ'. Requires λ < B < 2^46 λ."""
    delta_ = check_positive("sensitivity", sensitivity)
    lam, b = check_positive("scale", scale), check_positive("bound", bound)
    if not lam < b < 2.0 ** 46 * lam:
        raise ParameterError("bound", bound, f"the snapping mechanism needs scale < bound < "
                             f"2^46 scale, got scale {lam:g}, bound {b:g}")
    lam_u, b_u = lam / delta_, b / delta_
    return 1.0 / lam_u + 2.0 ** -49 * b_u / lam_u


def snap(values, noise, scale: float, *, bound) -> np.ndarray:
    """The snapping mechanism's arithmetic on given Lap(``scale``) draws (float64): clamp the
    values to [−B, B], add the noise, round to the nearest multiple of
    :func:`snapping_grid` (exact: a power of two), clamp again. ``bound`` may be an array
    broadcasting with the values."""
    x = np.clip(np.asarray(values, dtype=np.float64), -bound, bound)
    grid = snapping_grid(scale)
    return np.clip(grid * np.round((x + noise) / grid), -bound, bound)


def snapped_laplace(values, scale: float, *, bound: float, rng) -> np.ndarray:
    """Mironov's snapping mechanism on every value: clamp to [−B, B], add Lap(scale) (float64),
    round to the nearest multiple of :func:`snapping_grid`, clamp again."""
    x = np.asarray(values, dtype=np.float64)
    return snap(x, rng.laplace(0.0, scale, size=x.shape), scale, bound=bound)
