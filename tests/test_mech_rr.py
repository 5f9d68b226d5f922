"""Exact tests of RR over Γ ∪ {NULL} (crowdpriv.mechanisms.rr, LDP-sparse Sec. IV-B, Eq. 8):
hand-computed keep probabilities, channels and output symbols, the sampler against a
reference written from the docstring's formula, and what the member declares (channel, claim,
guarantee, audit cases, law)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from crowdpriv import mechanisms
from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms import rr as rrm
from crowdpriv.seeds import derive_rng

LN2, LN3, LN4 = math.log(2.0), math.log(3.0), math.log(4.0)
#: An ε at which e^ε/(|Γ|+e^ε) rounds to 1.0 in float64 (|Γ| e^−ε < 2^−53): RR keeps every
#: symbol, so the samplers' outputs are deterministic.
KEEP_ALL = 50.0


def rng(*keys):
    return derive_rng(12345, "test_mech_rr", *keys)


def eq8_symbols(codes, uniforms, epsilon, k):
    """Reference for rr_apply, cell by cell from its docstring: keep x iff u < p =
    e^ε/(|Γ|+e^ε), else s = 1 + ⌊(u − p)/(1 − p)·|Γ|⌋ and output (x + s) mod (|Γ| + 1)."""
    c = np.asarray(codes, dtype=np.int64)
    u = np.asarray(uniforms, dtype=np.float64)
    eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), c.shape)
    out = np.empty(c.shape, dtype=np.int64)
    for idx in np.ndindex(c.shape):
        e = math.exp(float(eps[idx]))
        p = e / (k + e)
        x, ui = int(c[idx]), float(u[idx])
        out[idx] = x if ui < p else (x + 1 + math.floor((ui - p) / (1.0 - p) * k)) % (k + 1)
    return out


# ---------------------------------------------------------------- Eq. 8 in closed form


def test_keep_probability_is_eq_8_at_hand_computed_points():
    # e^ε/(|Γ|+e^ε): ε = ln 2, |Γ| = 2 -> 2/4; ε = ln 6, |Γ| = 2 -> 6/8; ε = ln 3, |Γ| = 6 -> 3/9
    np.testing.assert_allclose(rrm.rr_keep_probability(LN2, 2), 0.5, rtol=1e-15)
    np.testing.assert_allclose(rrm.rr_keep_probability(math.log(6.0), 2), 0.75, rtol=1e-15)
    np.testing.assert_allclose(rrm.rr_keep_probability(LN3, 6), 1.0 / 3.0, rtol=1e-15)
    # per-worker budgets (2-Layer): elementwise
    np.testing.assert_allclose(rrm.rr_keep_probability(np.array([LN2, LN4]), 4),
                               [2.0 / 6.0, 4.0 / 8.0], rtol=1e-15)


def test_keep_probability_domain_is_at_least_two():
    assert rrm.rr_keep_probability(LN2, 2) == pytest.approx(0.5)  # |Γ| = 2 is allowed
    with pytest.raises(ParameterError, match=r"domain_size must be an integer >= 2, got 1"):
        rrm.rr_keep_probability(1.0, 1)


def test_channel_is_eq_8_at_hand_computed_points():
    # ε = ln 2, |Γ| = 2: keep 2/4, each other symbol 1/4 (3 symbols: 0, 1, NULL)
    np.testing.assert_allclose(rrm.rr_channel(LN2, 2),
                               [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]],
                               rtol=1e-15)
    # ε = ln 3, |Γ| = 3: keep 3/6, others 1/6 (4 symbols)
    expected = np.full((4, 4), 1.0 / 6.0)
    np.fill_diagonal(expected, 0.5)
    np.testing.assert_allclose(rrm.rr_channel(LN3, 3), expected, rtol=1e-15)


def test_rounding_excess_is_the_documented_estimate():
    # keep 1/2, other 1/4 at ε = ln 2, |Γ| = 2; the step is 4 grid steps of the uniform:
    # ln(1 + step/keep) − ln(1 − step/other)
    for bits, kw in ((53, {}), (53, {"uniform_bits": 53}), (24, {"uniform_bits": 24})):
        step = 4.0 * 2.0 ** -bits
        expected = math.log1p(step / 0.5) - math.log1p(-step / 0.25)
        assert rrm.rr_rounding_excess(LN2, 2, **kw) == pytest.approx(expected, rel=1e-12)
    # first order: 3 · step / (1/2) ... i.e. 2^−50 + 2^−49 for float64 uniforms
    assert rrm.rr_rounding_excess(LN2, 2) == pytest.approx(3 * 2.0 ** -50, rel=1e-12)


def test_rounding_excess_is_infinite_once_p_other_reaches_the_step():
    # keep rounds to 1: nothing but the input can come out
    assert rrm.rr_rounding_excess(40.0, 2) == math.inf
    # ε = 51 ln 2, |Γ| = 2: keep = 1/(1 + 2^−50) rounds to 1 − 2^−50, so P(other) = 2^−51 is
    # exactly the step 4·2^−53: ∞, computed without a division by zero (no warning)
    eps = 51 * LN2
    assert (1.0 - rrm.rr_keep_probability(eps, 2)) / 2 == 4.0 * 2.0 ** -53
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rrm.rr_rounding_excess(eps, 2) == math.inf


# ---------------------------------------------------------------- the sampler


def test_rr_perturb_checks_the_answers_by_default():
    with pytest.raises(ValueError, match=r"integers in \[0, 2\] \(domain_size=3\); found .*5\.0"):
        rrm.rr_perturb(np.array([[0.0, 5.0]]), 1.0, rng=rng("check"), domain_size=3)


def test_rr_draws_fill_the_array_given():
    codes = np.zeros((2, 3), dtype=np.int8)
    out = np.full((2, 3), -1.0, dtype=np.float32)
    got = rrm.rr_draws(codes, rng=rng("out"), dtype=np.float32, out=out)
    assert got is out
    np.testing.assert_array_equal(out, rng("out").random((2, 3), dtype=np.float32))


def test_rr_apply_rejects_uniforms_of_another_shape():
    with pytest.raises(ValueError, match=r"uniforms must have the shape of the codes "
                                         r"\(2, 3\), got \(3, 2\)"):
        rrm.rr_apply(np.zeros((2, 3), dtype=np.int8), np.zeros((3, 2)), 1.0, domain_size=2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rr_apply_hand_computed_symbols(dtype):
    # ε = ln 2, |Γ| = 2: p = 1/2, so u < 1/2 keeps; s = 1 + ⌊(u − 1/2)·4⌋ (1 for u in
    # [1/2, 3/4), 2 for u in [3/4, 1)); output (x + s) mod 3, NULL = 2
    codes = np.array([[0, 1, 2]] * 3, dtype=np.int8)
    u = np.array([[0.3] * 3, [0.6] * 3, [0.8] * 3], dtype=dtype)
    np.testing.assert_array_equal(rrm.rr_apply(codes, u, LN2, domain_size=2),
                                  [[0, 1, 2], [1, 2, 0], [2, 0, 1]])
    # ε = ln 4, |Γ| = 4: p = 1/2, s = 1 + ⌊(u − 1/2)·8⌋; NULL = 4 wraps to the labels
    codes = np.array([[0, 4, 4, 4, 4, 2]], dtype=np.int8)
    u = np.array([[0.1, 0.55, 0.7, 0.85, 0.99, 0.99]], dtype=dtype)
    out = rrm.rr_apply(codes, u, LN4, domain_size=4)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [[0, 0, 1, 2, 3, 1]])


def test_rr_apply_never_keeps_a_symbol_at_a_uniform_just_below_one():
    # float32, |Γ| = 4, ε = 0.01: (u − p)·scale rounds up to |Γ| at the largest u < 1; the
    # top clip makes it the largest shift |Γ| (output x − 1 mod 5), never a kept symbol
    codes = np.arange(5, dtype=np.int8)
    u = np.full(5, np.nextafter(np.float32(1), np.float32(0)))
    p = np.float32(rrm.rr_keep_probability(0.01, 4))
    scale = np.float32(4 / (1.0 - rrm.rr_keep_probability(0.01, 4)))
    assert np.floor((u[0] - p) * scale) == 4  # the case the clip guards
    np.testing.assert_array_equal(rrm.rr_apply(codes, u, 0.01, domain_size=4), [4, 0, 1, 2, 3])


def test_rr_apply_on_a_single_cell_and_on_no_cell():
    one = rrm.rr_apply(np.int8(1), np.float64(0.3), LN2, domain_size=2)
    assert one.shape == () and one.dtype == np.int8 and int(one) == 1
    assert int(rrm.rr_apply(np.int8(1), np.float64(0.6), LN2, domain_size=2)) == 2
    for shape in ((2, 0), (0, 3)):
        out = rrm.rr_apply(np.zeros(shape, dtype=np.int8), np.zeros(shape), LN2, domain_size=2)
        assert out.shape == shape and out.dtype == np.int8


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 5), (1, 5)])
def test_rr_apply_per_worker_and_per_cell_budgets_follow_eq_8(shape):
    k = 3
    r = rng("budgets", *shape)
    codes = r.integers(0, k + 1, size=shape).astype(np.int8)
    u = rrm.rr_draws(codes, rng=r)
    per_worker = r.uniform(0.0, 3.0, size=shape[-2:-1] + (1,))  # (m, 1), as 2-Layer
    per_cell = r.uniform(0.0, 3.0, size=shape[-2:])  # (m, n)
    for eps in (per_worker, per_cell, 1.3):
        np.testing.assert_array_equal(rrm.rr_apply(codes, u, eps, domain_size=k),
                                      eq8_symbols(codes, u, eps, k))


@pytest.mark.parametrize("shape", [(3, 30000), (2, 70000)])
def test_rr_apply_in_slices_follows_eq_8_on_every_row(shape, monkeypatch):
    # slices of 2¹⁶ cells (the arithmetic does not depend on the size; small arrays keep the
    # reference fast): (3, 30000) slices of 2 rows, the last one short; (2, 70000) rows longer
    # than a slice
    monkeypatch.setattr(rrm, "_RR_SLICE", 1 << 16)
    k = 2
    r = rng("slices", *shape)
    codes = r.integers(0, k + 1, size=shape).astype(np.int8)
    u = rrm.rr_draws(codes, rng=r)
    eps = np.array([[0.5], [1.0], [2.0]])[: shape[0]]
    for e in (eps, 1.0):
        np.testing.assert_array_equal(rrm.rr_apply(codes, u, e, domain_size=k),
                                      eq8_symbols(codes, u, e, k))


# ---------------------------------------------------------------- the member's declarations


def test_discrete_column_samples_d_and_its_neighbour():
    rr, k = mechanisms.get("rr"), 3
    s = rr.settings()
    answered = rrm.discrete_column(rr, s, KEEP_ALL, k, (0, 1))
    np.testing.assert_array_equal(answered(rng("dc"), 4, "D"), np.zeros(4))
    np.testing.assert_array_equal(answered(rng("dc"), 4, "D'"), np.ones(4))
    null = rrm.discrete_column(rr, s, KEEP_ALL, k, (k, 0))
    np.testing.assert_array_equal(null(rng("dc"), 4, "D"), np.full(4, -1.0))  # NULL as −1


def test_rr_member_channel_claim_and_guarantee():
    rr, k, eps = mechanisms.get("rr"), 3, 1.5
    s = rr.settings()
    assert rr.float_safe is False and rr.releases_labels is True
    ch = rr.channel(s, eps, domain_size=k)
    np.testing.assert_array_equal(ch.matrices, rrm.rr_channel(eps, k)[None])
    np.testing.assert_array_equal(ch.weights, [1.0])
    assert ch.observes_null is True and "ε = 1.5" in ch.description
    claim = rr.claimed(s, eps, domain_size=k)
    assert (claim.epsilon, claim.delta) == (1.5, 0.0) and "Eq. 8" in claim.source
    g = rr.guarantee(s, DataShape(workers=4, tasks=7, max_records_per_worker=5), eps,
                     domain_size=k)
    assert (g.record_epsilon, g.record_delta, g.ideal_record_epsilon) == (1.5, 0.0, 1.5)
    assert (g.worker_epsilon, g.worker_delta) == (7 * 1.5, 0.0)  # every cell of the row
    assert g.float_safe is False
    assert g.rounding_excess == rrm.rr_rounding_excess(eps, k) > 0


def test_rr_member_draws_into_the_array_given():
    rr = mechanisms.get("rr")
    codes = np.zeros((2, 3), dtype=np.int8)
    buf = np.full((2, 3), -1.0, dtype=np.float32)
    got = rr.draws(codes, rr.settings(), rng=rng("mo"), domain_size=2, dtype=np.float32,
                   out=(buf,))
    assert got is buf
    np.testing.assert_array_equal(buf, rng("mo").random((2, 3), dtype=np.float32))


@pytest.mark.parametrize("tasks, cells", [(None, 20), (7, 7), (5000, 2000)])
def test_rr_audit_cases(tasks, cells):
    rr, k, eps = mechanisms.get("rr"), 3, KEEP_ALL
    shape = None if tasks is None else DataShape(workers=2, tasks=tasks,
                                                 max_records_per_worker=tasks)
    one, null, row = rr.audit_cases(rr.settings(), eps, domain_size=k, shape=shape)
    for case in (one, null, row):
        assert (case.claimed_epsilon, case.claimed_delta) == (eps, 0.0)
    assert one.discrete and null.discrete and one.claimed and null.claimed
    assert (one.exact_epsilon, null.exact_epsilon) == (eps, eps)
    assert row.claimed is False and row.exact_epsilon == cells * eps
    assert f"{cells} cells × {eps:g} = {cells * eps:g}" in row.composition
    # ε so large that every symbol is kept: the statistics are the inputs
    np.testing.assert_array_equal(one.sample(rng("a"), 3, "D"), [0, 0, 0])
    np.testing.assert_array_equal(one.sample(rng("a"), 3, "D'"), [1, 1, 1])
    np.testing.assert_array_equal(null.sample(rng("a"), 3, "D"), [-1, -1, -1])
    np.testing.assert_array_equal(null.sample(rng("a"), 3, "D'"), [0, 0, 0])
    # (cells output 0) − (cells output 1): all 0 -> +cells, all 1 -> −cells
    np.testing.assert_array_equal(row.sample(rng("a"), 2, "D"), [cells, cells])
    np.testing.assert_array_equal(row.sample(rng("a"), 2, "D'"), [-cells, -cells])


def test_rr_law_checks_inputs_0_and_null_against_eq_8():
    rr, k = mechanisms.get("rr"), 3
    checks = rr.law(rr.settings(), LN2, domain_size=k)
    assert [c.name for c in checks] == ["input 0: output distribution of Eq. 8",
                                        "input NULL: output distribution of Eq. 8"]
    for check, row in zip(checks, (0, k)):
        np.testing.assert_array_equal(check.support, np.arange(k + 1))
        np.testing.assert_array_equal(check.probabilities, rrm.rr_channel(LN2, k)[row])
    kept = rr.law(rr.settings(), KEEP_ALL, domain_size=k)
    np.testing.assert_array_equal(kept[0].sample(rng("law"), 4), [0, 0, 0, 0])
    np.testing.assert_array_equal(kept[1].sample(rng("law"), 4), [k, k, k, k])
