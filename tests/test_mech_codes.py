"""Exact tests of the categorical sampler primitives (scripts/crowdpriv/mechanisms/_codes.py):
per-worker budgets, the answers' domain message, the int8 codes' largest domain, Laplace noise as
E1 - E2 of the generator's standard exponentials."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms._codes import (
    _NOISE_SLICE,
    MAX_DOMAIN,
    answer_codes,
    check_domain_answers,
    check_epsilon,
    laplace_noise,
)


def test_per_worker_budgets_are_finite_and_at_least_zero():
    """check_epsilon's docstring: per-worker budgets are finite and >= 0 (zero allowed: a
    worker who spends nothing)."""
    assert_array_equal(check_epsilon([0.0, 1.0, 2.5]), [0.0, 1.0, 2.5])
    for bad in ([1.0, -0.5], [1.0, np.inf], [np.nan, 1.0]):
        with pytest.raises(ParameterError, match="epsilon must be finite and >= 0 per worker") as e:
            check_epsilon(bad)
        assert e.value.parameter == "epsilon"


def test_answers_outside_the_domain_name_the_domain():
    with pytest.raises(ValueError, match=r"integers in \[0, 2\] \(domain_size=3\); found \S*3\.0"):
        check_domain_answers(np.array([[0.0, 3.0], [np.nan, 1.0]]), 3)


def test_the_largest_domain_the_int8_codes_hold():
    """MAX_DOMAIN = 63 labels (codes 0..62, NULL 63) is accepted; 64 is refused naming it."""
    assert MAX_DOMAIN == 63
    answers = np.array([[0.0, 62.0, np.nan]])
    assert_array_equal(answer_codes(answers, 63), [[0, 62, 63]])
    with pytest.raises(ParameterError, match="domain_size=64") as e:
        answer_codes(answers, 64)
    assert (e.value.parameter, e.value.value) == ("domain_size", 64)


def _e1_minus_e2(seed, shape, scale):
    """Independent computation: two runs of standard exponentials, E1 then E2, in float32."""
    rng = np.random.default_rng(seed)
    e1 = rng.standard_exponential(size=shape, dtype=np.float32)
    e2 = rng.standard_exponential(size=shape, dtype=np.float32)
    return (e1 - e2) * np.float32(scale)


@pytest.mark.parametrize("shape", [(3, 4), (2, _NOISE_SLICE + 5)])
@pytest.mark.parametrize("scale", [1.0, 1.5, 0.25])
def test_laplace_noise_is_e1_minus_e2_times_scale(shape, scale):
    """The docstring's E1 - E2 (then times the scale), the same draws in the same order as two
    whole runs, below and above one slice of E2."""
    got = laplace_noise(np.random.default_rng(11), shape, scale)
    assert got.dtype == np.float32 and got.shape == shape
    assert_array_equal(got, _e1_minus_e2(11, shape, scale))


def test_laplace_noise_into_a_fortran_ordered_out_is_laplace_too():
    """An ``out`` that is not C-contiguous (F-ordered: numpy's generator fills it) takes the
    whole-array branch: still E1 − E2, so mean 0 and E|L| = scale (Lap(0, 1): mean |L| = 1;
    a sum of exponentials would have mean 2)."""
    from crowdpriv.mechanisms._codes import laplace_noise

    out = np.empty((300, 400), dtype=np.float32).T
    noise = laplace_noise(np.random.default_rng(5), out.shape, 2.0, out=out)
    assert noise is out and not noise.flags.c_contiguous
    assert abs(float(noise.mean())) < 0.05  # standard error 2·√2/√120000 ≈ 0.008
    assert abs(float(np.abs(noise).mean()) - 2.0) < 0.05
