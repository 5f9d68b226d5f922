"""2-Layer: the baseline of LDP-sparse Sec. VI-D (after Li et al., KDD 2018).

Each worker draws his own budget ε_i ~ U(ε(1 − s), ε(1 + s)) once (s = ``spread``; s = 1 gives
U(0, 2ε), "uniformly with mean ε"), then every cell of his row goes through RR with NULL as a
symbol (Eq. 8) at ε_i. The figures plot the mean ε; the worst worker gets ε(1 + s).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_in_interval, check_positive
from ._base import (
    Channel,
    Claimed,
    DataShape,
    Guarantee,
    LawCheck,
    Mechanism,
    Perturbed,
    basic_composition,
    setting,
)
from ._codes import answer_codes, codes_to_answers
from .lp import CELL_NEIGHBOURS
from .rr import discrete_column, rr_apply, rr_channel, rr_draws, rr_rounding_excess

__all__ = ["TwoLayer", "TwoLayerSettings", "two_layer_perturb", "two_layer_perturb_codes",
           "two_layer_draws", "two_layer_apply", "two_layer_exact_epsilon",
           "two_layer_channel", "two_layer_epsilon_grid"]


@dataclass(frozen=True)
class TwoLayerSettings:
    """``spread`` s: ε_i ~ U(ε(1 − s), ε(1 + s)); 1 (default) gives U(0, 2ε)."""

    spread: float = setting(1.0, "ε_i ~ U(ε(1−spread), ε(1+spread)) per worker")

    def __post_init__(self):
        check_in_interval("spread", self.spread, 0.0, 1.0, closed_high=True)


def two_layer_perturb(
    answers, epsilon, *, rng, domain_size: int, spread: float = 1.0, dtype=np.float32,
    checked: bool = False,
):
    """2-Layer on a float answer matrix (``NaN`` = NULL): per-worker ε_i, then RR (Eq. 8)."""
    codes = answer_codes(answers, domain_size, checked=checked)
    out = two_layer_perturb_codes(codes, epsilon, rng=rng, domain_size=domain_size, spread=spread)
    return codes_to_answers(out, domain_size, dtype=dtype)


def two_layer_perturb_codes(codes, epsilon, *, rng, domain_size: int, spread: float = 1.0,
                            dtype=np.float64) -> np.ndarray:
    """:func:`two_layer_perturb` on label codes; returns int8 codes: :func:`two_layer_apply`
    of :func:`two_layer_draws`."""
    draws = two_layer_draws(codes, rng=rng, spread=spread, dtype=dtype)
    return two_layer_apply(codes, draws, epsilon, domain_size=domain_size)


def two_layer_draws(codes, *, rng, spread: float = 1.0, dtype=np.float64, out=None):
    """2-Layer's ε-free draws: a budget multiplier per worker, U(1 − spread, 1 + spread)
    (ε_i = ε times it), then RR's uniforms (:func:`crowdpriv.mechanisms.rr.rr_draws`)."""
    c = np.asarray(codes)
    if c.ndim < 2:
        raise ValueError(f"answers must have at least 2 dimensions (workers x tasks), got {c.ndim}")
    spread = check_in_interval("spread", spread, 0.0, 1.0, closed_high=True)
    multiplier = rng.uniform(1.0 - spread, 1.0 + spread, size=c.shape[:-1])
    if out is not None:
        out[0][...] = multiplier
        multiplier = out[0]
    return multiplier, rr_draws(c, rng=rng, dtype=dtype, out=None if out is None else out[1])


def two_layer_apply(codes, draws, epsilon, *, domain_size: int) -> np.ndarray:
    """2-Layer's output at ε from :func:`two_layer_draws`: RR with ε_i = ε · multiplier_i."""
    multiplier, uniforms = draws
    eps = check_positive("epsilon", epsilon)
    return rr_apply(codes, uniforms, (eps * multiplier)[..., None], domain_size=domain_size)


