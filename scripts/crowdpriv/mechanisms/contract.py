"""The contract every registered mechanism passes (in the manner of sklearn's
``check_estimator``): a new mechanism gets the whole battery by being registered.

:func:`check_mechanism` runs every check of the parts a member declares and raises
``AssertionError`` naming the member, the check and what was measured:

* identity and settings: an id, a label, defaults that validate, unknown settings refused;
* ``law``: each :class:`~crowdpriv.mechanisms.LawCheck` of the member, a goodness-of-fit test
  of the sampler that runs (Kolmogorov-Smirnov or a G-test) against the law the member
  declares independently of it;
* ``sweep``: common random numbers — the ε-free draws applied at two ε equal a fresh draw at
  each ε from the same generator state; stacked draws equal per-repetition draws;
* ``stream``: :func:`crowdpriv.streaming.perturb_in_blocks` equals the dense sampler run
  block by block from the same block streams;
* ``release``: the API's release equals the dense sampler from the same generator state (where
  the member has both);
* guarantee: a :class:`~crowdpriv.mechanisms.Guarantee` whose record ε is ∞ unless the
  sampler is floating-point safe, whose worker ε is at least the record ε, and which is
  finite for a float-safe sampler (∞ only where exact arithmetic gives ∞ as well: MF's NULL
  neighbours);
* ``audit``: every case samples both neighbours;
* ``channel``: the channel a member declares for inference (``channel``) is the law of the
  sampler that releases, column by column (a G-test per input symbol, each worker with his
  own hidden randomness for a mixture), and the declared noise variance (``noise_variance``)
  is the mean square of output − answer (a z-test).

The checks are deterministic (fixed seeds); the tests parametrise them over the registry.
"""

from __future__ import annotations

import math

import numpy as np

from ._base import DataShape, Guarantee, LawCheck

__all__ = ["check_mechanism", "check_law", "law_pvalue", "CONTRACT_CHECKS", "ALPHA"]

#: A law check fails below this p-value (fixed seeds: a deterministic test; the mutants that
#: matter are rejected at p far below it).
ALPHA = 1e-4
#: Samples per law check.
LAW_SAMPLES = 40_000


def law_pvalue(check: LawCheck, *, rng, n: int = LAW_SAMPLES) -> float:
    """p-value of the member's sampler against its declared law (KS or G-test)."""
    from scipy import stats

    x = np.asarray(check.sample(rng, n))
    if check.cdf is not None:
        return float(stats.kstest(x.astype(np.float64), check.cdf).pvalue)
    support = np.asarray(check.support)
    probs = np.asarray(check.probabilities, dtype=np.float64)
    outside = ~np.isin(x, support)
    if outside.any():
        return 0.0
    counts = np.array([(x == v).sum() for v in support], dtype=np.float64)
    expected = probs / probs.sum() * counts.sum()
    keep = expected > 0
    if (counts[~keep] > 0).any():
        return 0.0
    if keep.sum() == 1:  # a degenerate law: every draw where it must be
        return 1.0
    g = stats.power_divergence(counts[keep], expected[keep], lambda_="log-likelihood")
    return float(g.pvalue)


def check_law(mech, settings, epsilon, *, domain_size=None, seed: int = 12345) -> list[tuple]:
    """Every law check of ``mech`` at ``epsilon``: ``[(name, p-value)]``; raises when one
    falls below :data:`ALPHA`."""
    out = []
    for i, check in enumerate(mech.law(settings, epsilon, domain_size=domain_size)):
        p = law_pvalue(check, rng=np.random.default_rng([seed, i]))
        out.append((check.name, p))
        assert p >= ALPHA, (f"{mech.id}: the sampler does not follow its law at ε = {epsilon:g} "
                            f"({check.name}): goodness-of-fit p = {p:.3g} < {ALPHA:g}")
    return out


def _codes(rng, domain_size, shape=(7, 13), null_share=0.4):
    codes = rng.integers(0, domain_size, size=shape).astype(np.int8)
    codes[rng.random(shape) < null_share] = domain_size
    return codes


