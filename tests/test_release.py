"""The snapping sampler's helpers (crowdpriv.release) at their edges: the reach of its noise
(every output reachable from every input) and the exact mean squared error of a snapped
release, each against a computation written here apart from the module's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from crowdpriv.release import (LAPLACE_REACH, snap, snapped_noise_mse, snapping_grid,
                               snapping_reaches)

#: the margin snapping_reaches keeps for rounding: 2B + Λ <= REACH λ (1 − 2^−40)
MARGIN = 1.0 - 2.0**-40


@pytest.mark.parametrize("scale", [1.0, 0.3, 5.0])
def test_snapping_reaches_every_output_up_to_the_noise_reach_with_its_margin(scale):
    """The largest clamp B with 2B + Λ <= 708.4 λ (1 − 2^−40) is reached, a clamp just past it
    is not (half the margin's width apart: a margin of 2^−39, 3^−40 or none would move it)."""
    grid = snapping_grid(scale)
    limit = LAPLACE_REACH * scale * MARGIN  # what 2B + Λ may reach
    width = LAPLACE_REACH * scale * 2.0**-40  # the margin itself
    just_in = (limit - grid) / 2 - width / 4
    just_out = (limit - grid) / 2 + width / 4
    assert snapping_reaches(scale, just_in)
    assert not snapping_reaches(scale, just_out)
    # without the margin just_out would be reached: the margin is what refuses it
    assert 2.0 * just_out + grid <= LAPLACE_REACH * scale
    # far inside and far outside, and an array of clamps is judged by its largest
    assert snapping_reaches(scale, 0.25 * limit)
    assert not snapping_reaches(scale, limit)
    assert not snapping_reaches(scale, np.array([0.0, just_in, just_out]))
    assert snapping_reaches(scale, np.array([0.0, just_in / 3, just_in]))


@pytest.mark.parametrize("scale", [1.0, 4.0, 0.5])
def test_snapping_reaches_a_clamp_exactly_at_its_limit(scale):
    """2B + Λ equal to the limit (a B at which the float sum is exactly it) is reached: the
    condition is ≤, the next double above is not."""
    grid = snapping_grid(scale)
    limit = LAPLACE_REACH * scale * MARGIN
    b = (limit - grid) / 2
    assert 2.0 * b + grid == limit  # exact at these scales (checked, not assumed)
    assert snapping_reaches(scale, b)
    assert not snapping_reaches(scale, float(np.nextafter(b, np.inf)))


def test_snapping_reaches_counts_the_grid_cell():
    """2B + Λ, not 2B alone nor 2B − Λ: a clamp within one grid cell of the reach is refused."""
    scale = 4.0  # Λ = 4
    b = (LAPLACE_REACH * scale * MARGIN - 2.0) / 2  # 2B + Λ/2 = limit: 2B + Λ exceeds it
    assert not snapping_reaches(scale, b)
    assert snapping_reaches(scale, b - 1.5)  # 2B + Λ = limit − 1


def _mse_by_quadrature(x: float, scale: float, bound: float) -> float:
    """E[(snap(x + L) − x)²], L ~ Lap(scale), summed over the noise values at which the
    snapped output changes (a piecewise constant function of the noise), each piece's
    probability from the Laplace CDF written out here."""
    grid = snapping_grid(scale)

    def cdf(t):
        return 0.5 * math.exp(t / scale) if t < 0 else 1.0 - 0.5 * math.exp(-t / scale)

    # the output is Λ·round((x + L)/Λ) clamped: it changes where x + L crosses (j + ½)Λ
    cuts = [(j + 0.5) * grid - x for j in range(-int(bound / grid) - 3, int(bound / grid) + 3)]
    edges = [-math.inf, *cuts, math.inf]
    total = 0.0
    for lo, hi in zip(edges, edges[1:]):
        p = (cdf(hi) if hi < math.inf else 1.0) - (cdf(lo) if lo > -math.inf else 0.0)
        mid = lo + 1.0 if lo == -math.inf else hi - 1.0 if hi == math.inf else (lo + hi) / 2
        out = float(snap(np.array([x]), np.array([mid]), scale, bound=bound)[0])
        total += p * (out - x) ** 2
    return total


@pytest.mark.parametrize("scale, bound", [(5.0, 10.0), (1.3, 2.0), (0.7, 6.5), (20.0, 3.0), (0.3, 6.5)])
def test_snapped_noise_mse_equals_the_law_of_the_snapped_output(scale, bound):
    """Exact against a sum over the pieces of the snapped output (the clamps' tails included),
    at inputs inside, at and beyond the clamp (clamped first)."""
    xs = np.array([0.0, 0.4 * bound, -bound, bound, -0.77 * bound, 2.0 * bound])
    got = snapped_noise_mse(xs, scale, bound=bound)
    want = [_mse_by_quadrature(float(np.clip(x, -bound, bound)), scale, bound) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_snapped_noise_mse_against_sampling_and_the_unclamped_limit():
    """The snapped release's empirical MSE (the sampler that runs) agrees; far from the clamps
    it is 2λ² plus the rounding's, between 2λ² and 2λ² + Λ²/4 + ..."""
    from crowdpriv.release import snapped_laplace

    scale, bound = 2.5, 9.0
    x = np.full(100_000, 1.5)
    out = snapped_laplace(x, scale, bound=bound, rng=np.random.default_rng(3))
    exact = float(snapped_noise_mse(np.array([1.5]), scale, bound=bound)[0])
    empirical = float(np.mean((out - 1.5) ** 2))
    assert empirical == pytest.approx(exact, rel=0.03)  # 4 standard errors
    wide = float(snapped_noise_mse(np.array([0.0]), 1.0, bound=400.0)[0])
    assert 2.0 < wide < 2.0 + 1.0 / 4  # Λ = 1: rounding to the grid adds less than Λ²/4