def _mixture_integrals(lo: float, hi: float, k: float) -> tuple[float, float]:
    """``(∫ e^x/(k + e^x) dx, ∫ 1/(k + e^x) dx)`` over [lo, hi] (0 ≤ lo < hi): RR's keep and
    other-symbol probabilities (Eq. 8) integrated over ε_i, in closed form.

    The antiderivatives are ln(k + e^x) and −ln(1 + k e^{−x})/k; written as log1p of a
    difference that expm1 computes directly, neither loses digits to cancellation, whether the
    interval is narrow (spread → 0) or e^x ≫ k on it (large ε, where ``other`` is ~e^{−lo})::

        other = log1p(−k e^{−lo} expm1(lo − hi) / (1 + k e^{−hi})) / k
        keep  = log1p(expm1(hi − lo) / (1 + k e^{−lo}))    (= (hi − lo) − k · other)

    (the second form of ``keep`` where expm1 would overflow, hi − lo > 700).
    """
    d = hi - lo
    other = np.log1p(-k * np.exp(-lo) * np.expm1(-d) / (1.0 + k * np.exp(-hi))) / k
    if d <= 700.0:  # pragma: no mutate (equivalent: < moves only d = 700, where both agree)
        keep = np.log1p(np.expm1(d) / (1.0 + k * np.exp(-lo)))
    else:
        keep = d - k * other
    return float(keep), float(other)


def two_layer_exact_epsilon(epsilon: float, domain_size: int, spread: float = 1.0) -> float:
    """Exact ε per cell of the 2-Layer baseline for an adversary who does not know ε_i: RR
    (Eq. 8) at ε_i ~ U(ε(1−s), ε(1+s)) drawn once per worker. A cell's output is the mixture
    over ε_i, so the largest ratio of output probabilities is
    E[e^ε_i/(|Γ|+e^ε_i)] / E[1/(|Γ|+e^ε_i)] (keep vs one other symbol), both expectations in
    closed form (:func:`_mixture_integrals`)."""
    lo, hi = epsilon * (1 - spread), epsilon * (1 + spread)
    if hi - lo <= 0:
        return float(epsilon)
    keep, other = _mixture_integrals(lo, hi, float(domain_size))
    return float(np.log(keep) - np.log(other))


def two_layer_channel(epsilon: float, domain_size: int, spread: float = 1.0) -> np.ndarray:
    """A cell's channel P[output | input] marginalised over ε_i ~ U(ε(1−s), ε(1+s)): the mean
    of Eq. 8's channel over ε_i (closed form, :func:`_mixture_integrals`)."""
    lo, hi = epsilon * (1 - spread), epsilon * (1 + spread)
    if hi - lo <= 0:
        return rr_channel(epsilon, domain_size)
    k = float(domain_size)
    keep, other = _mixture_integrals(lo, hi, k)
    out = np.full((int(k) + 1, int(k) + 1), other / (hi - lo))
    np.fill_diagonal(out, keep / (hi - lo))
    return out


def two_layer_epsilon_grid(epsilon: float, spread: float = 1.0, n_grid: int = 16) -> np.ndarray:
    """``n_grid`` midpoints of equal cells of ε_i's support [ε(1 − s), ε(1 + s)]: the midpoint
    rule for the uniform law of the hidden per-worker budget (the discrete prior that
    mechanism-aware inference puts a per-worker posterior on; ε_i = 0, pure noise, is never a
    node)."""
    lo, hi = epsilon * (1 - spread), epsilon * (1 + spread)
    return lo + (np.arange(n_grid) + 0.5) * (hi - lo) / n_grid


