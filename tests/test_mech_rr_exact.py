"""Exact tests of RR and 2-Layer with integer thresholds (crowdpriv.mechanisms.rr_exact):
q = ⌈N/(e^ε + |Γ|)⌉ and N_keep = N − |Γ| q at hand-computed points (N = 2^62), ε* = ln(N_keep/q)
rounded up to a double, the integer sampler, and what both members declare (channel, claim,
guarantee, ledger, audit cases, law)."""

from __future__ import annotations

import decimal
import math

import numpy as np
import pytest

from crowdpriv import mechanisms
from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import DataShape
from crowdpriv.mechanisms import rr_exact as X
from crowdpriv.mechanisms.rr import rr_channel
from crowdpriv.mechanisms.two_layer import two_layer_channel, two_layer_epsilon_grid
from crowdpriv.seeds import derive_rng

N = 2**62
SHAPE = DataShape(workers=3, tasks=7, max_records_per_worker=5)
#: e^64 > 2^62 by far: q = 1 and a symbol flips with probability |Γ|/2^62 only.
Q_ONE = 64.0


def rng(*keys):
    return derive_rng(12345, "test_mech_rr_exact", *keys)


def ln_ratio(keep: int, q: int) -> decimal.Decimal:
    """ln(N_keep/q) at 80 significant digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        return (decimal.Decimal(keep) / decimal.Decimal(q)).ln()


# ---------------------------------------------------------------- thresholds and ε*


def test_thresholds_at_hand_computed_points():
    # ε → 0 with |Γ| = 3: N/(e^ε + 3) is just below N/4 = 2^60, so q = N_keep = 2^60
    q, keep = X.rr_thresholds(1e-20, 3)
    assert (int(q), int(keep)) == (2**60, 2**60)
    # a zero budget (2-Layer), in integers: q = ⌈2^62/3⌉ = (2^62 + 2)/3 as 2^62 ≡ 1 (mod 3)
    q, keep = X.rr_thresholds(np.array([0.0, 0.0]), 2)
    assert q.tolist() == [(N + 2) // 3] * 2 and keep.tolist() == [(N - 4) // 3] * 2
    # ε = 40, |Γ| = 2: N/(e^40 + 2) = 19.59..., far from an integer: q = 20
    value = N / (math.exp(40.0) + 2)
    assert 19.5 < value < 19.7
    assert [int(v) for v in X.rr_thresholds(40.0, 2)] == [20, N - 40]
    # e^ε > N: q = 1, N_keep = N − |Γ|, from ε = 43 (N/(e^43 + 3) < 1) through and past 64
    for eps in (43.0, Q_ONE, 100.0, 1e300):
        assert [int(v) for v in X.rr_thresholds(eps, 3)] == [1, N - 3]


def test_thresholds_keep_the_shape_of_per_worker_budgets():
    eps = np.array([[0.5], [1.0], [0.5]])
    q, keep = X.rr_thresholds(eps, 5)
    assert q.shape == keep.shape == (3, 1) and q.dtype == keep.dtype == np.int64
    assert q[0, 0] == q[2, 0] == X.rr_thresholds(0.5, 5)[0]
    assert q[1, 0] == X.rr_thresholds(1.0, 5)[0]
    np.testing.assert_array_equal(keep, N - 5 * q)


def test_thresholds_domain_is_at_least_two():
    assert int(X.rr_thresholds(40.0, 2)[0]) == 20
    with pytest.raises(ParameterError, match=r"domain_size must be an integer >= 2, got 1"):
        X.rr_thresholds(1.0, 1)


@pytest.mark.parametrize("eps, k", [(38.0, 2), (40.0, 2), (43.0, 2), (0.5, 5), (35.0, 2)])
def test_exact_epsilon_is_the_smallest_double_at_least_ln_nkeep_over_q(eps, k):
    # (38, 2) and (35, 2): the nearest double is below ln(N_keep/q); (40, 2), (43, 2): above
    q, keep = (int(v) for v in X.rr_thresholds(eps, k))
    exact = ln_ratio(keep, q)
    got = X.rr_exact_epsilon(eps, k)
    assert decimal.Decimal(got) >= exact > decimal.Decimal(math.nextafter(got, -math.inf))
    assert got <= eps


def test_exact_epsilon_is_zero_when_n_keep_equals_q():
    # ε = 10^−20, |Γ| = 3: q = N_keep = 2^60, ε* = ln 1 = 0 exactly (not the next double)
    assert X.rr_exact_epsilon(1e-20, 3) == 0.0


def test_exact_channel_is_n_keep_and_q_over_n():
    np.testing.assert_array_equal(X.rr_exact_channel(1e-20, 3), np.full((4, 4), 0.25))
    expected = np.full((3, 3), 20 / N)
    np.fill_diagonal(expected, (N - 40) / N)
    np.testing.assert_array_equal(X.rr_exact_channel(40.0, 2), expected)


# ---------------------------------------------------------------- the integer sampler


def test_exact_draws_are_integers_uniform_on_0_to_2_to_the_62():
    codes = np.zeros((2, 3), dtype=np.int8)
    want = rng("d").integers(0, 2**62, size=(2, 3), dtype=np.int64)
    np.testing.assert_array_equal(X.rr_exact_draws(codes, rng=rng("d")), want)
    out = np.full((2, 3), -1, dtype=np.int64)
    assert X.rr_exact_draws(codes, rng=rng("d"), out=out) is out
    np.testing.assert_array_equal(out, want)


def test_exact_apply_rejects_draws_of_another_shape():
    with pytest.raises(ValueError, match=r"draws must have the shape of the codes \(2, 3\), "
                                         r"got \(3, 2\)"):
        X.rr_exact_apply(np.zeros((2, 3), dtype=np.int8), np.zeros((3, 2), dtype=np.int64),
                         1.0, domain_size=2)


def test_exact_apply_hand_computed_symbols():
    # ε = 40, |Γ| = 2: q = 20, N_keep = N − 40; U < N_keep keeps, then runs of 20 per shift
    keep = N - 40
    u = np.array([[0, keep - 1, keep, keep + 19, keep + 20, N - 1]] * 3, dtype=np.int64)
    codes = np.array([[0] * 6, [1] * 6, [2] * 6], dtype=np.int8)
    out = X.rr_exact_apply(codes, u, 40.0, domain_size=2)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [[0, 0, 1, 1, 2, 2], [1, 1, 2, 2, 0, 0],
                                        [2, 2, 0, 0, 1, 1]])


def test_exact_apply_per_worker_budgets():
    codes = np.array([[0, 1, 2], [0, 1, 2]], dtype=np.int8)
    u = np.full((2, 3), N - 30, dtype=np.int64)  # shift 1 at ε = 40 (q = 20), kept at ε = 64
    out = X.rr_exact_apply(codes, u, np.array([[40.0], [Q_ONE]]), domain_size=2)
    np.testing.assert_array_equal(out, [[1, 2, 0], [0, 1, 2]])


def _reference_apply(codes, u, budgets, k):
    """rr_exact_apply written out with each worker's own exact thresholds."""
    q, keep = X.rr_thresholds(budgets, k)
    shift = np.where(u < keep, 0, (u - keep) // q + 1)
    return ((codes.astype(np.int64) + shift) % (k + 1)).astype(np.int8)


@pytest.mark.parametrize("step", [64, 10**6])  # 10**6: anchors at the ends only
@pytest.mark.parametrize("k", [2, 5])
def test_exact_apply_many_budgets_bracketed_is_each_budgets_own_q(monkeypatch, step, k):
    # more distinct budgets than BRACKET_VALUES: q bracketed between anchors; draws on each
    # worker's own thresholds (where the bracket cannot decide) and uniform draws
    monkeypatch.setattr(X, "BRACKET_STEP", step)
    n = 3 * X.BRACKET_VALUES
    budgets = rng("bracket", k).uniform(0.0, 2.0, size=(n, 1))
    budgets[:3, 0] = [0.0, 2.0, 0.0]
    q, keep = X.rr_thresholds(budgets, k)
    u = np.concatenate([keep - 1, keep, keep + q - 1, keep + q, keep + k * q - 1 - q,
                        np.zeros_like(q),
                        rng("bracket draws", k).integers(0, N, size=(n, 4), dtype=np.int64)],
                       axis=1)
    codes = rng("bracket codes", k).integers(0, k + 1, size=u.shape).astype(np.int8)
    out = X.rr_exact_apply(codes, u, budgets, domain_size=k)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, _reference_apply(codes, u, budgets, k))
    assert (out != codes).any() and (out == codes).any()


