"""Exact tests of the 2-Layer baseline (scripts/crowdpriv/mechanisms/two_layer.py, LDP-sparse
Sec. VI-D after Li et al. KDD 2018): the per-worker budget multipliers, RR (Eq. 8) at ε_i on
hand-made uniforms, the mixture's ε and channel against their closed-form integrals, the ε_i
grid, and the member's settings, guarantee, audit samplers and declared laws."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms._base import DataShape
from crowdpriv.mechanisms.rr import rr_channel, rr_perturb_codes
from crowdpriv.mechanisms.two_layer import (
    TwoLayer,
    TwoLayerSettings,
    two_layer_apply,
    two_layer_channel,
    two_layer_draws,
    two_layer_epsilon_grid,
    two_layer_exact_epsilon,
    two_layer_perturb,
    two_layer_perturb_codes,
)


def _mixture(epsilon, k, spread):
    """Closed forms of the quadratures over ε_i ∈ [lo, hi]: ∫ e^e/(k+e^e) de = ln(k+e^e) and
    ∫ 1/(k+e^e) de = (e − ln(k+e^e))/k; returns (keep, other) integrals."""
    lo, hi = epsilon * (1 - spread), epsilon * (1 + spread)
    keep = math.log((k + math.exp(hi)) / (k + math.exp(lo)))
    other = ((hi - lo) - keep) / k
    return keep, other, hi - lo


# --- settings -------------------------------------------------------------------------------


def test_default_spread_gives_budgets_uniform_on_zero_to_twice_epsilon():
    """s = 1: ε_i ~ U(0, 2ε), "uniformly with mean ε" (LDP-sparse Sec. VI-D)."""
    assert TwoLayer().defaults() == {"spread": 1.0}
    with pytest.raises(dataclasses.FrozenInstanceError):
        TwoLayerSettings().spread = 0.5


@pytest.mark.parametrize("spread", [-0.1, 1.2])
def test_spread_outside_zero_one_is_refused(spread):
    with pytest.raises(ParameterError, match=r"spread must lie in \[0.0, 1.0\]") as e:
        TwoLayerSettings(spread=spread)
    assert e.value.parameter == "spread" and e.value.value == spread
    with pytest.raises(ParameterError, match=r"spread must lie in \[0.0, 1.0\]"):
        two_layer_draws(np.zeros((2, 2), np.int8), rng=np.random.default_rng(0), spread=spread)


@pytest.mark.parametrize("spread", [0.0, 0.5, 1.0])
def test_spread_in_zero_one_closed_is_accepted(spread):
    assert TwoLayerSettings(spread=spread).spread == spread
    mult, _ = two_layer_draws(np.zeros((2, 2), np.int8), rng=np.random.default_rng(0),
                              spread=spread)
    assert mult.shape == (2,)


# --- draws and apply ------------------------------------------------------------------------


def test_draws_one_multiplier_per_worker_uniform_on_one_minus_s_to_one_plus_s():
    """A multiplier per worker, U(1 − s, 1 + s), then one uniform per cell."""
    codes = np.zeros((3, 4), np.int8)
    mult, u = two_layer_draws(codes, rng=np.random.default_rng(4), spread=0.5)
    ref = np.random.default_rng(4)
    assert_array_equal(mult, ref.uniform(0.5, 1.5, size=3))
    assert_array_equal(u, ref.random((3, 4)))
    # the default spread is 1: U(0, 2)
    mult, _ = two_layer_draws(codes, rng=np.random.default_rng(4))
    assert_array_equal(mult, np.random.default_rng(4).uniform(0.0, 2.0, size=3))


def test_draws_fill_the_given_arrays():
    codes = np.zeros((3, 4), np.int8)
    out = (np.full(3, -1.0), np.full((3, 4), -1.0, np.float32))
    mult, u = two_layer_draws(codes, rng=np.random.default_rng(4), spread=0.5,
                              dtype=np.float32, out=out)
    assert mult is out[0] and u is out[1]
    ref = np.random.default_rng(4)
    assert_array_equal(out[0], ref.uniform(0.5, 1.5, size=3))
    assert_array_equal(out[1], ref.random((3, 4), dtype=np.float32))


@pytest.mark.parametrize("shape", [(), (4,)])
def test_draws_refuse_answers_without_workers_and_tasks(shape):
    with pytest.raises(ValueError, match="answers must have at least 2 dimensions"):
        two_layer_draws(np.zeros(shape, np.int8), rng=np.random.default_rng(0))


def test_apply_runs_rr_at_each_workers_epsilon_i_by_hand():
    """ε_i = ε · multiplier: worker 0 at ε_i = 2 keeps with p = e²/(2 + e²) ≈ 0.787, worker 1
    at ε_i = 0.5 with p = e^0.5/(2 + e^0.5) ≈ 0.452 (Eq. 8, |Γ| = 2, code 2 = NULL); a cell with
    u ≥ p moves by s = 1 + ⌊(u − p)/(1 − p)·2⌋ modulo 3."""
    codes = np.array([[0, 1], [1, 2]], np.int8)
    u = np.array([[0.6, 0.9], [0.6, 0.1]])
    # worker 0: 0.6 < 0.787 keeps 0; (0.9 − 0.787)/0.213·2 = 1.06: s = 2, (1 + 2) mod 3 = 0
    # worker 1: (0.6 − 0.452)/0.548·2 = 0.54: s = 1, (1 + 1) mod 3 = 2; 0.1 keeps NULL
    out = two_layer_apply(codes, (np.array([2.0, 0.5]), u), 1.0, domain_size=2)
    assert out.dtype == np.int8
    assert_array_equal(out, [[0, 0], [2, 2]])
    with pytest.raises(ParameterError, match="epsilon must be a finite number > 0"):
        two_layer_apply(codes, (np.array([2.0, 0.5]), u), 0.0, domain_size=2)


def test_perturb_defaults_to_spread_one_and_checks_the_answers():
    answers = np.array([[0.0, np.nan, 1.0], [2.0, 2.0, np.nan]])
    a = two_layer_perturb(answers, 1.0, rng=np.random.default_rng(8), domain_size=3)
    b = two_layer_perturb(answers, 1.0, rng=np.random.default_rng(8), domain_size=3, spread=1.0)
    assert a.dtype == np.float32
    assert_array_equal(a, b)
    codes = np.array([[0, 3, 1], [2, 2, 3]], np.int8)
    c = two_layer_perturb_codes(codes, 1.0, rng=np.random.default_rng(8), domain_size=3)
    d = two_layer_apply(codes, two_layer_draws(codes, rng=np.random.default_rng(8), spread=1.0),
                        1.0, domain_size=3)
    assert_array_equal(c, d)
    assert_array_equal(np.isnan(a), c == 3)
    with pytest.raises(ValueError, match=r"integers in \[0, 2\] \(domain_size=3\); found"):
        two_layer_perturb(np.array([[0.0, 5.0]]), 1.0, rng=np.random.default_rng(0),
                          domain_size=3)


# --- the mixture over ε_i ---------------------------------------------------------------------


@pytest.mark.parametrize("epsilon,k,spread", [(1.0, 3, 1.0), (2.0, 5, 0.5), (1.0, 2, 0.25)])
def test_exact_epsilon_is_the_log_ratio_of_the_mixed_keep_and_other(epsilon, k, spread):
    keep, other, _ = _mixture(epsilon, k, spread)
    assert two_layer_exact_epsilon(epsilon, k, spread) == pytest.approx(
        math.log(keep / other), rel=1e-10)


def test_exact_epsilon_defaults_and_the_degenerate_spread():
    keep, other, _ = _mixture(1.5, 4, 1.0)
    assert two_layer_exact_epsilon(1.5, 4) == pytest.approx(math.log(keep / other), rel=1e-10)
    # s = 0: every worker at ε, plain RR
    assert two_layer_exact_epsilon(1.5, 4, 0.0) == 1.5
    # the mixture is below the worst worker's ε(1 + s) and above nothing
    assert 0 < two_layer_exact_epsilon(1.5, 4) < 3.0


@pytest.mark.parametrize("epsilon,k,spread", [(1.0, 3, 1.0), (2.0, 5, 0.5), (1.0, 2, 0.25)])
def test_channel_is_eq8_averaged_over_epsilon_i(epsilon, k, spread):
    keep, other, width = _mixture(epsilon, k, spread)
    ch = two_layer_channel(epsilon, k, spread)
    assert ch.shape == (k + 1, k + 1)
    want = np.full((k + 1, k + 1), other / width)
    np.fill_diagonal(want, keep / width)
    assert_allclose(ch, want, rtol=1e-10)
    assert_allclose(ch.sum(axis=0), 1.0, rtol=1e-12)


def test_channel_defaults_and_the_degenerate_spread():
    keep, other, width = _mixture(1.0, 3, 1.0)
    assert two_layer_channel(1.0, 3)[0, 0] == pytest.approx(keep / width, rel=1e-10)
    assert_array_equal(two_layer_channel(1.0, 3, 0.0), rr_channel(1.0, 3))


def test_epsilon_grid_is_the_midpoints_of_equal_cells():
    assert_allclose(two_layer_epsilon_grid(2.0, 0.5, 4), [1.25, 1.75, 2.25, 2.75], rtol=1e-15)
    # defaults: s = 1, 16 points (docs/inference.md: "a 16-point midpoint grid") on [0, 2ε]
    assert_allclose(two_layer_epsilon_grid(1.0), (np.arange(16) + 0.5) / 8, rtol=1e-15)


# --- the member --------------------------------------------------------------------------------


def test_member_flags():
    """Not float-safe (float uniforms against a rounded keep probability, like RR); its outputs
    are label codes (int8, NULL = |Γ|), so releases_labels."""
    m = TwoLayer()
    assert m.float_safe is False and m.releases_labels is True
    s = m.settings()
    out = m.perturb(np.zeros((4, 3), np.int8), 1.0, s, rng=np.random.default_rng(0),
                    domain_size=3)
    assert out.values.dtype == np.int8 and out.null_code == 3


def test_draw_spec_and_stacked_draws():
    """A float64 multiplier per worker and a uniform per cell; draws_stacked fills arrays of
    that spec with each repetition's own draws."""
    m = TwoLayer()
    s = m.settings(spread=0.5)
    assert m.draw_spec((3, 4), s, np.float32) == (((3,), np.float64), ((3, 4), np.float32))
    codes = np.zeros((2, 3, 4), np.int8)
    mult, u = m.draws_stacked(codes, s, rngs=[np.random.default_rng(i) for i in (1, 2)],
                              domain_size=3)
    for b, seed in enumerate((1, 2)):
        ref = np.random.default_rng(seed)
        assert_array_equal(mult[b], ref.uniform(0.5, 1.5, size=3))
        assert_array_equal(u[b], ref.random((3, 4), dtype=np.float32))