class TwoLayer(Mechanism):
    """2-Layer (LDP-sparse Sec. VI-D): per-worker ε_i ~ U(ε(1−s), ε(1+s)), then RR (Eq. 8)."""

    default_inference = "aware-one-coin-ds"
    id = "two-layer"
    label = "2-Layer"
    config_keys = {"two_layer_spread": "spread"}
    aliases = ("2-Layer",)
    paper = "ldp_sparse"
    summary = "per-worker budget ε_i ~ U(0, 2ε), then RR over Γ ∪ {NULL} (Sec. VI-D)"
    Settings = TwoLayerSettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    float_safe = False
    releases_labels = True
    release_with = "two-layer-exact"
    null_handling = ("NULL is one more symbol: every cell of a worker's row goes through RR at "
                     "his ε_i (NULL outputs are omitted from the release)")

    def draw_spec(self, shape, settings, dtype):
        return ((shape[:-1], np.float64), (shape, dtype))

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        return two_layer_draws(codes, rng=rng, spread=settings.spread, dtype=dtype, out=out)

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        return Perturbed(two_layer_apply(codes, draws, epsilon, domain_size=domain_size),
                         domain_size)

    def worst_epsilon(self, settings, epsilon) -> float:
        """The supremum of the budget distribution, ε(1 + s): what the worst worker gets."""
        return float(epsilon) * (1.0 + settings.spread)

    #: Grid points of the hidden ε_i in :meth:`channel` (midpoint rule).
    channel_grid = 16

    def channel(self, settings, epsilon, *, domain_size):
        nodes = two_layer_epsilon_grid(float(epsilon), settings.spread, self.channel_grid)
        return Channel(np.stack([rr_channel(e, domain_size) for e in nodes]),
                       np.full(nodes.size, 1.0 / nodes.size), observes_null=True,
                       description=f"RR over Γ ∪ {{NULL}} at a hidden ε_i ~ U({nodes[0]:g}.."
                                   f"{nodes[-1]:g} grid of {nodes.size}), mean ε "
                                   f"{float(epsilon):g}")

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered or NULL cell, on average over workers",
                       "LDP-sparse Sec. VI-D (2-Layer, after Li et al. KDD 2018): compared at "
                       "the same ε, each worker's ε_i drawn uniformly with mean ε",
                       CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        worst = self.worst_epsilon(settings, epsilon)
        worker, _ = basic_composition(worst, shape.tasks)
        return Guarantee(
            record_epsilon=worst, record_delta=0.0,
            record_unit="answered or NULL cell of the worker with the largest ε_i",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the worker's {shape.tasks} released cells "
                        "(NULLs are symbols too), at the largest ε_i",
            ideal_record_epsilon=worst, float_safe=False,
            basis=f"RR (Eq. 8) at ε_i; ε_i ~ U(ε(1−s), ε(1+s)) has supremum ε(1+s) = {worst:g}; "
                  "a worker knows his own ε_i, and an adversary who learns it sees RR at "
                  "ε_i (the mixture over ε_i, two_layer_exact_epsilon, is smaller)",
            caveats=("the average ε understates the worst worker by a factor 1 + s",
                     "a worker's row: ε_i adds up over every cell he releases"),
            rounding_excess=rr_rounding_excess(worst, domain_size))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "Li et al. 2-Layer as adapted by LDP-sparse Sec. VI-D: each worker "
                           f"draws ε_i ~ U(ε(1−s), ε(1+s)) (s = {settings.spread:g}), then "
                           "randomized response over Γ ∪ {NULL}",
                "unit": "per answer (cell), on average over workers",
                "covers": [f"a change of one cell of a worker's row: ε_i ≤ "
                           f"{self.worst_epsilon(settings, epsilon):g}"],
                "not_covered": [f"a worker whose ε_i exceeds ε gets only ε_i-LDP (up to "
                                f"{self.worst_epsilon(settings, epsilon):g})",
                                "a worker's whole answer vector: ε_i adds up over his cells"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from ..audit import Case

        k = int(domain_size)
        mixture = two_layer_exact_epsilon(epsilon, k, settings.spread)
        worst = self.worst_epsilon(settings, epsilon)

        def largest(rng, n, which):
            codes = np.full((n, 1), 0 if which == "D" else 1, dtype=np.int8)
            uniforms = rr_draws(codes, rng=rng, dtype=np.float64)
            draws = (np.full(n, 1.0 + settings.spread), uniforms)
            out = self.apply(codes, draws, epsilon, settings, domain_size=k).values
            values = out.ravel().astype(np.float64)
            return np.where(values == k, -1.0, values)  # NULL as −1, as discrete_column

        family = "2-Layer: compared at the plotted ε (Sec. VI-D)"
        return [
            Case("ldp_sparse", self.label,
                 f"one answered cell, 0 vs 1, at the plotted ε = {epsilon:g}", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (0, 1)), exact_epsilon=mixture,
                 discrete=True,
                 note="per-worker ε_i ~ U(ε(1-s), ε(1+s)); the figure plots the mean ε",
                 family=family),
            Case("ldp_sparse", self.label,
                 f"one cell, NULL vs answered 0, at the plotted ε = {epsilon:g}", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (k, 0)), exact_epsilon=mixture,
                 discrete=True,
                 note="NULL is one more RR symbol: the same mixture as an answered cell",
                 family=family),
            Case("ldp_sparse", self.label,
                 f"one answered cell, 0 vs 1, of the worker with the largest ε_i = {worst:g}",
                 epsilon, 0.0, largest, exact_epsilon=worst, discrete=True,
                 note="a worker knows his own ε_i; the figure plots the mean ε", family=family),
        ]

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        k = int(domain_size)
        s = settings.spread

        def multipliers(rng, n):
            codes = np.zeros((n, 1), dtype=np.int8)  # pragma: no mutate  (equivalent: one multiplier per row, whatever the number of tasks)
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
