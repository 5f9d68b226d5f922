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

__all__ = ["snapping_grid", "snapped_laplace", "snapping_epsilon", "snapped_noise_mse"]


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


def snapped_laplace(values, scale: float, *, bound: float, rng) -> np.ndarray:
    """Mironov's snapping mechanism on every value: clamp to [−B, B], add Lap(scale) (float64),
    round to the nearest multiple of :func:`snapping_grid`, clamp again."""
    x = np.clip(np.asarray(values, dtype=np.float64), -bound, bound)
    grid = snapping_grid(scale)
    y = x + rng.laplace(0.0, scale, size=x.shape)
    return np.clip(grid * np.round(y / grid), -bound, bound)


def snapped_noise_mse(values, scale: float, *, bound: float) -> np.ndarray:
    """E[(output − x)²] of :func:`snapped_laplace` at each input x (inside [−B, B]), exact:
    the output is the grid point jΛ (clamped to ±B) whose cell [(j − ½)Λ, (j + ½)Λ) holds
    x + Lap(scale), so the law is the Laplace CDF's differences over the grid cells, the tails
    beyond the clamp merged into ±B. 2·scale² plus what rounding to a grid of up to 2·scale
    adds (7-9 % at |Γ| = 5, ε = 1)."""
    from scipy import stats

    x = np.clip(np.atleast_1d(np.asarray(values, dtype=np.float64)), -bound, bound)
    grid = snapping_grid(scale)
    j = np.arange(np.floor(-bound / grid) - 1, np.ceil(bound / grid) + 2)
    low = (j - 0.5) * grid - x[:, None]
    high = (j + 0.5) * grid - x[:, None]
    mass = stats.laplace.cdf(high, scale=scale) - stats.laplace.cdf(low, scale=scale)
    mass[:, 0] += stats.laplace.cdf(low[:, 0], scale=scale)
    mass[:, -1] += stats.laplace.sf(high[:, -1], scale=scale)
    error = np.clip(j * grid, -bound, bound) - x[:, None]
    return (mass * error * error).sum(axis=1)
