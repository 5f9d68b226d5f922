"""Exact tests of PrisCrowd's Basic baseline (scripts/crowdpriv/mechanisms/basic.py): Lap(Δ/ε)
on each normalised claim (Sec. 5), against the generator's own Laplace draws; its declared
guarantee; its audit cases against closed forms in the data's units; its law's scale."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import DataShape, get
from crowdpriv.mechanisms.basic import basic_release
from crowdpriv.mechanisms.priscrowd import AUDIT_OBJECT, audit_neighbours

Z = np.array([[0.0, 1.0, 3.0], [2.0, -1.0, np.nan]])
MASK = ~np.isnan(Z)
RANGES = np.array([3.0, 3.0])  # max − min of each object's claims
EPS = 0.5


def _laplace(seed, shape):
    return np.random.default_rng(seed).laplace(size=shape)


def _expected(scale_per_object, reps, seed=3):
    noise = _laplace(seed, (reps, *Z.shape)) * scale_per_object[None, :, None]
    return np.where(MASK[None], np.nan_to_num(Z)[None] + noise, np.nan)


def test_basic_adds_laplace_of_the_range_over_epsilon():
    """Sec. 5: z + Lap(Δ_i/ε), Δ_i the object's claim range; one repetition by default;
    padding stays NaN (Basic does not fill NULLs)."""
    got = basic_release(np.nan_to_num(Z), MASK, EPS, rng=np.random.default_rng(3))
    assert got.shape == (1, 2, 3)
    assert_allclose(got, _expected(RANGES / EPS, 1), rtol=0, atol=1e-15)
    assert np.isnan(got[0, 1, 2])
    assert get("basic").fills_nulls is False


def test_basic_records_and_public_range():
    """'records': Δ_i times the object's number of claims (3 and 2); a public value_range
    replaces each object's own range."""
    z = np.nan_to_num(Z)
    got = basic_release(z, MASK, EPS, reps=2, rng=np.random.default_rng(3),
                        sensitivity="records")
    assert_allclose(got, _expected(RANGES * [3, 2] / EPS, 2), rtol=0, atol=1e-14)
    got = basic_release(z, MASK, EPS, reps=2, rng=np.random.default_rng(3), value_range=7.0)
    assert_allclose(got, _expected(np.array([7.0, 7.0]) / EPS, 2), rtol=0, atol=1e-14)


def test_basic_refuses_zero_repetitions():
    with pytest.raises(ParameterError, match="reps") as err:
        basic_release(np.nan_to_num(Z), MASK, EPS, reps=0, rng=np.random.default_rng(0))
    assert err.value.parameter == "reps"


def test_the_member_samples_one_repetition_by_default():
    basic = get("basic")
    got = basic.sample(np.nan_to_num(Z), MASK, EPS, basic.settings(), rng=np.random.default_rng(3))
    assert_allclose(got, _expected(RANGES / EPS, 1), rtol=0, atol=1e-15)


def test_claimed_and_guarantee():
    """Sec. 5 claims pure ε-DP (δ = 0) per claim; as run, the range comes from the data: ∞,
    except in exact arithmetic with a public range (ε)."""
    basic = get("basic")
    claim = basic.claimed(basic.settings(), EPS)
    assert (claim.epsilon, claim.delta) == (EPS, 0.0)
    shape = DataShape(3, 4, 2)
    own = basic.guarantee(basic.settings(), shape, EPS)
    assert math.isinf(own.record_epsilon) and math.isinf(own.worker_epsilon)
    assert (own.record_delta, own.worker_delta) == (0.0, 0.0)
    assert math.isinf(own.ideal_record_epsilon)
    public = basic.guarantee(basic.settings(value_range=2.0), shape, EPS)
    assert public.ideal_record_epsilon == EPS


def test_audit_cases_against_closed_forms():
    """The fixed-sensitivity case: the last claim x moves to D's max; z-scoring is affine, so
    the exact ε is ε (max − x)/(max − min), and the released z is the claim's z-score plus
    Lap((max − min)/(σ ε)). The as-run cases release, in the data's units, the (replaced)
    last claim plus Lap(range of its claim set / ε)."""
    basic = get("basic")
    cases = basic.audit_cases(basic.settings(), EPS, name="Normal")
    x = AUDIT_OBJECT
    lo, hi, last = x.min(), x.max(), x[-1]
    mean, sd = x.mean(), x.std()
    fixed = cases[0]
    assert fixed.mechanism == "Basic(Normal)"
    assert (fixed.claimed_epsilon, fixed.claimed_delta) == (EPS, 0.0)
    assert fixed.exact_epsilon == pytest.approx(EPS * (hi - last) / (hi - lo), rel=1e-12)
    n = 5
    lap = _laplace(7, (n, 1, 1))[:, 0, 0] * ((hi - lo) / sd / EPS)
    for which, claim in (("D", last), ("D'", hi)):
        got = fixed.sample(np.random.default_rng(7), n, which)
        assert_allclose(got, (claim - mean) / sd + lap, rtol=1e-12, atol=1e-12)
    values = [v for _, v in audit_neighbours(x)]
    assert len(cases) == 1 + len(values)
    for case, value in zip(cases[1:], values):
        assert (case.claimed_epsilon, case.claimed_delta) == (EPS, 0.0)
        replaced = np.concatenate([x[:-1], [value]])
        for which, claims in (("D", x), ("D'", replaced)):
            want = claims[-1] + _laplace(9, (n, 1, 12))[:, 0, -1] * (np.ptp(claims) / EPS)
            got = case.sample(np.random.default_rng(9), n, which)
            assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("sensitivity", "claims"), [("range", 1), ("records", 4)])
def test_law_scale(sensitivity, claims):
    """The law's object has range 3 and 4 claims: Lap(3/ε), times 4 under 'records'; its
    noise is the sampler's Laplace draw."""
    basic = get("basic")
    (check,) = basic.law(basic.settings(sensitivity=sensitivity), EPS)
    scale = 3.0 * claims / EPS
    t = np.array([-7.0, -0.3, 0.0, 1.1, 12.0])
    assert_allclose(check.cdf(t), stats.laplace(scale=scale).cdf(t), rtol=1e-13)
    noise = check.sample(np.random.default_rng(4), 6)
    assert_allclose(noise, (_laplace(4, (6, 1, 4)) * scale).ravel(), rtol=1e-9, atol=1e-12)
    assert_array_equal(noise.shape, (24,))