def test_worst_epsilon_and_guarantee():
    """The worst worker's ε(1 + s), per cell and composed over his row; pure ε."""
    m = TwoLayer()
    s = m.settings(spread=0.5)
    assert m.worst_epsilon(s, 2.0) == 3.0
    g = m.guarantee(s, DataShape(5, 7, 4), 2.0, domain_size=3)
    assert g.record_epsilon == 3.0 and g.ideal_record_epsilon == 3.0
    assert g.worker_epsilon == 21.0
    assert g.record_delta == 0.0 and g.worker_delta == 0.0 and g.float_safe is False
    c = m.claimed(s, 2.0)
    assert (c.epsilon, c.delta) == (2.0, 0.0)


def test_channel_is_rr_on_the_16_point_grid():
    """Mechanism-aware inference's channel: RR at each node of the 16-point midpoint grid
    (docs/inference.md), equal weights, NULL observed."""
    m = TwoLayer()
    s = m.settings(spread=0.5)
    ch = m.channel(s, 2.0, domain_size=3)
    nodes = 1.0 + (np.arange(16) + 0.5) * 2.0 / 16
    assert TwoLayer.channel_grid == 16 and ch.matrices.shape == (16, 4, 4)
    for g, e in enumerate(nodes):
        assert_allclose(ch.matrices[g], rr_channel(e, 3), rtol=1e-12)
    assert_array_equal(ch.weights, np.full(16, 1 / 16))
    assert ch.observes_null is True
    assert ch.description == ("RR over Γ ∪ {NULL} at a hidden ε_i ~ U(1.0625..2.9375 grid of 16),"
                              " mean ε 2")