def _equal(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def _outputs_equal(p, q) -> bool:
    if p.factors is not None or q.factors is not None:
        return (p.factors is not None and q.factors is not None
                and all(_equal(x, y) for x, y in zip(p.factors, q.factors)))
    return _equal(p.values, q.values) and p.null_code == q.null_code


def check_identity(mech) -> None:
    assert mech.id and mech.label, f"{mech!r}: needs an id and a label"
    settings = mech.settings()
    assert isinstance(settings, mech.Settings), f"{mech.id}: settings() must build Settings"
    try:
        mech.settings(no_such_setting=1)
    except ValueError as err:
        assert "no_such_setting" in str(err), f"{mech.id}: the error must name the setting"
    else:
        raise AssertionError(f"{mech.id}: an unknown setting must be refused")


def check_sweep(mech, settings, epsilons, domain_size, *, seed=7) -> None:
    """Common random numbers: draws applied at each ε equal a fresh perturb at that ε."""
    rng = np.random.default_rng(seed)
    codes = _codes(rng, domain_size)
    state = mech.prepare(codes, settings, domain_size=domain_size,
                         rng=np.random.default_rng([seed, 1]))
    if mech.common_draws:
        draws = mech.draws(codes, settings, rng=np.random.default_rng([seed, 2]),
                           domain_size=domain_size, state=state)
        for eps in epsilons:
            shared = mech.apply(codes, draws, eps, settings, domain_size=domain_size,
                                state=state)
            fresh = mech.perturb(codes, eps, settings, rng=np.random.default_rng([seed, 2]),
                                 domain_size=domain_size, state=state, dtype=np.float32)
            assert _outputs_equal(shared, fresh), (
                f"{mech.id}: draws applied at ε = {eps:g} differ from a fresh draw at that ε")
        # stacked over repetitions: each repetition's draws from its own generator
        stack = np.stack([codes, _codes(np.random.default_rng([seed, 3]), domain_size)])
        states = [mech.prepare(c, settings, domain_size=domain_size,
                               rng=np.random.default_rng([seed, 4, b]))
                  for b, c in enumerate(stack)]
        stacked = mech.draws_stacked(stack, settings, domain_size=domain_size, states=states,
                                     rngs=[np.random.default_rng([seed, 5, b]) for b in range(2)])
        for b in range(2):
            one = mech.draws(stack[b], settings, rng=np.random.default_rng([seed, 5, b]),
                             domain_size=domain_size, state=states[b])
            got = ([a[b] for a in stacked] if isinstance(stacked, tuple)
                   else stacked[b])
            ones = one if isinstance(one, tuple) else (one,)
            gots = got if isinstance(got, (list, tuple)) else (got,)
            assert all(_equal(x, y) for x, y in zip(ones, gots)), (
                f"{mech.id}: stacked draws of repetition {b} differ from its own draws")
    else:
        for eps in epsilons:
            a = mech.perturb(codes, eps, settings, rng=np.random.default_rng([seed, 6]),
                             domain_size=domain_size, state=state)
            b = mech.perturb(codes, eps, settings, rng=np.random.default_rng([seed, 6]),
                             domain_size=domain_size, state=state)
            assert _outputs_equal(a, b), f"{mech.id}: the same generator state must give the " \
                                         "same output"


def check_stream(mech, settings, epsilon, domain_size, *, seed=11) -> None:
    """The block-streamed path equals the dense sampler run block by block."""
    from ..answers import Answers
    from ..seeds import derive_rng
    from ..streaming import perturb_in_blocks, worker_blocks

    rng = np.random.default_rng(seed)
    codes = _codes(rng, domain_size, shape=(9, 6))
    w, t = np.nonzero(codes != domain_size)
    answers = Answers(t.astype(np.int32), w.astype(np.int32), codes[w, t].astype(np.int8),
                      codes.shape[1], codes.shape[0])
    profiles = None
    if mech.id == "mf":
        profiles = mech.profiles(codes.shape[1], settings, rng=np.random.default_rng(seed))
    streamed = perturb_in_blocks(answers, mech.id, epsilon, seed=seed, domain_size=domain_size,
                                 block_workers=4, profiles=profiles, settings=settings)
    for block, start, stop in worker_blocks(codes.shape[0], 4):
        brng = derive_rng(seed, "streaming", mech.label, float(epsilon), "block", block)
        sub = codes[start:stop]
        state = (mech.prepare(sub, settings, domain_size=domain_size, profiles=profiles)
                 if mech.id == "mf" else
                 mech.prepare(sub, settings, domain_size=domain_size))
        dense = mech.perturb(sub, epsilon, settings, rng=brng, domain_size=domain_size,
                             state=state, dtype=np.float32)
        if dense.factors is not None:
            got = streamed.u[0, start:stop]
            assert _equal(got, dense.factors[0]), f"{mech.id}: streamed block {block} differs"
        else:
            _, _, data, null = streamed.blocks[block]
            want = np.asarray(dense.values)
            if null is None:
                assert _equal(data, want.astype(data.dtype)), (
                    f"{mech.id}: streamed block {block} differs from the dense sampler")
            else:
                assert _equal(data, want), f"{mech.id}: streamed block {block} differs"


def check_release(mech, settings, epsilon, domain_size, *, seed=13) -> None:
    """The API's release equals the dense sampler from the same generator state."""
    from ._codes import codes_to_answers

    codes = _codes(np.random.default_rng(seed), domain_size)
    answers = codes_to_answers(codes, domain_size, dtype=np.float64)
    released = mech.release(answers, epsilon, settings, rng=np.random.default_rng(seed),
                            domain_size=domain_size)
    rng = np.random.default_rng(seed)
    state = mech.prepare(codes, settings, domain_size=domain_size, rng=rng)
    dense = mech.perturb(codes, epsilon, settings, rng=rng, domain_size=domain_size,
                         state=state).dense(np.float32 if mech.id == "mf" else np.float64)
    assert _equal(np.asarray(released, dtype=np.float64), dense.astype(np.float64)), (
        f"{mech.id}: the API's release differs from the dense sampler on the same draws")


def check_guarantee(mech, settings, epsilon, domain_size) -> Guarantee:
    shape = DataShape(workers=7, tasks=13, max_records_per_worker=9)
    g = mech.guarantee(settings, shape, epsilon, domain_size=domain_size)
    assert isinstance(g, Guarantee), f"{mech.id}: guarantee() must return a Guarantee"
    if not mech.float_safe:
        assert math.isinf(g.record_epsilon) or math.isfinite(g.rounding_excess), (
            f"{mech.id}: a sampler that is not floating-point safe cannot state a finite ε as "
            f"run (got {g.record_epsilon}) without stating its rounding excess")
    else:  # ∞ only where exact arithmetic gives ∞ too (a neighbour the law does not cover)
        assert math.isfinite(g.record_epsilon) or math.isinf(g.ideal_record_epsilon), (
            f"{mech.id}: a float-safe sampler states its ε")
    assert g.float_safe == mech.float_safe, f"{mech.id}: guarantee and member disagree on " \
                                            "floating-point safety"
    assert g.worker_epsilon >= g.record_epsilon, (
        f"{mech.id}: one worker's whole release cannot cost less than one record")
    assert g.basis and g.worker_rule, f"{mech.id}: a guarantee names its derivation and rule"
    return g


def check_audit(mech, settings, epsilon, domain_size) -> None:
    for case in mech.audit_cases(settings, epsilon, domain_size=domain_size):
        for which in ("D", "D'"):
            x = np.asarray(case.sample(np.random.default_rng(0), 50, which))
            assert x.shape == (50,), (f"{mech.id}: audit case {case.neighbours!r} must return "
                                      f"one statistic per sample, got shape {x.shape}")


def _released(mech, settings, epsilon, domain_size, column, rng):
    """The member's release (or dense sampler) on one task answered by every worker with
    ``column`` (NaN = NULL): the outputs as floats, NaN for NULL."""
    answers = np.asarray(column, dtype=np.float64)[:, None]
    if "release" in mech.parts:
        out = mech.release(answers, epsilon, settings, rng=rng, domain_size=domain_size)
    else:
        from ._codes import answer_codes

        codes = answer_codes(answers, domain_size)
        state = mech.prepare(codes, settings, domain_size=domain_size, rng=rng)
        out = mech.perturb(codes, epsilon, settings, rng=rng, domain_size=domain_size,
                           state=state).dense(np.float64)
    return np.asarray(out, dtype=np.float64)[:, 0]


def check_channel(mech, settings, epsilon, domain_size, *, seed=17, n=LAW_SAMPLES) -> dict:
    """The declared channel and noise variance against the sampler that releases."""
    from scipy import stats

    report = {}
    k = int(domain_size)
    channel = mech.channel(settings, epsilon, domain_size=k)
    if channel is not None:
        law = np.tensordot(channel.weights, channel.matrices, axes=1)  # (S, S)
        assert channel.symbols == (k + 1 if channel.observes_null else k), (
            f"{mech.id}: a channel over {channel.symbols} symbols for |Γ| = {k} "
            f"(observes_null={channel.observes_null})")
        for r in range(channel.symbols):
            rng = np.random.default_rng([seed, r])
            x = _released(mech, settings, epsilon, k, np.full(n, np.nan if r == k else r), rng)
            symbols = np.where(np.isnan(x), k, x).astype(np.int64)
            if not channel.observes_null:
                assert (symbols < k).all(), f"{mech.id}: an answered cell released as NULL"
            counts = np.bincount(symbols, minlength=channel.symbols).astype(np.float64)
            expected = law[:, r] * n
            keep = expected > 0
            assert not (counts[~keep] > 0).any(), (
                f"{mech.id}: response {r} released a symbol its channel says is impossible")
            p = float(stats.power_divergence(counts[keep], expected[keep],
                                             lambda_="log-likelihood").pvalue)
            report[("channel", r)] = p
            assert p >= ALPHA, (f"{mech.id}: the release does not follow its declared channel "
                                f"for response {r} at ε = {epsilon:g}: G-test p = {p:.3g}")
    variance = mech.noise_variance(settings, epsilon, domain_size=k)
    if variance is not None:
        rng = np.random.default_rng([seed, 99])
        labels = rng.integers(0, k, size=n)
        noise = _released(mech, settings, epsilon, k, labels, rng) - labels
        square = noise * noise
        mean_square = float(square.mean())
        z = (mean_square - variance) / math.sqrt(max(float(square.var()), 1e-300) / n)
        report["noise_variance"] = (mean_square, variance, z)
        assert abs(z) < 5, (f"{mech.id}: declared noise mean square {variance:.6g}, the "
                            f"release shows {mean_square:.6g} (z = {z:.2f}) at ε = {epsilon:g}")
    return report


#: The checks by part (identity and guarantee apply to every member).
CONTRACT_CHECKS = ("identity", "law", "sweep", "stream", "release", "guarantee", "audit",
                   "channel")


def only_given(settings, mech) -> bool:
    """Whether the caller chose settings other than the member's example ones."""
    return settings != mech.example_settings()


def check_mechanism(mech, *, settings=None, epsilons=(0.5, 2.0), domain_size: int = 5,
                    only=None) -> dict:
    """Run the contract on ``mech`` (every part it declares; ``only``: a subset of
    :data:`CONTRACT_CHECKS`). Returns what was measured (the law's p-values, the guarantee)."""
    settings = mech.example_settings() if settings is None else settings
    wanted = set(CONTRACT_CHECKS if only is None else only)
    report = {}
    if "identity" in wanted:
        check_identity(mech)
    if "law" in wanted and "law" in mech.parts:
        laws = [settings] if only_given(settings, mech) else mech.law_settings()
        report["law"] = {(i, eps): check_law(mech, s, eps, domain_size=domain_size)
                         for i, s in enumerate(laws) for eps in epsilons}
    if "sweep" in wanted and "sweep" in mech.parts:
        check_sweep(mech, settings, epsilons, domain_size)
    if "stream" in wanted and "stream" in mech.parts:
        check_stream(mech, settings, epsilons[0], domain_size)
    if "release" in wanted and {"release", "sweep"} <= set(mech.parts):
        check_release(mech, settings, epsilons[0], domain_size)
    if "guarantee" in wanted:
        report["guarantee"] = check_guarantee(mech, settings, epsilons[0], domain_size)
    if "audit" in wanted and "audit" in mech.parts:
        check_audit(mech, settings, epsilons[0], domain_size)
    if "channel" in wanted and mech.answer_type == "categorical" and (
            {"release", "sweep"} & set(mech.parts)):
        report["channel"] = {eps: check_channel(mech, settings, eps, domain_size)
                             for eps in epsilons}
    return report
