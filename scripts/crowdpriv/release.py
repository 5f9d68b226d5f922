"""Release-path samplers: the mechanisms as used on real data, without floating-point leaks.

The reproduction's samplers draw textbook floating-point noise; the privacy audit shows that
LP's float32 output then has a support that depends on the input (Mironov, CCS 2012). A real
release uses Mironov's *snapping mechanism* instead: clamp the input to [−B, B], add Laplace
noise, round to the nearest multiple of Λ (the smallest power of two ≥ the noise scale λ) and
clamp to [−B, B] again. Rounding to a power-of-two grid is exact in floating point, so every
output is a grid point both neighbours can produce, and Mironov's Theorem 1 bounds the cost:
for sensitivity 1 and λ < B < 2^46 λ the mechanism is (1/λ + 2^−49 B/λ)-DP.

Theorem 1 assumes Mironov's sampler of the noise: S · λ · LN(U*), with S a uniform sign, U*
uniform over the doubles of (0, 1) (each double with probability its spacing, i.e. a real
uniform rounded down to a double) and LN a correctly rounded logarithm. numpy's
``Generator.laplace`` is not that sampler: its uniform lies on the grid j/2^53, so a cell's
probability is a count of grid points (in the tails a handful: on LP's five inputs the exact ε
of that sampler, counted over all 2^53 draws, exceeds Theorem 1 by 2.4e-12 at ε = 1) and its
noise never exceeds 36.04 λ (for ε > 30 at |Γ| = 5, LP's snapped outputs near one clamp are
then unreachable from the far input: ε = ∞, at probability ~1e-13). :func:`standard_laplace`
draws U* exactly (a geometric binade from random bits, a uniform 52-bit mantissa) and takes
the C library's ``log``, which is not guaranteed to be correctly rounded: the one assumption
of Theorem 1 not met here. Its noise reaches :data:`LAPLACE_REACH` λ ≈ 708 λ, so
every output of [−B, B] is reachable from every input when 2B + Λ ≤ 708 λ
(:func:`snapping_reaches`); the members keep their clamps within it.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import ParameterError, check_positive

__all__ = ["snapping_grid", "snapped_laplace", "snapping_epsilon", "snap", "uniform_doubles",
           "standard_laplace", "snapping_reaches", "LAPLACE_REACH", "LOG_CAVEAT",
           "snapped_noise_mse"]

#: The largest |L| :func:`standard_laplace` draws: −ln(2^−1022), U* being at least 2^−1022.
LAPLACE_REACH = 1022 * math.log(2.0)
#: Binades of U* beyond the last normal one are folded into it (probability 2^−1022).
LAST_BINADE = 1022
#: The C library's log, element-wise (numpy's SIMD log differs from it in the last bit).
_LOG = np.frompyfunc(math.log, 1, 1)
#: What a snapped release's ε rests on beyond Theorem 1's proof (for its ledger).
LOG_CAVEAT = ("Mironov's Theorem 1 assumes a correctly rounded logarithm; the noise uses the C "
              "library's log, which is not guaranteed to be correctly rounded")


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


def uniform_doubles(rng, size) -> np.ndarray:
    """Mironov's U*: a double of (0, 1) with probability its spacing (a real uniform rounded down
    to a double). The binade [2^−e, 2^(1−e)) is chosen with probability 2^−e from the leading
    zeros of uniform 53-bit integers (e = 1 + leading zeros, 53 more per all-zero integer),
    the mantissa uniformly from 52 random bits: U* = (2^52 + m) 2^(−52−e), exact. Binades beyond
    2^−1022 (probability 2^−1022) are folded into the last normal one."""
    shape = tuple(np.atleast_1d(size)) if size is not None else ()
    n = int(np.prod(shape, dtype=np.int64))
    exponent = np.ones(n, dtype=np.int64)
    words = rng.integers(0, 2**53, size=n, dtype=np.uint64)
    zero = words == 0
    while zero.any():  # an all-zero word: 53 more leading zeros
        exponent[zero] += 53
        words[zero] = rng.integers(0, 2**53, size=int(zero.sum()), dtype=np.uint64)
        zero = words == 0
    _, bits = np.frexp(words.astype(np.float64))  # the bit length (words < 2^53: exact)
    exponent += 53 - bits
    np.minimum(exponent, LAST_BINADE, out=exponent)
    mantissa = rng.integers(0, 2**52, size=n, dtype=np.uint64) + np.uint64(2**52)
    return np.ldexp(mantissa.astype(np.float64), -(52 + exponent)).reshape(shape)


def standard_laplace(rng, size) -> np.ndarray:
    """Lap(0, 1) as Mironov's snapping mechanism samples it: S · LN(U*) (:func:`uniform_doubles`,
    the C library's log, a uniform sign), float64. A generator stand-in with its own
    ``standard_laplace(size)`` supplies the draws instead (the floating-point support tests
    replay chosen draws through the code that runs)."""
    if hasattr(rng, "standard_laplace"):
        return np.asarray(rng.standard_laplace(size), dtype=np.float64)
    u = uniform_doubles(rng, size)
    sign = rng.integers(0, 2, size=u.shape, dtype=np.int8)
    magnitude = _LOG(u).astype(np.float64) if u.size else u.copy()
    return np.where(sign == 1, magnitude, -magnitude)  # pragma: no mutate (equivalent: the sign bit is uniform, so which value means + leaves the law unchanged)


def snapping_reaches(scale: float, bound) -> bool:
    """Whether :func:`standard_laplace` noise of ``scale`` carries every input of [−B, B] to
    both clamps (2B + Λ ≤ LAPLACE_REACH · λ, with a margin for rounding): then every output is
    reachable from every input."""
    b = float(np.max(bound))
    return 2.0 * b + snapping_grid(scale) <= LAPLACE_REACH * scale * (1.0 - 2.0**-40)


def snap(values, noise, scale: float, *, bound) -> np.ndarray:
    """The snapping mechanism's arithmetic on given Lap(``scale``) draws (float64): clamp the
    values to [−B, B], add the noise, round to the nearest multiple of
    :func:`snapping_grid` (exact: a power of two), clamp again. ``bound`` may be an array
    broadcasting with the values."""
    x = np.clip(np.asarray(values, dtype=np.float64), -bound, bound)
    grid = snapping_grid(scale)
    return np.clip(grid * np.round((x + noise) / grid), -bound, bound)


def snapped_laplace(values, scale: float, *, bound: float, rng) -> np.ndarray:
    """Mironov's snapping mechanism on every value: clamp to [−B, B], add Lap(scale) drawn as
    his Theorem 1 assumes (:func:`standard_laplace`), round to the nearest multiple of
    :func:`snapping_grid`, clamp again."""
    x = np.asarray(values, dtype=np.float64)
    return snap(x, standard_laplace(rng, x.shape) * scale, scale, bound=bound)


def snapped_noise_mse(values, scale: float, *, bound: float) -> np.ndarray:
    """E[(output − x)²] of :func:`snapped_laplace` at each input x (inside [−B, B]), exact:
    the output is the grid point jΛ (clamped to ±B) whose cell [(j − ½)Λ, (j + ½)Λ) holds
    x + Lap(scale), so the law is the Laplace CDF's differences over the grid cells, the tails
    beyond the clamp merged into ±B. 2·scale² plus what rounding to a grid of up to 2·scale
    adds (LP snapped at |Γ| = 5, ε = 1: 8.5-10.5 % per answer, 9.5 % on average)."""
    from scipy import stats

    x = np.clip(np.atleast_1d(np.asarray(values, dtype=np.float64)), -bound, bound)
    grid = snapping_grid(scale)
    # the grid points from the first at or below −B to the first at or above B: each end
    # cell outputs its clamp and takes the tail beyond it
    j = np.arange(np.floor(-bound / grid), np.ceil(bound / grid) + 1)
    low = (j - 0.5) * grid - x[:, None]
    high = (j + 0.5) * grid - x[:, None]
    mass = stats.laplace.cdf(high, scale=scale) - stats.laplace.cdf(low, scale=scale)
    mass[:, 0] += stats.laplace.cdf(low[:, 0], scale=scale)
    mass[:, -1] += stats.laplace.sf(high[:, -1], scale=scale)
    error = np.clip(j * grid, -bound, bound) - x[:, None]
    return (mass * error * error).sum(axis=1)
