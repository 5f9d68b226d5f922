"""A black-box privacy auditor: a statistical lower bound on the ε of a mechanism as run.

In the style of StatDP (Ding et al., CCS 2018) and DP-Sniper (Bichsel et al., S&P 2021): for a
mechanism M and neighbouring inputs D, D′,

1. a *search* sample of M(D) and M(D′) chooses an output event S (a threshold on a scalar
   statistic of the output, ``> t`` or ``< t``, or one value of a discrete output) that makes
   P[M(D) ∈ S] / P[M(D′) ∈ S] large;
2. a fresh *test* sample estimates p = P[M(D) ∈ S] and p′ = P[M(D′) ∈ S] with exact
   Clopper-Pearson bounds, and the audit reports

       ε_lb = ln((p_lo − δ) / p′_hi),

   a lower bound on the mechanism's ε at the stated confidence (each one-sided bound at
   1 − (1 − confidence)/2, so both hold together with probability ≥ ``confidence``).

If M is (ε, δ)-DP then p ≤ e^ε p′ + δ for every S, so ε_lb > ε happens with probability at most
1 − confidence: a lower bound above the claimed ε refutes the claim at that confidence. A
lower bound below it refutes nothing (that is all a lower bound can show). With n samples per
side no ε above about ln(n) can be seen (p′_hi ≥ 1 − (1 − c/2)^(1/n) ≈ ln(2/(1−c))/n even
when p′ = 0); :func:`resolvable_epsilon` gives the exact figure.

Exact ε where a closed form exists (randomized response, Laplace per cell, mixtures of them)
lives with each mechanism (:mod:`crowdpriv.mechanisms`, which writes its :class:`Case` s);
nothing in the statistical audit knows a mechanism.

The floating-point support tests at the end (Mironov, CCS 2012) are certain, not statistical:
an output of the sampler that runs on input x that no draw can produce from the neighbour x'
is an event of positive probability under x and probability 0 under x', so no finite ε holds
(:func:`reachable` proves unreachability; :mod:`crowdpriv.floating_point` runs it on each
sampler of the pipeline and of the releases: the mechanisms import this module, so it cannot
import them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._checks import check_in_interval, check_int_at_least, check_nonnegative

__all__ = [
    "Case",
    "laplace_delta",
    "AuditResult",
    "clopper_pearson",
    "resolvable_epsilon",
    "choose_event",
    "audit",
    "SupportResult",
    "float_keys",
    "keys_to_floats",
    "first_draw_at_least",
    "reachable",
    "support_share",
    "laplace_float64_support",
]


def clopper_pearson(k, n, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided exact binomial bounds at level ``confidence`` each: (lower, upper).

    lower = Beta(1 − c; k, n − k + 1) (0 when k = 0); upper = Beta(c; k + 1, n − k) (1 when
    k = n), so P[p < lower] ≤ 1 − c and P[p > upper] ≤ 1 − c.
    """
    # the Beta quantile scipy.stats.beta.ppf returns (the same Boost ibeta_inv, bit for bit:
    # tests/test_audit.py), without importing scipy.stats (~1 CPU-s per job)
    from scipy.special import betaincinv

    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    c = check_in_interval("confidence", confidence, 0.0, 1.0)
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, betaincinv(k, n - k + 1, 1.0 - c), 0.0)
        hi = np.where(k < n, betaincinv(k + 1, n - k, c), 1.0)
    return lo, hi


def resolvable_epsilon(samples: int, confidence: float) -> float:
    """The largest ε_lb an audit with ``samples`` per side can report: p = 1 observed as
    ``samples`` of ``samples`` against p′ = 0 observed as 0 of ``samples``."""
    c = 1.0 - (1.0 - confidence) / 2.0
    lo, _ = clopper_pearson(samples, samples, c)
    _, hi = clopper_pearson(0, samples, c)
    return float(np.log(lo / hi))


