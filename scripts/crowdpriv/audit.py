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
nothing here knows a mechanism.
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
]


def clopper_pearson(k, n, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided exact binomial bounds at level ``confidence`` each: (lower, upper).

    lower = Beta(1 − c; k, n − k + 1) (0 when k = 0); upper = Beta(c; k + 1, n − k) (1 when
    k = n), so P[p < lower] ≤ 1 − c and P[p > upper] ≤ 1 − c.
    """
    from scipy.stats import beta

    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    c = check_in_interval("confidence", confidence, 0.0, 1.0)
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta.ppf(1.0 - c, k, n - k + 1), 0.0)
        hi = np.where(k < n, beta.ppf(c, k + 1, n - k), 1.0)
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
    for kind, values in kinds:
        for first, a, b in (("D", x, y), ("D'", y, x)):
            if kind == ">":
                ka = a.size - np.searchsorted(np.sort(a), values, side="right")
                kb = b.size - np.searchsorted(np.sort(b), values, side="right")
            elif kind == "<":
                ka = np.searchsorted(np.sort(a), values, side="left")
                kb = np.searchsorted(np.sort(b), values, side="left")
            else:
                ka = np.array([(a == v).sum() for v in values])
                kb = np.array([(b == v).sum() for v in values])
            lo, _ = clopper_pearson(ka, a.size, c)
            _, hi = clopper_pearson(kb, b.size, c)
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


def laplace_support_gap(loc: float, other: float, scale: float, *, samples: int = 2000,
                        float32: bool = False, rng) -> float:
    """Share of numpy's Laplace outputs for ``loc`` that the neighbouring input ``other`` can
    never produce (Mironov, CCS 2012: textbook Laplace on doubles leaks through its support).

    numpy draws U = j / 2^53 and returns ``loc + scale * log(2U)`` (U < 1/2; the mirror image
    above). An output y of M(loc) is reachable from ``other`` iff some j gives exactly y. A
    positive share is a set S with P[M(loc) in S] > 0 = P[M(other) in S]: no finite ε. With
    ``float32`` the pipeline's LP is modelled instead: the noise is cast to float32 and added
    to the float32 answer, so y is reachable iff some j's noise rounds to a float32 m with
    fl32(other + m) = y. Checks below-median outputs (the other half is the mirror image).
    """
    import math

    two53 = float(2 ** 53)
    hits = 0
    noise = rng.laplace(0.0, scale, samples * 2)
    noise = noise[noise < 0][:samples]
    for n in noise:
        if float32:
            y = np.float32(np.float32(loc) + np.float32(n))
            target = float(y) - other
            reachable = False
            base = np.float32(target)
            for m in (np.nextafter(base, np.float32(-np.inf)), base,
                      np.nextafter(base, np.float32(np.inf))):
                if np.float32(np.float32(other) + m) != y:
                    continue
                lo = float(np.nextafter(m, np.float32(-np.inf))) / 2 + float(m) / 2
                hi = float(np.nextafter(m, np.float32(np.inf))) / 2 + float(m) / 2
                if hi >= 0:
                    continue
                j_lo = math.ceil(math.exp(lo / scale) / 2 * two53) - 2
                j_hi = math.floor(math.exp(hi / scale) / 2 * two53) + 2
                for j in range(max(j_lo, 1), min(j_hi, j_lo + 6) + 1):
                    if np.float32(scale * math.log((j / two53) + (j / two53))) == m:
                        reachable = True
                        break
                if reachable:
                    break
        else:
            y = loc + n
            u = math.exp((y - other) / scale) / 2 if y < other else 0.0
            j0 = int(u * two53)
            reachable = any(other + scale * math.log((j / two53) + (j / two53)) == y
                            for j in range(max(j0 - 3, 1), j0 + 4))
        hits += not reachable
    return hits / len(noise)