# ---------------------------------------------------------------- 2-Layer's draws and budgets


def test_two_layer_budget_cap_is_eps_times_one_plus_s():
    tl = mechanisms.get("two-layer-exact")
    assert X.two_layer_budget_cap(tl.settings(spread=0.5), 2.0) == 3.0
    assert X.two_layer_budget_cap(tl.settings(spread=0.0), 2.0) == 2.0
    assert X.two_layer_budget_cap(tl.settings(), 2.0) == 4.0


def test_two_layer_exact_draws_multiplier_then_integers():
    codes = np.zeros((3, 4), dtype=np.int8)
    # the default spread s = 1 (TwoLayerSettings: ε_i ~ U(0, 2ε)): multiplier ~ U(0, 2)
    for kw, (lo, hi) in (({}, (0.0, 2.0)), ({"spread": 0.25}, (0.75, 1.25))):
        r = rng("tl")
        want_m = r.uniform(lo, hi, size=3)
        want_u = r.integers(0, N, size=(3, 4), dtype=np.int64)
        mult, u = X.two_layer_exact_draws(codes, rng=rng("tl"), **kw)
        np.testing.assert_array_equal(mult, want_m)
        np.testing.assert_array_equal(u, want_u)
    bufs = (np.zeros(3), np.zeros((3, 4), dtype=np.int64))
    mult, u = X.two_layer_exact_draws(codes, rng=rng("tl"), spread=0.25, out=bufs)
    assert mult is bufs[0] and u is bufs[1]
    np.testing.assert_array_equal(bufs[0], want_m)
    np.testing.assert_array_equal(bufs[1], want_u)