@dataclass(frozen=True)
class Case:
    """One audit: a mechanism, a pair of neighbouring inputs and the sampler of a scalar
    statistic.

    ``sample(rng, n, which)`` returns ``n`` statistics of M(D) (``which="D"``) or M(D′);
    ``exact_epsilon`` is the mechanism's ε for these neighbours where a closed form exists —
    the ε of the sampler as it runs when ``float_safe``, else of its law in exact arithmetic;
    ``claimed`` is False for neighbours outside the paper's rule (the claim says nothing of
    them; ``note`` says which rule). Cases of one ``family`` test one claim of the paper (one
    mechanism, one ε and δ, one unit): the claim is judged by the worst of them.
    ``composition``: what composing the claim over these neighbours' records gives (shown
    beside, never instead of the claim). ``exact_delta``: for an (ε, δ) claim, the δ the law
    needs at the claimed ε (its privacy profile; e.g. :func:`laplace_delta`). Each mechanism writes its own cases
    (:meth:`crowdpriv.mechanisms.Mechanism.audit_cases`).
    """

    paper: str
    mechanism: str
    neighbours: str
    claimed_epsilon: float
    claimed_delta: float
    sample: Callable[[np.random.Generator, int, str], np.ndarray]
    exact_epsilon: float = float("nan")
    discrete: bool = False
    statistic: str = "output"
    claimed: bool = True
    note: str = ""
    family: str = ""
    float_safe: bool = False
    composition: str = ""
    exact_delta: float = float("nan")

    @property
    def claim(self) -> str:
        """The family this case belongs to (its mechanism when none is named)."""
        return self.family or self.mechanism


def laplace_delta(epsilon: float, exact_epsilon: float) -> float:
    """The smallest δ with which a Laplace mechanism of pure ε ``exact_epsilon`` (shift/scale)
    is (ε, δ)-DP: its privacy profile δ(ε) = 1 − e^((ε − ε_a)/2) for ε < ε_a, else 0 (the
    hockey-stick divergence of two shifted Laplace densities, Balle and Wang 2018)."""
    a = float(exact_epsilon)
    return 0.0 if epsilon >= a else float(-np.expm1((epsilon - a) / 2.0))


@dataclass(frozen=True)
class Event:
    """An output event: ``kind`` ``>`` / ``<`` a threshold, or ``=`` a value of the statistic;
    ``first`` = which input it favours (``D`` or ``D'``: the audit may swap the two)."""

    kind: str
    value: float
    first: str

    def contains(self, x: np.ndarray) -> np.ndarray:
        if self.kind == ">":
            return x > self.value
        if self.kind == "<":
            return x < self.value
        return x == self.value

    def describe(self, statistic: str) -> str:
        return f"{statistic} {self.kind} {self.value:.6g} (favours {self.first})"


def _event_counts(kind: str, sorted_sample: np.ndarray, values: np.ndarray) -> np.ndarray:
    """How many of ``sorted_sample`` fall in the event ``kind`` (``>``, ``<``, ``=``) at each
    of ``values``."""
    if kind == ">":
        return sorted_sample.size - np.searchsorted(sorted_sample, values, side="right")
    if kind == "<":
        return np.searchsorted(sorted_sample, values, side="left")
    return np.array([(sorted_sample == v).sum() for v in values])


