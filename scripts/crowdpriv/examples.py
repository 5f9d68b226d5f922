"""Worked example of adding a mechanism (README "Extending"): RR on the answered cells only.

:class:`RRAnswersOnly` perturbs each non-NULL answer by k-ary randomized response over Γ (keep
with probability e^ε/(|Γ| − 1 + e^ε), else one of the other |Γ| − 1 labels uniformly) and leaves
NULLs as they are. It is ε-LDP for the answer *values* but, unlike LDP-sparse's RR, it reveals
which tasks a worker answered — which is exactly why it is a useful contrast: the difference
between the two is the price of protecting NULLs. Everything a mechanism of the family needs is
in this one file; registering it is one line of config::

    ldp_sparse:
      mechanisms:
        extra: ["crowdpriv.examples:RRAnswersOnly"]
      fig2: {methods: [lp, rr, mf, rr-answers-only]}

or, on the command line, ``crowdpriv --register crowdpriv.examples:RRAnswersOnly perturb
rr-answers-only ...``. :func:`rr_answers_only` is the same perturbation as a plain function (the
form of earlier versions, still accepted).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_int_at_least, check_positive
from .mechanisms import (
    Channel,
    Claimed,
    DataShape,
    Guarantee,
    LawCheck,
    Mechanism,
    Perturbed,
)

__all__ = ["RRAnswersOnly", "rr_answers_only"]


def _keep_probability(epsilon, k):
    """e^ε / (|Γ| − 1 + e^ε), overflow-free."""
    return 1.0 / (1.0 + (k - 1) * np.exp(-np.asarray(epsilon, dtype=np.float64)))


@dataclass(frozen=True)
class _NoSettings:
    """RR on answered cells has no settings: its channel follows from ε and |Γ|."""


class RRAnswersOnly(Mechanism):
    """k-ary randomized response on the answered cells; NULL stays NULL."""

    default_inference = "aware-one-coin-ds"
    id = "rr-answers-only"
    label = "RR-answers-only"
    summary = "k-ary randomized response on answered cells only; NULLs are released as NULL"
    Settings = _NoSettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    releases_labels = True
    fills_nulls = False
    null_handling = "NULL released as NULL: the set of tasks a worker answered is not protected"

    def draw_spec(self, shape, settings, dtype):
        return ((shape, dtype), (shape, np.int8))

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        """ε-free: a uniform per cell (keep or not) and a shift 1 .. |Γ| − 1 (which other
        label)."""
        shape = np.shape(codes)
        u = rng.random(shape, dtype=dtype)
        shift = rng.integers(1, domain_size, size=shape, dtype=np.int8)
        if out is not None:
            out[0][...], out[1][...] = u, shift
            return out
        return u, shift

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        u, shift = draws
        k = int(domain_size)
        c = np.asarray(codes)
        flip = (c != k) & (u >= _keep_probability(check_positive("epsilon", epsilon), k))
        out = c.copy()
        out[flip] = (c[flip] + shift[flip]) % k
        return Perturbed(out, k)

    def channel(self, settings, epsilon, *, domain_size):
        k = int(domain_size)
        keep = float(_keep_probability(check_positive("epsilon", epsilon), k))
        other = (1.0 - keep) / (k - 1)
        matrix = np.full((k, k), other) + np.eye(k) * (keep - other)
        return Channel(matrix[None], np.ones(1), observes_null=False,
                       description=f"k-ary RR over Γ on answered cells at ε = {float(epsilon):g}")

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered cell's value (NULL cells not protected)",
                       "k-ary randomized response (Warner 1965) on answered cells",
                       "two answers of one worker to one task (a NULL is not a neighbour)")

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        return Guarantee(
            record_epsilon=float("inf"), record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=float("inf"), worker_delta=0.0,
            worker_rule=f"basic composition over the worker's {shape.max_records_per_worker} "
                        "answered cells, and the answered set itself released",
            ideal_record_epsilon=float("inf"), float_safe=False,
            basis=f"a changed answer: keep e^ε/(|Γ|−1+e^ε) against 1/(|Γ|−1+e^ε), ε = "
                  f"{float(epsilon):g} in exact arithmetic; a NULL stays NULL and an answer "
                  "never becomes one, so NULL against an answer is distinguished with "
                  "certainty (ε = ∞)",
            caveats=("the set of tasks a worker answered is released as is",))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "k-ary randomized response on the answered cells (crowdpriv "
                           "example)", "unit": "per answered cell's value",
                "covers": ["a change of one answered cell's value"],
                "not_covered": ["which tasks a worker answered: NULLs are released as NULL "
                                "(the answered set is not protected)",
                                "a worker's whole answer vector: ε adds up over his answers"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from .audit import Case

        k = int(domain_size)

        def column(first, second):
            def sample(rng, n, which):
                codes = np.full((n, 1), first if which == "D" else second, dtype=np.int8)
                out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
                values = np.asarray(out.values).ravel().astype(np.float64)
                return np.where(values == k, -1.0, values)
            return sample

        return [Case("user", self.label, "one answered cell, 0 vs 1", float(epsilon), 0.0,
                     column(0, 1), exact_epsilon=float(epsilon), discrete=True),
                Case("user", self.label, "one cell, NULL vs answered 0", float(epsilon), 0.0,
                     column(k, 0), exact_epsilon=float("inf"), discrete=True, claimed=False,
                     note="NULL is released as NULL: the answered set is not protected")]

    def law(self, settings, epsilon, *, domain_size=None):
        k = int(domain_size)
        e = np.exp(float(epsilon))
        row = np.full(k + 1, 1.0 / (k - 1 + e))
        row[0], row[k] = e / (k - 1 + e), 0.0

        def answered(rng, n):
            codes = np.zeros((n, 1), dtype=np.int8)
            return np.asarray(self.perturb(codes, epsilon, settings, rng=rng,
                                           domain_size=k).values).ravel().astype(np.int64)

        def null(rng, n):
            codes = np.full((n, 1), k, dtype=np.int8)
            return np.asarray(self.perturb(codes, epsilon, settings, rng=rng,
                                           domain_size=k).values).ravel().astype(np.int64)

        null_row = np.zeros(k + 1)
        null_row[k] = 1.0
        return [LawCheck("answered 0: keep e^ε/(|Γ|−1+e^ε), else another label", answered,
                         support=np.arange(k + 1), probabilities=row),
                LawCheck("NULL stays NULL", null, support=np.arange(k + 1),
                         probabilities=null_row)]


def rr_answers_only(answers, epsilon, *, rng: np.random.Generator, domain_size: int):
    """Randomized response over Γ on answered cells; NULL (``NaN``) stays NULL.

    The plain-function form of :class:`RRAnswersOnly` (same law, its own draws).

    Parameters
    ----------
    answers : array_like, shape (m, n)
        Labels in {0, ..., domain_size − 1}, ``NaN`` = NULL.
    epsilon : float
        ε > 0.
    rng : numpy.random.Generator
    domain_size : int
        |Γ| ≥ 2.
    """
    eps = check_positive("epsilon", epsilon)
    k = check_int_at_least("domain_size", domain_size, 2)
    a = np.asarray(answers, dtype=float)
    answered = ~np.isnan(a)
    keep = _keep_probability(eps, k)
    flip = answered & (rng.random(a.shape) >= keep)
    shift = rng.integers(1, k, size=a.shape)  # another label, uniformly
    out = a.copy()
    out[flip] = (a[flip] + shift[flip]) % k
    return out

