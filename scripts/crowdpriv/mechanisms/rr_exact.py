"""RR and 2-Layer for a real release: integer thresholds, so the ε of the sampler is exact.

RR over Γ ∪ {NULL} (LDP-sparse Eq. 8) keeps a symbol with probability e^ε/(|Γ| + e^ε) and
otherwise outputs one of the |Γ| other symbols, each with probability 1/(|Γ| + e^ε). The
sweeps' sampler (:mod:`.rr`) compares a floating-point uniform with a rounded keep probability,
so its ratio as run is e^ε only up to a rounding excess. This sampler uses integers only:

* one integer U uniform on [0, N), N = 2^62, per cell (``rng.integers``: exact, the range a
  power of two; ε-free, so a sweep draws once for every ε);
* at ε, q = ⌈N/(e^ε + |Γ|)⌉ and N_keep = N − |Γ| q (:func:`rr_thresholds`);
* keep the symbol iff U < N_keep; else shift it by s = 1 + (U − N_keep) // q ∈ {1, …, |Γ|}
  and output (x + s) mod (|Γ| + 1).

Proof of the law and of the exact ε. The |Γ| q integers N_keep, …, N − 1 split into |Γ|
consecutive runs of q, one per shift s, so P(keep) = N_keep/N and P(each other symbol) = q/N
exactly, for every input x (the shift is a bijection of the other symbols). Two inputs x ≠ x'
therefore give each output y probabilities N_keep/N and q/N in some order, or q/N twice: the
largest ratio is N_keep/q, and the sampler is ε*-LDP per cell with

    ε* = ln(N_keep/q) = ln(N/q − |Γ|) ≤ ln((e^ε + |Γ|) − |Γ|) = ε,

because q ≥ N/(e^ε + |Γ|). The ceiling is computed exactly: e^ε is irrational for a rational
ε ≠ 0 (Lindemann), so N/(e^ε + |Γ|) is not an integer; :func:`rr_thresholds` evaluates it with
Python's ``decimal`` at 30 significant digits (three correctly rounded operations, relative
error below 10^−27; the value has at most 19 integer digits) and accepts the ceiling only when
the value ± that error bound has one ceiling, else retries with 40 more digits. ε = 0 (a 2-Layer budget of zero) is rational and
computed in integers. For ε ≥ 64, e^ε > N and q = 1 (ε* = ln(N − |Γ|) ≈ 43 < ε). Since q is
non-increasing in ε, ε* is non-decreasing in ε (and many per-worker budgets need q
at a few of them only: :func:`_bracketed_shifts`).

2-Layer (Sec. VI-D) draws each worker's budget multiplier as :mod:`.two_layer` does (a float64
uniform on [1 − s, 1 + s), ε_i = ε · multiplier) and then runs this RR with the worker's own
integer thresholds. The multiplier is drawn independently of the answers, so its floating
point carries no information about them: it only decides which budget a worker gets. Each
worker's cells are ε*(ε_i)-LDP whatever ε_i is; the sampler caps ε_i at ε(1 + s) (the float
the guarantee names), so every worker is within ε*(ε(1 + s)). Its float64 grid costs only
resolution in the budgets (2^−53 relative), nothing in the guarantee.
"""

from __future__ import annotations

import decimal
import math

import numpy as np

from .._checks import check_int_at_least
from ._base import Channel, Claimed, DataShape, Guarantee, LawCheck, Perturbed, basic_composition
from ._codes import check_epsilon
from .lp import CELL_NEIGHBOURS
from .rr import RR, RRSettings, discrete_column, rr_channel
from .two_layer import TwoLayer, TwoLayerSettings, two_layer_channel

__all__ = ["RRExact", "TwoLayerExact", "RR_TOTAL", "rr_thresholds", "rr_exact_epsilon",
           "rr_exact_draws", "rr_exact_apply", "rr_exact_channel", "two_layer_exact_draws",
           "two_layer_exact_apply", "two_layer_budget_cap"]