def test_audit_cases_samplers():
    """Cells 0 vs 1 and NULL vs 0 through the mechanism, and the worst worker's RR at
    ε(1 + s); NULL reads −1; pure ε (δ = 0), discrete outputs."""
    m = TwoLayer()
    s = m.settings(spread=0.5)
    k, n = 3, 400
    cases = m.audit_cases(s, 0.5, domain_size=k)
    assert [c.claimed_delta for c in cases] == [0.0] * 3
    assert all(c.discrete for c in cases)
    assert cases[2].exact_epsilon == 0.75

    def through_member(code, seed):
        out = m.perturb(np.full((n, 1), code, np.int8), 0.5, s, rng=np.random.default_rng(seed),
                        domain_size=k)
        v = np.asarray(out.values).ravel().astype(np.float64)
        return np.where(v == k, -1.0, v)

    for case, (d, d2) in [(cases[0], (0, 1)), (cases[1], (k, 0))]:
        assert_array_equal(case.sample(np.random.default_rng(3), n, "D"), through_member(d, 3))
        assert_array_equal(case.sample(np.random.default_rng(3), n, "D'"), through_member(d2, 3))
    for which, code in [("D", 0), ("D'", 1)]:
        got = cases[2].sample(np.random.default_rng(6), n, which)
        ref = rr_perturb_codes(np.full((n, 1), code, np.int8), 0.75,
                               rng=np.random.default_rng(6), domain_size=k)
        assert_array_equal(got, np.where(ref.ravel() == k, -1.0, ref.ravel()))
        assert (got == -1.0).any() and not (got == k).any()


