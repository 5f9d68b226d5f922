"""Statistical decisions for comparative claims, on paired per-repetition margins.

Every comparative claim ("A beats B", "A grows with x", "A stays below 0.5") is reduced, in each
*cell* it speaks about (a dataset, a sweep point, ...), to one **margin per repetition** whose
sign says whether that repetition agrees with the claim: ``ISE(B) - ISE(A)`` for "A beats B" on
ISE, ``y(x2) - y(x1)`` for "y grows from x1 to x2", ``0.5 - y`` for "y stays below 0.5".
Margins are paired: both sides of a difference come from the same repetition (same data and
seed stream) where the experiment pairs them.

One cell is decided by a one-sided test at level ``alpha`` (config ``claims``):

``sign`` (default)
    Exact binomial sign test of P(margin > 0) against 1/2. Ties (margin exactly 0) count against
    the claim: a strict statement ("more iterations") is not supported by equal values. The
    effect is the median margin with its distribution-free order-statistic bounds.
``t``
    Paired t-test of the mean margin; the effect is the mean with its t bounds.

The cell ``holds`` when its test rejects "no effect or the other way" at ``alpha``; it ``fails``
when the opposite one-sided test rejects at ``alpha_fails``; otherwise it is ``inconclusive``.
A claim over several cells is decided by :func:`decide_every` (intersection-union: it holds only
if every cell holds, each at ``alpha``, which keeps the level ``alpha`` without correction; it
fails if any cell fails at ``alpha / k``, Bonferroni over the k cells) or :func:`decide_most`
(for "in most settings"). With the sign test a cell needs at least ``ceil(log2(1 / alpha))``
repetitions before it can hold: fewer gives ``inconclusive``, which is an honest answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .claims import Verdict

def _stats():
    """scipy.stats, imported on first use (~1.2 s per job): only the t-test needs it."""
    from scipy import stats

    return stats


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(Bin(n, p) <= k) by direct summation; exact (integer arithmetic) for p = 1/2.

    The sign test's and the rate test's tails, without importing scipy.stats in every claims
    job: n is a number of repetitions (tens to hundreds), so the sum is short.
    """
    k, n = int(k), int(n)
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p == 0.5:
        return sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    q = 1.0 - p
    return min(1.0, math.fsum(math.comb(n, i) * p**i * q ** (n - i) for i in range(k + 1)))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(Bin(n, p) > k) (exact for p = 1/2, see :func:`binom_cdf`)."""
    k, n = int(k), int(n)
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    if p == 0.5:
        return sum(math.comb(n, i) for i in range(k + 1, n + 1)) / 2**n
    q = 1.0 - p
    return min(1.0, math.fsum(math.comb(n, i) * p**i * q ** (n - i) for i in range(k + 1, n + 1)))


def clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    """One-sided Clopper-Pearson upper bound of a rate: the u with P(Bin(n, u) <= k) = alpha
    (the Beta(k + 1, n − k) quantile 1 − alpha), by bisection; 1 when k = n."""
    if k >= n:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(80):  # the cdf falls in u: halve the bracket to below 1e-16
        mid = 0.5 * (lo + hi)
        if binom_cdf(k, n, mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


__all__ = [
    "TESTS",
    "Significance",
    "CellTest",
    "decide_cell",
    "decide_every",
    "decide_most",
    "decide_rate",
    "decide_equivalent",
    "format_number",
    "cell_label",
    "paired",
]

TESTS = ("sign", "t")


def format_number(x: float) -> str:
    """Three significant digits, the one number format of verdict evidence."""
    return f"{x:.3g}"


@dataclass(frozen=True)
class Significance:
    """Which test decides a comparative claim and at which level (config ``claims``)."""

    test: str = "sign"
    alpha: float = 0.05

    def __post_init__(self):
        if self.test not in TESTS:
            raise ValueError(f"claims.test must be one of {TESTS}, got {self.test!r}")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"claims.alpha must lie in (0, 0.5), got {self.alpha!r}")

    @classmethod
    def from_mapping(cls, mapping: Mapping) -> Significance:
        """From the config block ``claims`` (keys ``test`` and ``alpha``)."""
        return cls(test=mapping["test"], alpha=float(mapping["alpha"]))

    def min_repetitions(self, alpha: float) -> int:
        """Fewest repetitions with which one cell can reject at level ``alpha``.

        Sign test: all n margins on one side has p = 2^-n, so n >= log2(1 / alpha). t-test: 2.
        """
        if self.test == "sign":
            return math.ceil(math.log2(1.0 / alpha) - 1e-12)  # pragma: no mutate (any tiny slack)
        return 2

    def describe(self) -> str:
        if self.test == "sign":
            return (f"one-sided sign test per cell (P(margin > 0) vs 1/2, ties against the "
                    f"claim; effect = median margin), α = {self.alpha:g}")
        return f"one-sided paired t-test per cell (effect = mean margin), α = {self.alpha:g}"


@dataclass(frozen=True)
class CellTest:
    """The decision for one cell of a claim and what it rests on."""

    label: str
    n: int
    wins: int
    effect: float
    low: float
    high: float
    p_holds: float
    p_fails: float
    status: str

    def describe(self, coverage: float) -> str:
        """``label: effect [low, high] (90% CI), wins/n > 0: status``."""
        f = format_number
        return (f"{self.label}: {f(self.effect)} [{f(self.low)}, {f(self.high)}] "
                f"({coverage:.0%} CI), {self.wins}/{self.n} > 0: {self.status}")


def _median_bounds(d: np.ndarray, alpha: float) -> tuple[float, float]:
    """Order-statistic bounds of the median, each one-sided at level ``alpha``.

    The lower bound is d_(k), the k-th smallest margin, for the largest k with
    P(Bin(n, 1/2) <= k - 1) <= alpha (so "lower bound > 0" is exactly the sign test's
    rejection); the upper bound is d_(n - k + 1). Infinite when n is too small.
    """
    n = d.size
    k = np.arange(n + 1)  # pragma: no mutate (k = n never qualifies for alpha < 1/2)
    ok = np.array([binom_cdf(j - 1, n, 0.5) for j in k]) <= alpha
    kmax = int(k[ok].max())
    if kmax == 0:
        return -math.inf, math.inf
    s = np.sort(d)
    return float(s[kmax - 1]), float(s[n - kmax])


def decide_cell(label: str, margins, significance: Significance, *, alpha_fails: float) -> CellTest:
    """Decide one cell from its per-repetition margins (positive = agrees with the claim).

    Parameters
    ----------
    label : str
        The cell's name in the evidence (e.g. ``"sparsity 0.9, ε 1"``).
    margins : array_like
        One margin per repetition; NaN is an error (a missing repetition is never dropped
        silently).
    significance : Significance
    alpha_fails : float
        Level of the opposite test (``alpha / k`` inside a claim over k cells).
    """
    d = np.asarray(margins, dtype=float).ravel()
    if np.isnan(d).any():
        raise ValueError(f"{label}: a repetition has no value (NaN margin)")
    n = d.size
    if n == 0:
        return CellTest(label, 0, 0, math.nan, -math.inf, math.inf, 1.0, 1.0, "not testable")
    alpha = significance.alpha
    wins = int((d > 0).sum())
    if significance.test == "sign":
        p_holds = binom_sf(wins - 1, n, 0.5)
        p_fails = binom_cdf(wins, n, 0.5)
        effect = float(np.median(d))
        low, high = _median_bounds(d, alpha)
    else:
        effect = float(d.mean())
        if n < 2:
            p_holds, p_fails, low, high = 1.0, 1.0, -math.inf, math.inf
        else:
            se = float(d.std(ddof=1)) / math.sqrt(n)
            if se == 0.0:  # every margin equal: the sign of the common value decides
                p_holds = 0.0 if effect > 0 else 1.0
                p_fails = 1.0 - p_holds
                low = high = effect
            else:
                t = effect / se
                p_holds = float(_stats().t.sf(t, n - 1))
                p_fails = float(_stats().t.cdf(t, n - 1))
                q = float(_stats().t.ppf(1.0 - alpha, n - 1))
                low, high = effect - q * se, effect + q * se
    if p_holds <= alpha:
        status = "holds"
    elif p_fails <= alpha_fails:
        status = "fails"
    else:
        status = "inconclusive"
    return CellTest(label, n, wins, effect, low, high, p_holds, p_fails, status)


def _test_all(cells: Mapping[str, object], significance: Significance) -> list[CellTest]:
    if not cells:
        raise ValueError("a claim needs at least one cell")
    alpha_fails = significance.alpha / len(cells)
    return [decide_cell(str(label), d, significance, alpha_fails=alpha_fails)
            for label, d in cells.items()]


def _basis(significance: Significance, margin: str, rule: str, k: int) -> str:
    a = significance.alpha
    return (f"{significance.describe()}; margin per repetition = {margin}; {rule}; "
            f"fails if a cell goes the other way at α/k = {a / k:.3g} (Bonferroni, k = {k}); "
            f"a cell can hold from R ≥ {significance.min_repetitions(a)} and fail from "
            f"R ≥ {significance.min_repetitions(a / k)}")


def _evidence(tests: list[CellTest], significance: Significance) -> str:
    coverage = 1.0 - 2.0 * significance.alpha
    return "; ".join(t.describe(coverage) for t in tests)


def _every(statuses: list[str]) -> str:
    """Intersection-union: holds if every cell holds, fails if any fails, else inconclusive."""
    if all(s == "holds" for s in statuses):
        return "holds"
    return "fails" if "fails" in statuses else "inconclusive"


def decide_every(cells: Mapping[str, object], significance: Significance, *, margin: str,
                 data: str = "") -> Verdict:
    """A claim that must hold in every cell (intersection-union).

    ``holds`` if every cell holds; ``fails`` if any cell fails (at ``alpha / k``);
    ``inconclusive`` otherwise. ``margin`` says in words what each margin is.
    """
    tests = _test_all(cells, significance)
    status = _every([t.status for t in tests])
    rule = f"holds only if every one of the k = {len(tests)} cells holds (intersection-union)"
    return Verdict(status, _basis(significance, margin, rule, len(tests)),
                   _evidence(tests, significance), data)


def decide_most(cells: Mapping[str, object], significance: Significance, *, margin: str,
                quota: float, data: str = "") -> Verdict:
    """A claim that must hold in more than a share ``quota`` of the cells ("in most settings").

    ``holds`` if more than ``quota * k`` cells hold; ``fails`` if so many cells fail that no
    outcome of the others could get there; ``inconclusive`` otherwise.
    """
    if not 0 <= quota < 1:
        raise ValueError(f"quota must lie in [0, 1), got {quota!r}")
    tests = _test_all(cells, significance)
    k = len(tests)
    n_holds = sum(t.status == "holds" for t in tests)
    n_fails = sum(t.status == "fails" for t in tests)
    if n_holds > quota * k:
        status = "holds"
    elif k - n_fails <= quota * k:
        status = "fails"
    else:
        status = "inconclusive"
    rule = (f"holds if more than {quota:.0%} of the k = {k} cells hold ({n_holds} hold, "
            f"{n_fails} fail)")
    return Verdict(status, _basis(significance, margin, rule, k), _evidence(tests, significance),
                   data)


def decide_equivalent(cells: Mapping[str, object], significance: Significance, *,
                      tolerance: float, difference: str, data: str = "") -> Verdict:
    """A claim that two things do not differ ("insensitive", "keeps the same", "comparable").

    Per cell, the per-repetition differences d are judged by two one-sided tests (TOST): the
    cell ``holds`` if both ``tolerance - d`` and ``tolerance + d`` are significantly positive
    (the typical difference lies within ±tolerance), ``fails`` if either is significantly
    negative (it lies beyond), and is ``inconclusive`` otherwise. The claim holds only if
    every cell holds. ``tolerance`` is in the units of d; ``difference`` says what d is.
    """
    if not tolerance > 0:
        raise ValueError(f"tolerance must be > 0, got {tolerance!r}")
    if not cells:
        raise ValueError("a claim needs at least one cell")
    k = len(cells)
    alpha_fails = significance.alpha / k
    coverage = 1.0 - 2.0 * significance.alpha
    parts, statuses = [], []
    for label, values in cells.items():
        d = np.asarray(values, dtype=float).ravel()
        upper = decide_cell(f"{label} (d < +tol)", tolerance - d, significance,
                            alpha_fails=alpha_fails)
        lower = decide_cell(f"{label} (d > -tol)", tolerance + d, significance,
                            alpha_fails=alpha_fails)
        pair = {upper.status, lower.status}
        status = ("holds" if pair == {"holds"} else "fails" if "fails" in pair
                  else "not testable" if "not testable" in pair else "inconclusive")
        statuses.append(status)
        centre = decide_cell(label, d, significance, alpha_fails=alpha_fails)
        parts.append(f"{label}: d {format_number(centre.effect)} [{format_number(centre.low)}, "
                     f"{format_number(centre.high)}] ({coverage:.0%} CI), n {centre.n}, "
                     f"within ±{format_number(tolerance)}: {status}")
    status = _every(statuses)
    a = significance.alpha
    basis = (f"{significance.describe()}, as two one-sided tests of equivalence per cell "
             f"(TOST: the typical d = {difference} lies within ±{format_number(tolerance)}); "
             f"holds only if every one of the k = {k} cells holds (intersection-union); fails "
             f"if a cell lies beyond the tolerance at α/k = {a / k:.3g}; a cell can hold from "
             f"R ≥ {significance.min_repetitions(a)}")
    return Verdict(status, basis, "; ".join(parts), data)


def decide_rate(cells: Mapping[str, object], significance: Significance, *, bound: float,
                event: str, data: str = "") -> Verdict:
    """A claim that an event has probability at most ``bound`` in every cell.

    For statements like PPTD Theorem 4.3's Pr{MAE >= α} <= β, which bound a tail probability
    rather than a typical value. Per cell, the k repetitions (of n) in which ``event`` happened
    are judged by an exact binomial test: the cell ``holds`` if P(Bin(n, bound) <= k) <= alpha
    (the rate is significantly below the bound), ``fails`` if P(Bin(n, bound) >= k) <=
    alpha / cells, and is ``inconclusive`` otherwise; the claim holds only if every cell holds.
    The evidence gives k/n with the one-sided Clopper-Pearson upper bound of the rate.

    ``cells`` maps a label to a boolean array (True = the event happened in that repetition).
    """
    if not 0 < bound < 1:
        raise ValueError(f"bound must lie in (0, 1), got {bound!r}")
    if not cells:
        raise ValueError("a claim needs at least one cell")
    alpha, k_cells = significance.alpha, len(cells)
    parts, statuses = [], []
    for label, happened in cells.items():
        x = np.asarray(happened, dtype=bool).ravel()
        n, k = x.size, int(x.sum())
        if binom_cdf(k, n, bound) <= alpha:
            status = "holds"
        elif binom_sf(k - 1, n, bound) <= alpha / k_cells:
            status = "fails"
        else:
            status = "inconclusive"
        upper = clopper_pearson_upper(k, n, alpha)
        statuses.append(status)
        parts.append(f"{label}: {k}/{n} with {event} (rate <= {format_number(upper)} at "
                     f"{1 - alpha:.0%}): {status}")
    status = _every(statuses)
    min_n = math.ceil(math.log(alpha) / math.log(1 - bound) - 1e-12)  # pragma: no mutate (slack)
    basis = (f"exact one-sided binomial test per cell of the share of repetitions with {event} "
             f"against {bound:g}, α = {alpha:g}; holds only if every one of the k = {k_cells} "
             f"cells holds (intersection-union); fails if a cell exceeds it at α/k = "
             f"{alpha / k_cells:.3g}; a cell can hold from R ≥ {min_n}")
    return Verdict(status, basis, "; ".join(parts), data)


def _value_text(value: object) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


#: How key names read in a cell label.
_LABELS = {"epsilon": "ε"}


def cell_label(names: tuple | list, values: tuple | list) -> str:
    """``"sparsity 0.9, ε 0.1"`` from the cell's key names and values."""
    return ", ".join(f"{_LABELS.get(n, n)} {_value_text(v)}" for n, v in zip(names, values))