def test_two_layer_exact_draws_need_workers_by_tasks():
    with pytest.raises(ValueError, match=r"at least 2 dimensions \(workers x tasks\), got 1"):
        X.two_layer_exact_draws(np.zeros(4, dtype=np.int8), rng=rng("1d"))


def test_two_layer_exact_apply_runs_each_worker_at_eps_times_multiplier_capped():
    tl = mechanisms.get("two-layer-exact")
    s = tl.settings()  # cap 2ε
    codes = np.array([[0, 1, 2]] * 3, dtype=np.int8)
    u = np.full((3, 3), N - 30, dtype=np.int64)
    # ε = 40: multipliers 1, 1.6 and 3 (above 1 + s) give ε_i = 40, 64 and the cap 80
    out = X.two_layer_exact_apply(codes, (np.array([1.0, 1.6, 3.0]), u), 40.0, s,
                                  domain_size=2)
    np.testing.assert_array_equal(out, [[1, 2, 0], [0, 1, 2], [0, 1, 2]])
    # ε = 80 with multiplier 0.5: ε_i = 40 (ε / 0.5 would be the cap, 160)
    out = X.two_layer_exact_apply(codes[:1], (np.array([0.5]), u[:1]), 80.0, s, domain_size=2)
    np.testing.assert_array_equal(out, [[1, 2, 0]])


# ---------------------------------------------------------------- RRExact's declarations