def test_declared_laws():
    """The multipliers' U(1 − s, 1 + s) law (only when s > 0) first, then the output of an
    answered cell 0 over Γ ∪ {NULL} with the mixed channel's column 0."""
    m = TwoLayer()
    k = 3
    mult, cell = m.law(m.settings(spread=0.5), 1.0, domain_size=k)
    assert "budget multiplier" in mult.name
    assert_allclose(mult.cdf(np.array([0.5, 0.75, 1.0, 1.5])), [0.0, 0.25, 0.5, 1.0],
                    atol=1e-15)
    assert_array_equal(mult.sample(np.random.default_rng(2), 5),
                       np.random.default_rng(2).uniform(0.5, 1.5, size=5))
    assert_array_equal(cell.support, np.arange(k + 1))
    keep, other, width = _mixture(1.0, k, 0.5)
    assert_allclose(cell.probabilities, [keep / width] + [other / width] * k, rtol=1e-10)
    got = cell.sample(np.random.default_rng(2), 7)
    ref = m.perturb(np.zeros((7, 1), np.int8), 1.0, m.settings(spread=0.5),
                    rng=np.random.default_rng(2), domain_size=k)
    assert got.shape == (7,)
    assert_array_equal(got, np.asarray(ref.values).ravel())
    assert len(m.law(m.settings(spread=1.0), 1.0, domain_size=k)) == 2
    (only,) = m.law(m.settings(spread=0.0), 1.0, domain_size=k)
    assert only.support is not None