def choose_event(x: np.ndarray, y: np.ndarray, *, discrete: bool = False, candidates: int = 200,
                 confidence: float = 0.99, delta: float = 0.0) -> tuple[Event, float]:
    """The event of the search sample with the largest ε lower bound, both directions.

    ``x`` ~ M(D), ``y`` ~ M(D′) (scalar statistics). Threshold events at ``candidates``
    quantiles of the pooled sample, at tail quantiles down to 10⁻⁴ and at each side's extremes
    (every distinct value when ``discrete``: the events ``= v``). Scoring the bound itself, not the ratio, keeps events of tiny probability from
    winning by chance.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    pooled = np.concatenate([x, y])
    if discrete:
        values = np.unique(pooled)
        kinds = [("=", values)]
    else:
        # evenly spaced quantiles, log-spaced tail quantiles (rare events one input produces
        # and the other seldom does) and each side's extremes
        tails = np.array([1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03])
        levels = np.concatenate([np.linspace(0.0, 1.0, candidates + 2)[1:-1], tails, 1 - tails])
        qs = np.unique(np.concatenate([np.quantile(pooled, levels),
                                       [x.min(), x.max(), y.min(), y.max()]]))
        kinds = [(">", qs), ("<", qs)]
    best, best_score = None, -np.inf
    c = 1.0 - (1.0 - confidence) / 2.0
    sorted_x, sorted_y = np.sort(x), np.sort(y)  # each side sorted once
    for kind, values in kinds:
        # each side's count of the event and its bounds, once; D' swaps the roles
        low_x, high_x = clopper_pearson(_event_counts(kind, sorted_x, values), x.size, c)
        low_y, high_y = clopper_pearson(_event_counts(kind, sorted_y, values), y.size, c)
        for first, lo, hi in (("D", low_x, high_y), ("D'", low_y, high_x)):
            with np.errstate(divide="ignore", invalid="ignore"):
                score = np.log(np.maximum(lo - delta, 0.0) / hi)
            score = np.where(np.isfinite(score), score, -np.inf)
            i = int(np.argmax(score))
            if score[i] > best_score:
                best, best_score = Event(kind, float(values[i]), first), float(score[i])
    if best is None:
        best = Event(">", float(np.median(pooled)), "D")
    return best, best_score


@dataclass(frozen=True)
class AuditResult:
    """What one audit found (see the module docstring)."""

    epsilon_lower_bound: float
    p: float
    p_prime: float
    p_lower: float
    p_prime_upper: float
    samples: int
    confidence: float
    delta: float
    event: str
    resolvable: float

    @property
    def evidence(self) -> str:
        return (f"event {self.event}: P[M(D) in S] = {self.p:.4g} (>= {self.p_lower:.4g}), "
                f"P[M(D') in S] = {self.p_prime:.4g} (<= {self.p_prime_upper:.4g}), "
                f"{self.samples} samples per side, Clopper-Pearson at {self.confidence:g}; "
                f"the largest resolvable epsilon at this size is {self.resolvable:.3g}")


def audit(sample: Callable[[np.random.Generator, int, str], np.ndarray], *, rng,
          samples: int = 100_000, search_samples: int = 20_000, confidence: float = 0.99,
          delta: float = 0.0, discrete: bool = False, statistic: str = "output"
          ) -> AuditResult:
    """Audit a mechanism black-box: ``sample(rng, n, which)`` returns ``n`` scalar statistics
    of M(D) (``which="D"``) or M(D′) (``which="D'"``).

    The search and test samples come from independent child streams of ``rng``.
    """
    n = check_int_at_least("samples", samples, 10)
    n_search = check_int_at_least("search_samples", search_samples, 10)
    delta = check_nonnegative("delta", delta)
    search_rng, test_rng = rng.spawn(2)
    sr = search_rng.spawn(2)
    event, _ = choose_event(sample(sr[0], n_search, "D"), sample(sr[1], n_search, "D'"),
                            discrete=discrete, confidence=confidence, delta=delta)
    tr = test_rng.spawn(2)
    x = sample(tr[0], n, "D")
    y = sample(tr[1], n, "D'")
    a, b = (x, y) if event.first == "D" else (y, x)
    k, k_prime = int(event.contains(a).sum()), int(event.contains(b).sum())
    c = 1.0 - (1.0 - confidence) / 2.0
    lo, _ = clopper_pearson(k, n, c)
    _, hi = clopper_pearson(k_prime, n, c)
    with np.errstate(divide="ignore"):
        eps = float(np.log(max(float(lo) - delta, 0.0) / float(hi))) if lo > delta else 0.0
    return AuditResult(max(eps, 0.0), k / n, k_prime / n, float(lo), float(hi), n, confidence,
                       delta, event.describe(statistic), resolvable_epsilon(n, confidence))


# --- floating-point support tests (Mironov, CCS 2012) ------------------------------------------


@dataclass(frozen=True)
class SupportResult:
    """Outputs of M(D) that M(D′) cannot produce: ``unreachable`` of ``samples`` checked.

    Each counted output is certainly unreachable (:func:`reachable`), so a positive count
    exhibits an event S with P[M(D) ∈ S] > 0 = P[M(D′) ∈ S]: ε = ∞ at that neighbour for pure
    DP, and for (ε, δ) whenever P[M(D) ∈ S] > δ (``share`` estimates it). A zero count is what
    a float-safe sampler must give; it proves nothing by itself."""

    unreachable: int
    samples: int

    @property
    def share(self) -> float:
        return self.unreachable / self.samples if self.samples else float("nan")


_FLOAT_BITS = {np.dtype(np.float64): (np.int64, 0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 64),
               np.dtype(np.float32): (np.int32, 0x7F800000, 0x7FFFFFFF, 32)}


def _float_type(dtype):
    dt = np.dtype(dtype)
    if dt not in _FLOAT_BITS:
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    return dt, _FLOAT_BITS[dt]


def float_keys(values, dtype) -> np.ndarray:
    """int64 keys of floats of ``dtype`` in their numerical order: consecutive floats get
    consecutive keys, ±0 both get 0, ±inf are the extreme keys (NaN has none)."""
    dt, (ints, _, magnitude, _) = _float_type(dtype)
    bits = np.asarray(values, dtype=dt).view(ints).astype(np.int64)
    return np.where(bits < 0, -(bits & magnitude), bits)  # pragma: no mutate (< 0 and <= 0, or < 1: the bits 0 of +0 give key 0 either way)


def keys_to_floats(keys, dtype) -> np.ndarray:
    """The floats of :func:`float_keys` (key 0 is +0)."""
    dt, (ints, _, _, width) = _float_type(dtype)
    k = np.asarray(keys, dtype=np.int64)
    sign = np.int64(-(2 ** (width - 1)))
    return np.where(k < 0, (-k) | sign, k).astype(ints).view(dt)


def first_draw_at_least(sampler, outputs, dtype) -> np.ndarray:
    """For each output y, the smallest float t of ``dtype`` (−inf .. +inf) with
    ``sampler(t) >= y``, by bisection on :func:`float_keys` (64 steps at most); +inf where the
    sampler never reaches y. ``sampler`` maps an array of draws (one per output) to outputs and
    must be non-decreasing in each draw."""
    dt, (_, infinity, _, _) = _float_type(dtype)
    y = np.asarray(outputs)
    lo = np.full(y.shape, -infinity - 1, dtype=np.int64)  # sampler(lo) < y (a sentinel)
    hi = np.full(y.shape, infinity, dtype=np.int64)
    with np.errstate(all="ignore"):
        while True:
            gap = hi > lo + 1  # not hi − lo: the float64 key range overflows int64
            if not gap.any():
                break
            mid = np.where(gap, (lo >> 1) + (hi >> 1) + (lo & hi & 1), hi)
            at_least = np.asarray(sampler(keys_to_floats(mid, dt))) >= y
            hi = np.where(gap & at_least, mid, hi)
            lo = np.where(gap & ~at_least, mid, lo)
    return keys_to_floats(hi, dt)


def reachable(outputs, sampler, *, dtype) -> np.ndarray:
    """Whether some draw t (any float of ``dtype``) gives ``sampler(t) == y``, per output y.

    ``sampler`` is the neighbour's sampler as a function of its free draw, evaluated with the
    same floating-point operations the code runs, and non-decreasing in the draw (additions and
    multiplications by a positive number rounded to nearest, clamps, rounding to a grid and
    square roots all are; a decreasing one is passed as a function of −t).

    Proof. The floats of a type are totally ordered and finite, and ``sampler`` is
    non-decreasing on them, so its preimage of y is a run of consecutive floats; if it is not
    empty its first element is the first t with ``sampler(t) >= y``, which bisection finds
    exactly (:func:`first_draw_at_least`). So y is reachable iff ``sampler(t*) == y`` at that
    t*: the answer is certain either way, with no assumption on how long the run is. Taking
    every float as a possible draw over-approximates what the random-number generator can
    produce, so "unreachable" stays certain for the real draws (and the share it counts is a
    lower bound on the true one).

    Remark (the few-neighbours lemma). For a sampler whose last step is one rounded addition,
    y = fl(x' + t), the preimage of y is the set of floats t with x' + t in y's rounding cell, an
    interval of reals containing c = y − x'. If it holds a float t*, it holds t0 = the float
    nearest to c or a float neighbour of t0: a float strictly between t0 and t* would be nearer
    to c than t0 unless it lies on t*'s side of c, hence in the interval. So checking t0 and its
    two neighbours decides reachability there too; the tests check that both agree.
    """
    y = np.asarray(outputs)
    t = first_draw_at_least(sampler, y, dtype)
    with np.errstate(all="ignore"):
        return np.asarray(sampler(t)) == y


def support_share(outputs, sampler, *, dtype) -> SupportResult:
    """:class:`SupportResult` of ``outputs`` (of M(D), one per sample, or one row of
    coordinates per sample: a row is unreachable when one coordinate is) against the
    neighbour's ``sampler`` (:func:`reachable`)."""
    y = np.asarray(outputs)
    ok = reachable(y, sampler, dtype=dtype)
    per_sample = ok.reshape(ok.shape[0], -1).all(axis=1) if ok.ndim > 1 else ok
    return SupportResult(int((~per_sample).sum()), int(per_sample.size))


def laplace_float64_support(loc: float, other: float, scale: float, *, samples: int,
                            rng) -> SupportResult:
    """Textbook ``loc + numpy.laplace`` in float64 (a reference; the pipeline does not run it):
    outputs for ``loc`` that ``other`` cannot produce, y = fl(other + fl(scale · L))."""
    y = rng.laplace(loc, scale, samples)
    return support_share(y, lambda t: other + scale * t, dtype=np.float64)