def test_rr_exact_member_declarations():
    rr, k, eps = mechanisms.get("rr-exact"), 5, 1.3
    s = rr.settings()
    assert rr.float_safe is True
    ch = rr.channel(s, eps, domain_size=k)
    np.testing.assert_array_equal(ch.matrices, X.rr_exact_channel(eps, k)[None])
    np.testing.assert_array_equal(ch.weights, [1.0])
    assert ch.observes_null is True
    claim = rr.claimed(s, eps, domain_size=k)
    assert (claim.epsilon, claim.delta) == (eps, 0.0) and "integer thresholds" in claim.source
    record = X.rr_exact_epsilon(eps, k)
    g = rr.guarantee(s, SHAPE, eps, domain_size=k)
    assert (g.record_epsilon, g.record_delta, g.ideal_record_epsilon) == (record, 0.0, eps)
    assert (g.worker_epsilon, g.worker_delta) == (7 * record, 0.0)
    assert g.float_safe is True and f"{record:.17g}" in g.basis
    q, keep = (int(v) for v in X.rr_thresholds(eps, k))
    assert rr.ledger_extra(s, eps, domain_size=k) == {
        "parameters": {"threshold_total": N, "threshold_q": q, "threshold_keep": keep},
        "spent": {"exact_epsilon_per_cell": record}}
    codes = np.zeros((2, 3), dtype=np.int8)
    buf = np.full((2, 3), -1, dtype=np.int64)
    assert rr.draws(codes, s, rng=rng("m"), domain_size=k, out=(buf,)) is buf
    np.testing.assert_array_equal(buf, rng("m").integers(0, N, size=(2, 3), dtype=np.int64))


def test_rr_exact_audit_cases():
    rr, k = mechanisms.get("rr-exact"), 3
    one, null = rr.audit_cases(rr.settings(), Q_ONE, domain_size=k)
    exact = X.rr_exact_epsilon(Q_ONE, k)
    for case in (one, null):
        assert (case.claimed_epsilon, case.claimed_delta) == (Q_ONE, 0.0)
        assert case.exact_epsilon == exact and case.discrete and case.float_safe
        assert case.family == rr.CLAIM
    # q = 1: a symbol flips with probability 3/2^62, so the statistics are the inputs
    np.testing.assert_array_equal(one.sample(rng("a"), 3, "D"), [0, 0, 0])
    np.testing.assert_array_equal(one.sample(rng("a"), 3, "D'"), [1, 1, 1])
    np.testing.assert_array_equal(null.sample(rng("a"), 3, "D"), [-1, -1, -1])
    np.testing.assert_array_equal(null.sample(rng("a"), 3, "D'"), [0, 0, 0])


def test_rr_exact_law_checks_inputs_0_1_and_null_against_eq_8():
    rr, k = mechanisms.get("rr-exact"), 3
    checks = rr.law(rr.settings(), 0.7, domain_size=k)
    assert [c.name for c in checks] == [f"input {c}: output distribution of Eq. 8"
                                        for c in ("0", "1", "NULL")]
    for check, row in zip(checks, (0, 1, k)):
        np.testing.assert_array_equal(check.support, np.arange(k + 1))
        np.testing.assert_array_equal(check.probabilities, rr_channel(0.7, k)[row])
    kept = rr.law(rr.settings(), Q_ONE, domain_size=k)
    for check, row in zip(kept, (0, 1, k)):
        np.testing.assert_array_equal(check.sample(rng("law"), 4), [row] * 4)


# ---------------------------------------------------------------- TwoLayerExact's declarations


def test_two_layer_exact_member_declarations():
    tl, k, eps = mechanisms.get("two-layer-exact"), 4, 1.5
    s = tl.settings(spread=0.5)
    cap = 2.25
    assert tl.float_safe is True
    ch = tl.channel(s, eps, domain_size=k)
    nodes = np.minimum(two_layer_epsilon_grid(eps, 0.5, 16), cap)
    np.testing.assert_array_equal(ch.matrices,
                                  np.stack([X.rr_exact_channel(e, k) for e in nodes]))
    np.testing.assert_array_equal(ch.weights, np.full(16, 1 / 16))
    assert ch.observes_null is True
    worst = X.rr_exact_epsilon(cap, k)
    assert tl.exact_epsilon(s, eps, k) == worst
    assert tl.ledger_extra(s, eps, domain_size=k) == {
        "parameters": {"threshold_total": N, "largest_budget": cap},
        "spent": {"exact_epsilon_per_cell_worst_worker": worst}}
    claim = tl.claimed(s, eps, domain_size=k)
    assert (claim.epsilon, claim.delta) == (eps, 0.0)
    g = tl.guarantee(s, SHAPE, eps, domain_size=k)
    assert (g.record_epsilon, g.record_delta, g.ideal_record_epsilon) == (worst, 0.0, cap)
    assert (g.worker_epsilon, g.worker_delta) == (7 * worst, 0.0) and g.float_safe is True
    text = tl.ledger_text(s, eps, domain_size=k)
    assert text["sampler"].startswith("integer thresholds: U uniform on [0, 2^62)")
    assert text["sampler"].endswith("), per worker at ε_i")
    # draws allocated ahead for stacked repetitions: (B, m) multipliers, (B, m, n) integers
    assert tl.draw_spec((3, 4), s, np.float32) == (((3,), np.float64), ((3, 4), np.int64))
    codes = np.zeros((2, 3, 4), dtype=np.int8)
    mult, u = tl.draws_stacked(codes, s, rngs=[rng("st", b) for b in range(2)], domain_size=k)
    for b in range(2):
        want_m, want_u = X.two_layer_exact_draws(codes[b], rng=rng("st", b), spread=0.5)
        np.testing.assert_array_equal(mult[b], want_m)
        np.testing.assert_array_equal(u[b], want_u)