#: N: the range of the integer draw (a power of two, so ``rng.integers`` is exact and cheap).
RR_TOTAL = 2**62
#: Significant digits of the first attempt at the exact ceiling (any number gives the same
#: ceiling, more digits only cost time: 2-Layer runs one per worker).
DIGITS = 30  # pragma: no mutate (equivalent: the first attempt's precision, retried if short)
#: Above this ε, e^ε > N and q = 1 (e^64 > 2^62 by far).
Q_ONE_EPSILON = 64.0  # pragma: no mutate (equivalent: a shortcut; above 64 the exact ceiling is 1 too)


def _ceil_total_over(epsilon: float, domain: int) -> int:
    """⌈N/(e^ε + |Γ|)⌉ exactly (see the module docstring)."""
    if epsilon == 0.0:
        return -(-RR_TOTAL // (domain + 1))
    if epsilon >= Q_ONE_EPSILON:
        return 1
    digits = DIGITS
    while True:
        with decimal.localcontext() as ctx:
            ctx.prec = digits
            ctx.rounding = decimal.ROUND_HALF_EVEN
            value = decimal.Decimal(RR_TOTAL) / (decimal.Decimal(epsilon).exp() + domain)
            # three correctly rounded operations: relative error < 1.5·10^(1−digits) (1 + tiny)
            err = abs(value) * decimal.Decimal(10) ** (3 - digits)
            low, high = math.ceil(value - err), math.ceil(value + err)
        if low == high:
            return int(low)
        digits += 40  # pragma: no mutate (equivalent: any increase reaches the ceiling)


def rr_thresholds(epsilon, domain_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(q, N_keep)`` of the integer RR sampler at ε (a float or per-worker budgets, any
    shape): q = ⌈N/(e^ε + |Γ|)⌉, N_keep = N − |Γ| q, int64, so P(keep) = N_keep/N, P(each other
    symbol) = q/N and N_keep/q ≤ e^ε exactly (module docstring)."""
    k = check_int_at_least("domain_size", domain_size, 2)
    eps = np.asarray(check_epsilon(epsilon), dtype=np.float64)
    values, inverse = np.unique(eps, return_inverse=True)
    q = np.array([_ceil_total_over(float(e), k) for e in values], dtype=np.int64)
    q = q[inverse].reshape(eps.shape)
    return q, np.int64(RR_TOTAL) - np.int64(k) * q


def rr_exact_epsilon(epsilon, domain_size: int) -> float:
    """ε* = ln(N_keep/q) of the integer sampler at ε (≤ ε), rounded up to a double."""
    q, keep = rr_thresholds(float(epsilon), domain_size)
    with decimal.localcontext() as ctx:
        ctx.prec = 50  # pragma: no mutate (equivalent: ln's working precision; ε* rounds to the same double)
        exact = decimal.Decimal(int(keep)).ln() - decimal.Decimal(int(q)).ln()
    out = float(exact)
    return out if decimal.Decimal(out) >= exact else math.nextafter(out, math.inf)


def rr_exact_channel(epsilon: float, domain_size: int) -> np.ndarray:
    """The integer sampler's channel P[output | input] over the codes 0 .. |Γ| (|Γ| = NULL):
    N_keep/N on the diagonal, q/N elsewhere (as floats)."""
    k = int(domain_size)
    q, keep = rr_thresholds(float(epsilon), k)
    out = np.full((k + 1, k + 1), int(q) / RR_TOTAL)
    np.fill_diagonal(out, int(keep) / RR_TOTAL)
    return out


def rr_exact_draws(codes, *, rng, out=None) -> np.ndarray:
    """The ε-free draws: one integer uniform on [0, N) per cell (int64)."""
    draws = rng.integers(0, RR_TOTAL, size=np.shape(codes), dtype=np.int64)
    if out is not None:
        out[...] = draws
        return out
    return draws


#: Distinct budgets above which :func:`rr_exact_apply` brackets each budget's q between the
#: exact q of two anchor budgets (every ``BRACKET_STEP``-th distinct budget) instead of
#: computing it (2-Layer: one budget per worker); either way the same output, exactly.
BRACKET_VALUES = 512  # pragma: no mutate (equivalent: only which of two exact paths runs)
BRACKET_STEP = 64  # pragma: no mutate (equivalent: only how many cells the exact q decides)


def _shifts(u, q, k: int) -> np.ndarray:
    """The shift of each draw U at threshold q (0 = kept: U < N_keep = N − |Γ| q), else
    1 + (U − N_keep) // q ∈ {1, …, |Γ|}."""
    keep = np.int64(RR_TOTAL) - np.int64(k) * q
    shift = (u - keep) // q + 1  # in 1 .. |Γ| where U >= N_keep
    return np.where(u < keep, 0, shift)


def _bracketed_shifts(u, epsilon, k: int) -> np.ndarray:
    """:func:`_shifts` at each cell's own exact q, for many distinct budgets.

    Proof that it is the same. For a draw 0 ≤ U < N (as :func:`rr_exact_draws` makes them) the
    shift is non-decreasing in q: it is 0 while U < N − |Γ| q (a bound falling in q), then
    (U − N_keep) // q + 1 = ⌊(U − N)/q⌋ + |Γ| + 1 (floor division, exact integers) with
    U − N < 0, a quotient that does not fall as q grows. And the exact q = ⌈N/(e^ε + |Γ|)⌉ is
    non-increasing in ε. So a budget between two anchor budgets a ≤ ε ≤ a' has
    q(a') ≤ q(ε) ≤ q(a) (both computed exactly, :func:`_ceil_total_over`), and where the
    shifts at q(a') and q(a) agree the shift at q(ε) is that value; the cells where they
    differ get their own exact q (how many depends on the data; the output is exact either
    way). ``epsilon`` has the draws' number of dimensions (2-Layer's (..., m, 1))."""
    eps = np.asarray(epsilon, dtype=np.float64)
    values, inverse = np.unique(eps, return_inverse=True)
    inverse = inverse.reshape(eps.shape)
    anchors = np.unique(np.append(values[::BRACKET_STEP], values[-1]))
    q_anchor = np.array([_ceil_total_over(float(a), k) for a in anchors], dtype=np.int64)
    j = np.clip(np.searchsorted(anchors, values, side="right") - 1, 0, anchors.size - 2)
    low = _shifts(u, q_anchor[j + 1][inverse], k)  # q at the larger anchor budget: smallest
    high = _shifts(u, q_anchor[j][inverse], k)
    open_ = low != high
    if open_.any():
        which = np.broadcast_to(inverse, u.shape)[open_]
        needed, at = np.unique(which, return_inverse=True)
        q = np.array([_ceil_total_over(float(v), k) for v in values[needed]], dtype=np.int64)
        low[open_] = _shifts(u[open_], q[at], k)
    return low


def rr_exact_apply(codes, draws, epsilon, *, domain_size: int) -> np.ndarray:
    """The output symbols at ε (int8 codes, |Γ| = NULL) from :func:`rr_exact_draws`; ``epsilon``
    may be per worker, broadcastable to ``(..., m, 1)`` (2-Layer: many distinct budgets are
    bracketed, :func:`_bracketed_shifts`)."""
    c = np.asarray(codes)
    u = np.asarray(draws)
    if u.shape != c.shape:
        raise ValueError(f"draws must have the shape of the codes {c.shape}, got {u.shape}")
    k = check_int_at_least("domain_size", domain_size, 2)
    eps = np.asarray(check_epsilon(epsilon), dtype=np.float64)
    if np.unique(eps).size > BRACKET_VALUES:
        shift = _bracketed_shifts(u, eps, k)
    else:
        q, _ = rr_thresholds(eps, k)
        shift = _shifts(u, q, k)
    out = c.astype(np.int16) + shift.astype(np.int16)
    out -= (out > k) * np.int16(k + 1)  # (x + s) mod (|Γ| + 1), as x + s <= 2|Γ|
    return out.astype(np.int8)


def two_layer_budget_cap(settings, epsilon) -> float:
    """The largest ε_i the 2-Layer release runs: ε (1 + s), the float the sampler caps at."""
    return float(epsilon) * (1.0 + settings.spread)


def two_layer_exact_draws(codes, *, rng, spread: float = 1.0, out=None):
    """2-Layer's ε-free draws: the budget multiplier per worker (float64 U(1 − s, 1 + s), as
    :func:`crowdpriv.mechanisms.two_layer.two_layer_draws`), then the integer draws per cell."""
    c = np.asarray(codes)
    if c.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {c.ndim}")
    multiplier = rng.uniform(1.0 - spread, 1.0 + spread, size=c.shape[:-1])
    if out is not None:
        out[0][...] = multiplier
        multiplier = out[0]
    return multiplier, rr_exact_draws(c, rng=rng, out=None if out is None else out[1])


def two_layer_exact_apply(codes, draws, epsilon, settings, *, domain_size: int) -> np.ndarray:
    """The output at ε: each worker's ε_i = min(ε · multiplier_i, ε (1 + s)), then the integer
    RR at ε_i."""
    multiplier, u = draws
    eps = float(check_epsilon(epsilon))
    budgets = np.minimum(eps * np.asarray(multiplier), two_layer_budget_cap(settings, eps))
    return rr_exact_apply(codes, u, budgets[..., None], domain_size=domain_size)


_INTEGER_BASIS = ("integer thresholds: U uniform on [0, 2^62), keep iff U < N_keep, else shift "
                  "1 + (U − N_keep) // q; P(keep)/P(other) = N_keep/q ≤ e^ε exactly "
                  "(q = ⌈2^62/(e^ε + |Γ|)⌉ computed exactly, N_keep = 2^62 − |Γ| q)")


class RRExact(RR):
    """RR (LDP-sparse Eq. 8) sampled with integer thresholds: what ``crowdpriv perturb rr``
    runs."""

    id = "rr-exact"
    label = "RR release (exact thresholds)"
    #: The privacy audit's claim (family of neighbours) of this sampler.
    CLAIM = "RR release (integer thresholds): ε-cell LDP (Eq. 8)"
    aliases = ()
    summary = "RR over Γ ∪ {NULL} (Eq. 8) with integer thresholds: the exact ε of the sampler"
    Settings = RRSettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    float_safe = True
    release_with = None

    def draw_spec(self, shape, settings, dtype):
        return ((shape, np.int64),)

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        return rr_exact_draws(codes, rng=rng, out=None if out is None else out[0])

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        return Perturbed(rr_exact_apply(codes, draws, epsilon, domain_size=domain_size),
                         domain_size)

    def channel(self, settings, epsilon, *, domain_size):
        return Channel(rr_exact_channel(epsilon, domain_size)[None], np.ones(1),
                       observes_null=True,
                       description=f"RR over Γ ∪ {{NULL}} (Eq. 8) with integer thresholds at "
                                   f"ε = {float(epsilon):g}")

    def exact_epsilon(self, settings, epsilon, domain_size) -> float:
        """ε* = ln(N_keep/q) per cell (≤ ε)."""
        return rr_exact_epsilon(epsilon, domain_size)

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        q, keep = rr_thresholds(float(epsilon), domain_size)
        return {"parameters": {"threshold_total": RR_TOTAL, "threshold_q": int(q),
                               "threshold_keep": int(keep)},
                "spent": {"exact_epsilon_per_cell": self.exact_epsilon(settings, epsilon,
                                                                       domain_size)}}

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered or NULL cell of a worker (ε-cell LDP)",
                       "LDP-sparse Sec. IV-B, Eq. 8, sampled with integer thresholds",
                       CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        record = self.exact_epsilon(settings, epsilon, domain_size)
        worker, _ = basic_composition(record, shape.tasks)
        return Guarantee(
            record_epsilon=record, record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the worker's {shape.tasks} released cells "
                        "(NULLs are symbols too)",
            ideal_record_epsilon=float(epsilon), float_safe=True,
            basis=f"Eq. 8 with {_INTEGER_BASIS}: ε* = ln(N_keep/q) = {record:.17g} (proved: "
                  "crowdpriv.mechanisms.rr_exact)",
            caveats=("a worker's row: ε adds up over every cell he releases",))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "LDP-sparse Eq. 8: randomized response over Γ ∪ {NULL}, sampled "
                           "with integer thresholds (no floating point)",
                "unit": "per answer (cell)",
                "sampler": _INTEGER_BASIS,
                "covers": ["a change of one cell of a worker's row, NULL included, with the "
                           "exact ε of the sampler (ln(N_keep/q) ≤ ε)"],
                "not_covered": ["a worker's whole answer vector: ε adds up over his cells"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from ..audit import Case

        k = int(domain_size)
        exact = self.exact_epsilon(settings, epsilon, k)
        return [
            Case("ldp_sparse", self.label, "one answered cell, 0 vs 1", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (0, 1)), exact_epsilon=exact,
                 discrete=True, note="integer thresholds: ε* = ln(N_keep/q)", family=self.CLAIM,
                 float_safe=True),
            Case("ldp_sparse", self.label, "one cell, NULL vs answered 0", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (k, 0)), exact_epsilon=exact,
                 discrete=True, note="integer thresholds: ε* = ln(N_keep/q)", family=self.CLAIM,
                 float_safe=True),
        ]

    def law(self, settings, epsilon, *, domain_size=None):
        k = int(domain_size)
        channel = rr_channel(epsilon, k)  # Eq. 8, written independently of the sampler

        def sample_from(code):
            def sample(rng, n):
                codes = np.full((n, 1), code, dtype=np.int8)
                out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
                return np.asarray(out.values).ravel().astype(np.int64)
            return sample

        return [LawCheck(f"input {'NULL' if c == k else c}: output distribution of Eq. 8",
                         sample_from(c), support=np.arange(k + 1), probabilities=channel[c])
                for c in (0, 1, k)]


class TwoLayerExact(TwoLayer):
    """2-Layer (LDP-sparse Sec. VI-D) with integer-threshold RR per worker: what ``crowdpriv
    perturb two-layer`` runs."""

    id = "two-layer-exact"
    label = "2-Layer release (exact thresholds)"
    #: The privacy audit's claim (family of neighbours) of this sampler.
    CLAIM = "2-Layer release (integer thresholds): compared at the plotted ε (Sec. VI-D)"
    aliases = ()
    summary = ("per-worker budget ε_i ~ U(0, 2ε), then RR over Γ ∪ {NULL} with integer "
               "thresholds")
    Settings = TwoLayerSettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    float_safe = True
    release_with = None

    def draw_spec(self, shape, settings, dtype):
        return ((shape[:-1], np.float64), (shape, np.int64))

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        return two_layer_exact_draws(codes, rng=rng, spread=settings.spread, out=out)

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        return Perturbed(two_layer_exact_apply(codes, draws, epsilon, settings,
                                               domain_size=domain_size), domain_size)

    def channel(self, settings, epsilon, *, domain_size):
        from .two_layer import two_layer_epsilon_grid

        cap = two_layer_budget_cap(settings, epsilon)
        nodes = np.minimum(two_layer_epsilon_grid(float(epsilon), settings.spread,
                                                  self.channel_grid), cap)
        return Channel(np.stack([rr_exact_channel(e, domain_size) for e in nodes]),
                       np.full(nodes.size, 1.0 / nodes.size), observes_null=True,
                       description=f"RR over Γ ∪ {{NULL}} with integer thresholds at a hidden "
                                   f"ε_i (grid of {nodes.size}), mean ε {float(epsilon):g}")

    def exact_epsilon(self, settings, epsilon, domain_size) -> float:
        """ε* of the worker with the largest budget: ln(N_keep/q) at ε (1 + s)."""
        return rr_exact_epsilon(two_layer_budget_cap(settings, epsilon), domain_size)

    def ledger_extra(self, settings, epsilon, *, domain_size=None):
        cap = two_layer_budget_cap(settings, epsilon)
        return {"parameters": {"threshold_total": RR_TOTAL, "largest_budget": cap},
                "spent": {"exact_epsilon_per_cell_worst_worker":
                          self.exact_epsilon(settings, epsilon, domain_size)}}

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered or NULL cell, on average over workers",
                       "LDP-sparse Sec. VI-D (2-Layer, after Li et al. KDD 2018), RR sampled "
                       "with integer thresholds", CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        cap = two_layer_budget_cap(settings, epsilon)
        record = self.exact_epsilon(settings, epsilon, domain_size)
        worker, _ = basic_composition(record, shape.tasks)
        return Guarantee(
            record_epsilon=record, record_delta=0.0,
            record_unit="answered or NULL cell of the worker with the largest ε_i",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the worker's {shape.tasks} released cells "
                        "(NULLs are symbols too), at the largest ε_i",
            ideal_record_epsilon=cap, float_safe=True,
            basis=f"RR (Eq. 8) at ε_i ≤ ε(1+s) = {cap:g} with {_INTEGER_BASIS}; the worst "
                  f"worker's ε* = ln(N_keep/q) = {record:.17g} (proved: "
                  "crowdpriv.mechanisms.rr_exact); the float64 budget multiplier is drawn "
                  "independently of the answers and capped at 1 + s, so it does not enter "
                  "the guarantee",
            caveats=("the average ε understates the worst worker by a factor 1 + s",
                     "a worker's row: ε_i adds up over every cell he releases"))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        cap = two_layer_budget_cap(settings, epsilon)
        return {"theorem": "Li et al. 2-Layer as adapted by LDP-sparse Sec. VI-D: each worker "
                           f"draws ε_i ~ U(ε(1−s), ε(1+s)) (s = {settings.spread:g}), then "
                           "randomized response over Γ ∪ {NULL} with integer thresholds",
                "unit": "per answer (cell), on average over workers",
                "sampler": _INTEGER_BASIS + ", per worker at ε_i",
                "covers": [f"a change of one cell of a worker's row: ε* ≤ "
                           f"{self.exact_epsilon(settings, epsilon, domain_size):.6g} for the "
                           "worker with the largest ε_i, exactly"],
                "not_covered": [f"a worker whose ε_i exceeds ε gets only ε_i-LDP (up to "
                                f"{cap:g})",
                                "a worker's whole answer vector: ε_i adds up over his cells"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from ..audit import Case
        from .two_layer import two_layer_exact_epsilon

        k = int(domain_size)
        mixture = two_layer_exact_epsilon(epsilon, k, settings.spread)
        cap = two_layer_budget_cap(settings, epsilon)
        worst = self.exact_epsilon(settings, epsilon, k)

        def largest(rng, n, which):
            codes = np.full((n, 1), 0 if which == "D" else 1, dtype=np.int8)
            draws = (np.full(n, 1.0 + settings.spread), rr_exact_draws(codes, rng=rng))
            out = self.apply(codes, draws, epsilon, settings, domain_size=k).values
            values = out.ravel().astype(np.float64)
            return np.where(values == k, -1.0, values)  # NULL as −1, as discrete_column

        return [
            Case("ldp_sparse", self.label,
                 f"one answered cell, 0 vs 1, at the plotted ε = {epsilon:g}", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (0, 1)), exact_epsilon=mixture,
                 discrete=True, family=self.CLAIM, float_safe=True,
                 note="per-worker ε_i ~ U(ε(1-s), ε(1+s)); the mixture over ε_i in exact "
                      "arithmetic (the integer thresholds move it by < 1e-15)"),
            Case("ldp_sparse", self.label,
                 f"one answered cell, 0 vs 1, of the worker with the largest ε_i = {cap:g}",
                 epsilon, 0.0, largest, exact_epsilon=worst, discrete=True, family=self.CLAIM,
                 float_safe=True,
                 note="integer thresholds at the largest ε_i: ε* = ln(N_keep/q)"),
        ]

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        k = int(domain_size)
        s = settings.spread

        def multipliers(rng, n):
            codes = np.zeros((n, 1), dtype=np.int8)  # pragma: no mutate (equivalent: drawn first, whatever the columns)
            mult, _ = self.draws(codes, settings, rng=rng, domain_size=k)
            return np.asarray(mult, dtype=np.float64).ravel()

        def cell(rng, n):
            codes = np.zeros((n, 1), dtype=np.int8)
            out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
            return np.asarray(out.values).ravel().astype(np.int64)

        checks = [LawCheck("answered cell 0: output marginalised over ε_i (Eq. 8)", cell,
                           support=np.arange(k + 1),
                           probabilities=two_layer_channel(epsilon, k, s)[0])]
        if s > 0:
            checks.insert(0, LawCheck("budget multiplier ε_i/ε ~ U(1 − s, 1 + s)", multipliers,
                                      cdf=stats.uniform(loc=1 - s, scale=2 * s).cdf))
        return checks