def paired(df, cells: list[str], *, across: str, value: str, rep: str = "rep") -> dict:
    """Per cell, a repetitions x ``across`` table of ``value`` (the pairs a margin is built from).

    ``df`` is a long per-repetition table. Cells are the groups of ``cells`` and columns the
    values of ``across``, both in order of appearance (an empty list of cells gives one cell
    labelled "all"). A missing repetition is an error, not a silently smaller sample.
    """
    groups = df.groupby(cells, sort=False) if cells else [((), df)]
    out = {}
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = cell_label(cells, key) if cells else "all"
        out[label] = _pivot(g, label, rep=rep, across=across, value=value)
    return out


def _pivot(g, label: str, *, rep: str, across: str, value: str):
    """``g.pivot(index=rep, columns=across, values=value)`` with the columns in order of
    appearance, built with numpy (the pandas pivot dominated the claims jobs: hundreds of
    cells); a duplicate or a missing (repetition, ``across``) pair is an error."""
    import pandas as pd

    reps, where_rep = np.unique(g[rep].to_numpy(), return_inverse=True)  # sorted, as pivot
    order = pd.Index(list(dict.fromkeys(g[across])), name=across)  # order of appearance
    where_col = order.get_indexer(g[across])
    values = g[value].to_numpy()
    flat = where_rep * len(order) + where_col
    if np.unique(flat).size != flat.size:
        raise ValueError(f"{label}: a repetition has two values of {value} for one {across}")
    if flat.size != reps.size * len(order) or pd.isna(values).any():
        raise ValueError(f"{label}: some {across} lack a value for some repetition")
    table = np.empty(reps.size * len(order), dtype=values.dtype)
    table[flat] = values
    return pd.DataFrame(table.reshape(reps.size, len(order)),
                        index=pd.Index(reps, name=rep), columns=order)
