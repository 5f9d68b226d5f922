"""Exact tests of crowdpriv.floating_point (issue 25's support tests; mutation testing, issue
24): the MF neighbours and samplers the support tests audit, the integer-threshold count, and
snapped_output_law's binade arithmetic, its documented limits and default."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from crowdpriv import floating_point as fp
from crowdpriv.audit import SupportResult
from crowdpriv.mechanisms import get
from crowdpriv.mechanisms.mf import MFPrepared, mf_apply, mf_draws, mf_prepare
from crowdpriv.mechanisms.mf_snapped import mf_snapped_rhs
from crowdpriv.release import standard_laplace


def _record(monkeypatch):
    """Replace support_share by a recorder of the outputs and the neighbour's sampler."""
    seen = {}

    def recorder(outputs, sampler, *, dtype):
        seen.update(y=np.asarray(outputs), sampler=sampler, dtype=dtype)
        return SupportResult(0, len(outputs))

    monkeypatch.setattr(fp, "support_share", recorder)
    return seen


def _mf_neighbours(mech_id, settings, k):
    """The documented worker of the MF support tests: V = profiles(4d) drawn with seed 0, the
    answers to its 4d tasks drawn with seed 1, task 0 answered 0 (D) or |Γ| − 1 (D′)."""
    d = settings.d
    v = get(mech_id).profiles(4 * d, settings, rng=np.random.default_rng(0))
    answers = np.random.default_rng(1).integers(0, k, 4 * d).astype(float)
    preps = {}
    for which, first in (("D", 0.0), ("D'", float(k - 1))):
        row = answers.copy()
        row[0] = first
        preps[which] = mf_prepare(row[None], v, domain_size=k, ridge=settings.ridge)
        assert_allclose(preps[which].rhs[0], v @ row, rtol=1e-12, atol=1e-12)  # b = Σ a_j v_j
    return v, preps


def test_mf_eta_support_audits_mf_apply_between_answers_0_and_k_minus_1(monkeypatch):
    """y is MF's noisy b − η as mf_apply solves it (same draws, same bits) for D; the
    neighbour's sampler is D′'s b minus η = −t·|Γ|/ε, increasing in t. ε = 2 tells |Γ|/ε
    from |Γ|·ε."""
    seen = _record(monkeypatch)
    k, eps, n = 5, 2.0, 6
    settings = get("mf").settings(d=3)
    got = fp.mf_eta_support(eps, k, settings, samples=n, rng=np.random.default_rng(7))
    assert (got.samples, seen["dtype"]) == (n, np.float64)
    _, preps = _mf_neighbours("mf", settings, k)
    prep = preps["D"]
    eta = mf_draws(MFPrepared(prep.solver, np.repeat(prep.rhs, n, axis=0), prep.profiles, k),
                   rng=np.random.default_rng(7))
    y = seen["y"]
    assert y.shape == (n, 3)
    assert_array_equal(y, prep.rhs[0] - eta * (k / eps))
    solved = np.einsum("ij,...j->...i", prep.solver[0], y)
    assert_allclose(solved, mf_apply(prep, eta, eps), rtol=1e-12)
    t = np.array([[-1.5, 0.0, 2.25], [3.0, -0.5, 1.0]])
    assert_array_equal(seen["sampler"](t), preps["D'"].rhs[0] + t * 2.5)
    # D and D' differ by task 0's answer only: b_D − b_D' = (0 − (k − 1)) v_0
    assert_allclose(preps["D"].rhs[0] - preps["D'"].rhs[0], -(k - 1) * prep.profiles[:, 0],
                    atol=1e-12)


def test_mf_snapped_support_audits_the_snapped_rhs_of_the_same_neighbours(monkeypatch):
    seen = _record(monkeypatch)
    k, eps, n = 5, 2.0, 4
    settings = get("mf-snapped").settings(d=3)
    got = fp.mf_snapped_support(eps, k, settings, samples=n, rng=np.random.default_rng(5))
    assert (got.samples, seen["dtype"]) == (n, np.float64)
    _, preps = _mf_neighbours("mf-snapped", settings, k)

    def rep(p):
        return MFPrepared(p.solver, np.repeat(p.rhs, n, axis=0), p.profiles, k)

    draws = standard_laplace(np.random.default_rng(5), (n, 3))
    assert_array_equal(seen["y"], mf_snapped_rhs(rep(preps["D"]), draws, eps, settings))
    t = np.array([[-1.5, 0.0, 2.25], [3.0, -0.5, 1.0], [0.1, 0.2, 0.3], [-4.0, 4.0, 0.0]])
    assert_array_equal(seen["sampler"](t), mf_snapped_rhs(rep(preps["D'"]), t, eps, settings))


def test_integer_rr_support_one_draw_makes_an_output_reachable(monkeypatch):
    """An output with a single draw of the 2^62 (q = 1) is reachable: only a count of 0 is
    unreachable."""
    monkeypatch.setattr(fp, "rr_thresholds", lambda eps, k: (np.int64(1), np.int64(2**62 - 4)))
    got = fp.integer_rr_support(1.0, 5, value=0, other=1, samples=200,
                                rng=np.random.default_rng(3))
    assert (got.unreachable, got.samples) == (0, 200)