def test_two_layer_exact_audit_cases():
    from crowdpriv.mechanisms.two_layer import two_layer_exact_epsilon

    tl, k, eps = mechanisms.get("two-layer-exact"), 2, 40.0
    s = tl.settings()  # cap 80: q = 1 at the largest ε_i
    plotted, largest = tl.audit_cases(s, eps, domain_size=k)
    assert plotted.exact_epsilon == two_layer_exact_epsilon(eps, k, 1.0)
    assert largest.exact_epsilon == X.rr_exact_epsilon(80.0, k)
    for case in (plotted, largest):
        assert (case.claimed_epsilon, case.claimed_delta) == (eps, 0.0)
        assert case.discrete and case.float_safe and case.family == tl.CLAIM
    # the worker with the largest ε_i = 80 keeps his symbol (q = 1)
    np.testing.assert_array_equal(largest.sample(rng("l"), 3, "D"), [0, 0, 0])
    np.testing.assert_array_equal(largest.sample(rng("l"), 3, "D'"), [1, 1, 1])
    # the plotted case compares input 0 (D) with input 1 (D'): without spread every ε_i = 64
    # (q = 1), so the outputs are the inputs
    plotted0, _ = tl.audit_cases(tl.settings(spread=0.0), Q_ONE, domain_size=k)
    np.testing.assert_array_equal(plotted0.sample(rng("p"), 3, "D"), [0, 0, 0])
    np.testing.assert_array_equal(plotted0.sample(rng("p"), 3, "D'"), [1, 1, 1])
    # at a small ε NULL comes out too, as −1 (as discrete_column), never as the code |Γ|
    _, small = tl.audit_cases(s, 0.01, domain_size=k)
    values = small.sample(rng("n"), 200, "D")
    assert values.shape == (200,) and set(np.unique(values)) == {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("spread", [0.0, 0.5])
def test_two_layer_exact_law(spread):
    from scipy import stats

    tl, k, eps = mechanisms.get("two-layer-exact"), 3, 0.8
    s = tl.settings(spread=spread)
    checks = tl.law(s, eps, domain_size=k)
    cell = checks[-1]
    assert cell.name == "answered cell 0: output marginalised over ε_i (Eq. 8)"
    np.testing.assert_array_equal(cell.support, np.arange(k + 1))
    np.testing.assert_array_equal(cell.probabilities, two_layer_channel(eps, k, spread)[0])
    assert cell.sample(rng("c"), 5).shape == (5,)
    if spread == 0.0:  # no spread: no budget law to check
        assert len(checks) == 1
        return
    mult = checks[0]
    assert len(checks) == 2 and mult.name.startswith("budget multiplier")
    np.testing.assert_allclose(mult.cdf(np.array([0.5, 0.75, 1.0, 1.5])),
                               stats.uniform(loc=0.5, scale=1.0).cdf([0.5, 0.75, 1.0, 1.5]))
    np.testing.assert_allclose(mult.cdf(np.array([0.5, 1.0, 1.5])), [0.0, 0.5, 1.0])
    values = mult.sample(rng("m"), 50)
    assert values.shape == (50,) and (values >= 0.5).all() and (values < 1.5).all()