def test_replay_gives_numpys_laplace_arithmetic_and_null_fills():
    draws = [-1.25, 0.0, 3.5]
    r = fp._Replay(draws)
    assert_array_equal(r.laplace(size=3), draws)  # the defaults: loc 0, scale 1
    assert_array_equal(r.laplace(2.0, 3.0, size=(3, 1)), [[-1.75], [2.0], [12.5]])
    assert_array_equal(r.standard_laplace((1, 3)), [draws])
    z = r.integers(0, 5, size=(2, 2))
    assert z.dtype == np.int64 and z.shape == (2, 2) and not z.any()


def _floor_clamped(value, draw):
    """A grid release of the draw: ⌊L⌋ clamped to [−3, 2] (monotone, clamped in binade 5)."""
    return float(min(max(math.floor(draw), -3), 2))


def test_snapped_output_law_is_the_laplace_law_of_the_draw():
    """For ⌊L⌋ clamped to [−3, 2] the law is Laplace(0, 1)'s: P(⌊L⌋ = j) = P(j ≤ L < j + 1),
    (e^{j+1} − e^j)/2 below 0 and (e^{−j} − e^{−j−1})/2 above, the clamps taking the tails
    P(L < −2) = P(L ≥ 2) = e^{−2}/2 (to the float grid of U*: 1e-15)."""
    law = fp.snapped_output_law(_floor_clamped, 0.0)
    assert sorted(law) == [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0]
    assert sum(law.values()) == 1
    e = math.exp
    want = {-3.0: e(-2) / 2, -2.0: (e(-1) - e(-2)) / 2, -1.0: (1 - e(-1)) / 2,
            0.0: (1 - e(-1)) / 2, 1.0: (e(-1) - e(-2)) / 2, 2.0: e(-2) / 2}
    for g, p in want.items():
        assert abs(float(law[g]) - p) < 1e-15, g


def test_snapped_output_law_default_is_80_binades():
    """Beyond ``binades`` (default 80) every draw must give the clamp: a release whose clamp
    starts at L = −56.5 (inside binade 81, U* in [2^−82, 2^−81)) is refused by default and
    counted exactly with binades=81."""

    def late_clamp(value, draw):
        return 0.0 if draw > -56.5 else -1.0

    with pytest.raises(ValueError, match="beyond binade 80"):
        fp.snapped_output_law(late_clamp, 0.0)
    with pytest.raises(ValueError, match="beyond binade 80"):
        fp.snapped_exact_epsilon(late_clamp, [0.0])  # its default too
    law = fp.snapped_output_law(late_clamp, 0.0, binades=81)
    # every draw of binades 1-81 gives 0; the negative draws beyond (mass 2^-82) the clamp −1
    assert law == {0.0: 1 - Fraction(1, 2**82), -1.0: Fraction(1, 2**82)}


def _many_outputs(count):
    """``count`` outputs in binade 1 of the negative draws (L in [−ln 2, 0)), one elsewhere."""
    scale = 2 * count / math.log(2)

    def run(value, draw):
        return float(min(0, max(math.floor(draw * scale), -count)))

    return run


def test_snapped_output_law_allows_10000_outputs_in_one_binade():
    law = fp.snapped_output_law(_many_outputs(fp.MAX_OUTPUTS), 0.0, binades=2)
    assert fp.MAX_OUTPUTS == 10_000
    assert len(law) == 10_001  # −1 … −10 000 and 0
    assert sum(law.values()) == 1


def test_snapped_output_law_refuses_10001_outputs_in_one_binade():
    with pytest.raises(ValueError, match="more than 10000 outputs in one binade"):
        fp.snapped_output_law(_many_outputs(10_001), 0.0, binades=2)


def test_snapped_exact_epsilon_of_a_unit_shift_is_1_and_of_disjoint_supports_infinite():
    """⌊L + x⌋ clamped to [−3, 3] for x ∈ {0, 1} is the Laplace mechanism of sensitivity 1 and
    scale 1 on a grid: every output's probabilities differ by a factor e at most (e exactly at
    the clamps and the outputs ≠ 0), so ε = 1 (to 1e-12); an input against itself gives 0;
    shifting the clamped grid by x leaves the end outputs of one input unreachable: ∞."""

    def shifted(value, draw):
        return float(min(max(math.floor(draw + value), -3), 3))

    def moved(value, draw):
        return _floor_clamped(value, draw) + value

    assert abs(fp.snapped_exact_epsilon(shifted, [0.0, 1.0]) - 1.0) < 1e-12
    assert fp.snapped_exact_epsilon(shifted, [1.0]) == 0.0
    assert fp.snapped_exact_epsilon(moved, [0.0, 1.0]) == math.inf


def test_snapped_output_law_ends_at_the_smallest_draw_2_to_minus_1022():
    """U* is at least 2^−1022 (:func:`crowdpriv.release.uniform_doubles`), so the clamp is
    checked there: a release differing only at draws L < ln 2^−1022 ≈ −708.40 has one output."""

    def below_the_draws(value, draw):
        return 0.0 if draw > -708.7 else -1.0

    assert fp.snapped_output_law(below_the_draws, 0.0, binades=3) == {0.0: 1}
