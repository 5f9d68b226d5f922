"""LP: Laplace perturbation with NULL replacement (LDP-sparse Sec. IV-A, Eq. 6-7, Theorem 1).

Each NULL is replaced by v (uniform in Γ, the paper's experimental choice, or a constant of Γ),
then Lap(|Γ|/ε) noise is added to every cell, so the output is dense. The sampler draws its
noise as a difference of two float32 exponentials (:func:`._codes.laplace_noise`): fast, for
accuracy experiments; its floating-point output leaks through its support (Mironov 2012), so
a release runs :mod:`.lp_snapped` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_in_interval
from ._base import (
    Claimed,
    DataShape,
    Guarantee,
    LawCheck,
    Mechanism,
    Perturbed,
    basic_composition,
    setting,
)
from ._codes import answer_codes, check_epsilon, laplace_noise

__all__ = ["LP", "LPSettings", "lp_perturb", "lp_perturb_codes", "lp_draws", "lp_apply",
           "lp_cell_epsilon", "lp_null_exact_epsilon"]

#: Definition 2.1 of LDP-sparse: answer vectors that differ at one cell (NULL included: Sec.
#: III-B says NULL values must be protected too).
CELL_NEIGHBOURS = ("two answer vectors of one worker that differ at one cell, a NULL "
                   "included (LDP-sparse Definition 2.1 and Sec. III-B)")


@dataclass(frozen=True)
class LPSettings:
    """LP's settings. ``null_fill``: the NULL replacement v of Eq. 6, ``"uniform"`` in Γ
    (Sec. VI) or a constant label of Γ."""

    null_fill: str | float = setting("uniform", "NULL replacement v: 'uniform' in Γ or a label")

    def __post_init__(self):
        if isinstance(self.null_fill, str):
            if self.null_fill != "uniform":
                raise ParameterError("null_fill", self.null_fill,
                                     f"null_fill must be 'uniform' or a number in Γ, got "
                                     f"{self.null_fill!r}")
        else:
            check_in_interval("null_fill", self.null_fill, 0, np.inf)


def lp_perturb(answers, epsilon, *, rng, domain_size: int, null_fill="uniform", dtype=np.float32,
               checked: bool = False):
    """LP (Eq. 6-7) on a float answer matrix (``NaN`` = NULL); dense ``dtype`` output."""
    codes = answer_codes(answers, domain_size, checked=checked)
    return lp_perturb_codes(codes, epsilon, rng=rng, domain_size=domain_size, null_fill=null_fill,
                            dtype=dtype)


def lp_perturb_codes(codes, epsilon, *, rng, domain_size: int, null_fill="uniform",
                     dtype=np.float32):
    """:func:`lp_perturb` on label codes: :func:`lp_apply` of :func:`lp_draws`."""
    eps = float(check_epsilon(epsilon))
    draws = lp_draws(codes, rng=rng, domain_size=domain_size, null_fill=null_fill, dtype=dtype)
    return lp_apply(draws, eps, domain_size=domain_size)


def lp_draws(codes, *, rng, domain_size: int, null_fill="uniform", dtype=np.float32, out=None):
    """LP's ε-free draws for label codes: ``(filled, noise)``, the answer or (for NULL) its
    replacement v (``null_fill="uniform"``: uniform in Γ, drawn for every cell first; a number:
    that constant) and standard Laplace noise (:func:`laplace_noise` with scale 1). ``out``:
    two arrays of the codes' shape and ``dtype`` to fill (e.g. slices of a stack)."""
    c = np.asarray(codes)
    k = int(domain_size)
    if isinstance(null_fill, str):
        if null_fill != "uniform":
            raise ValueError(f"null_fill must be 'uniform' or a number in Γ, got {null_fill!r}")
        # the smallest integer type holding Γ: a quarter of the bytes (and time) of int64 draws
        fill = rng.integers(0, k, size=c.shape, dtype=np.min_scalar_type(k - 1))
        # c + [c = NULL]·(v − |Γ|): the answer, or v where NULL (integer arithmetic)
        replaced = np.multiply(c == k, fill.astype(c.dtype, copy=False) - c.dtype.type(k))
        replaced += c
    else:
        check_in_interval("null_fill", null_fill, 0, k - 1, closed_high=True)
        replaced = np.where(c == k, dtype(null_fill), c)
    filled, noise = out if out is not None else (np.empty(c.shape, dtype), None)
    np.copyto(filled, replaced)  # in the output's type once, for every ε
    return filled, laplace_noise(rng, c.shape, 1.0, dtype=dtype, out=noise)


#: Cells per slice of the whole-vector audit statistics of :meth:`LP.audit_cases`.
_AUDIT_SLICE = 1 << 16  # pragma: no mutate (equivalent: the slice size; same statistics)


def lp_apply(draws, epsilon, *, domain_size: int) -> np.ndarray:
    """LP's output at ε from :func:`lp_draws`: filled + (|Γ|/ε)·noise (Eq. 6-7), dense."""
    filled, noise = draws
    eps = float(check_epsilon(epsilon))
    out = np.multiply(noise, noise.dtype.type(int(domain_size) / eps))
    out += filled  # the answer (or its fill) plus the noise
    return out


def lp_cell_epsilon(epsilon: float, domain_size: int) -> float:
    """Exact ε of Lap(|Γ|/ε) between two answered cells at distance |Γ| − 1 (the range of
    Γ): (|Γ| − 1) ε / |Γ|, in exact arithmetic."""
    k = int(domain_size)
    return (k - 1) * float(epsilon) / k


def lp_null_exact_epsilon(epsilon: float, domain_size: int, answer: int,
                          null_fill="uniform") -> float:
    """Exact ε of LP (Eq. 6-7) between a NULL cell and a cell answered ``answer``.

    With a uniform fill, the NULL cell's output is the uniform mixture over v ∈ Γ of
    Lap(v, |Γ|/ε); its density ratio to Lap(answer, |Γ|/ε) is monotone on each side of Γ's
    range and bounded between, so the extremes are the limits x → ±∞:
    mean_v e^(±(v − answer) ε/|Γ|); ε is the largest log of either ratio or its inverse. With
    a constant fill v it is |v − answer| ε/|Γ|.
    """
    k = int(domain_size)
    b = k / float(epsilon)
    if not isinstance(null_fill, str):
        return abs(float(null_fill) - answer) / b
    v = np.arange(k)
    ratios = [np.mean(np.exp(s * (v - answer) / b)) for s in (1.0, -1.0)]
    return float(max(abs(np.log(r)) for r in ratios))


class LP(Mechanism):
    """LP (LDP-sparse Eq. 6-7): NULL → v, then Lap(|Γ|/ε) on every cell; dense output."""

    default_inference = "median"
    id = "lp"
    label = "LP"
    config_keys = {"lp_null_fill": "null_fill"}
    aliases = ("LP",)
    paper = "ldp_sparse"
    summary = "Laplace perturbation, NULL replaced by a label (LDP-sparse Eq. 6-7)"
    Settings = LPSettings
    parts = frozenset({"sweep", "stream", "audit", "law"})
    release_with = "lp-snapped"
    float_safe = False
    null_handling = "NULL replaced by a uniform label: every cell of a worker's row released"

    def draw_spec(self, shape, settings, dtype):
        return ((shape, dtype), (shape, dtype))

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        return lp_draws(codes, rng=rng, domain_size=domain_size, null_fill=settings.null_fill,
                        dtype=dtype, out=out)

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        return Perturbed(lp_apply(draws, epsilon, domain_size=domain_size), None)

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered cell of a worker (ε-cell LDP)",
                       "LDP-sparse Theorem 1 (Eq. 6-7)", CELL_NEIGHBOURS)

    def noise_variance(self, settings, epsilon, *, domain_size=None):
        """Lap(|Γ|/ε) on every cell (Eq. 6-7): variance 2(|Γ|/ε)²."""
        return 2.0 * (int(domain_size) / float(epsilon)) ** 2

    def ideal_cell_epsilon(self, settings, epsilon, domain_size) -> float:
        """The largest exact per-cell ε over the cell neighbours (two answers at distance
        |Γ| − 1; NULL against each answer), in exact arithmetic."""
        k = int(domain_size)
        null = max(lp_null_exact_epsilon(epsilon, k, a, settings.null_fill) for a in range(k))
        return max(lp_cell_epsilon(epsilon, k), null)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        ideal = self.ideal_cell_epsilon(settings, epsilon, domain_size)
        worker_ideal, _ = basic_composition(ideal, shape.tasks)
        return Guarantee(
            record_epsilon=float("inf"), record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=float("inf"), worker_delta=0.0,
            worker_rule=(f"basic composition over the worker's {shape.tasks} released cells "
                         f"(NULLs filled): {worker_ideal:.6g} in exact arithmetic"),
            ideal_record_epsilon=ideal, float_safe=False,
            basis=("Lap(|Γ|/ε) on a value range of |Γ| − 1: (|Γ| − 1)ε/|Γ| between answers; "
                   "the NULL fill's mixture against an answer (lp_null_exact_epsilon); the "
                   "float32 sampler E1 − E2 has input-dependent support (Mironov 2012): ε = ∞ "
                   "as run"),
            caveats=("the float32 output leaks through its support: a release uses lp-snapped",))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "LDP-sparse Theorem 1 (Eq. 6-7): Laplace noise Lap(|Γ|/ε) on every "
                           "cell, NULL replaced by a uniform label",
                "unit": "per answer (cell) of a worker",
                "covers": ["a change of one cell of a worker's row, NULL included"],
                "not_covered": ["a worker's whole answer vector: ε adds up over his cells "
                                "(n·ε for n tasks, NULL fills included)",
                                "the floating-point output of this sampler (use lp-snapped for "
                                "a release)"]}

    #: The family of the claim (Theorem 1) in the audit.
    CLAIM = "LP: ε-cell LDP (Theorem 1)"

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        """Definition 2.1's neighbours — a cell 0 vs |Γ|−1, a NULL vs an answer — and, outside
        it (composition shown beside), a worker's whole vector, with the released value and
        the likelihood ratio of the independent Laplace cells as statistics. The whole vector
        has ``shape.tasks`` cells, at most 2000 (the audit's cost), 20 without a ``shape``. The
        float32 sampler's support is tested apart (:func:`crowdpriv.audits.floating_point_rows`)."""
        from ..audit import Case

        k = int(domain_size)
        top = float(k - 1)
        scale = k / float(epsilon)

        def column(value):
            return answer_codes(np.full((1, 1), value, dtype=np.float32), k)[0, 0]

        def sample_cells(d_value, d2_value):
            def sample(rng, n, which):
                code = column(d_value if which == "D" else d2_value)
                codes = np.full((n, 1), code, dtype=np.int8)
                out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k,
                                   dtype=np.float32)
                return np.asarray(out.values).ravel()
            return sample

        def whole_vector(n_cells, likelihood_ratio):
            def sample(rng, n, which):
                value = 0 if which == "D" else k - 1
                codes = np.full((n, n_cells), value, dtype=np.int8)
                # perturb's draws, then its output and the statistic a few rows at a time
                # (elementwise, then per row: the same numbers as over all rows at once)
                filled, noise = self.draws(codes, settings, rng=rng, domain_size=k,
                                           dtype=np.float32)
                stat = np.empty(n)
                step = max(1, _AUDIT_SLICE // n_cells)
                for lo in range(0, n, step):
                    hi = min(lo + step, n)
                    out = self.apply(codes[lo:hi], (filled[lo:hi], noise[lo:hi]), epsilon,
                                     settings, domain_size=k).values.astype(np.float64)
                    if not likelihood_ratio:
                        stat[lo:hi] = out.mean(axis=1)
                    else:
                        # log Π Lap(o; 0, b) / Lap(o; |Γ|−1, b): the cells are independent
                        stat[lo:hi] = ((np.abs(out - top) - np.abs(out)) / scale).sum(axis=1)
                return stat
            return sample

        cells = min(shape.tasks, 2000) if shape is not None else 20
        whole = cells * lp_cell_epsilon(epsilon, k)
        return [
            Case("ldp_sparse", self.label, "one answered cell, 0 vs |Γ|-1", epsilon, 0.0,
                 sample_cells(0.0, top), exact_epsilon=lp_cell_epsilon(epsilon, k),
                 note="Lap(|Γ|/ε) on a value range of |Γ|-1", family=self.CLAIM),
            Case("ldp_sparse", self.label, "one cell, NULL vs answered 0", epsilon, 0.0,
                 sample_cells(np.nan, 0.0),
                 exact_epsilon=lp_null_exact_epsilon(epsilon, k, 0, settings.null_fill),
                 family=self.CLAIM),
            Case("ldp_sparse", self.label,
                 f"a worker's whole vector of {cells} cells, all 0 vs all |Γ|-1", epsilon, 0.0,
                 whole_vector(cells, False), exact_epsilon=whole, statistic="mean output",
                 claimed=False, family=self.CLAIM,
                 composition=f"{cells} cells × {lp_cell_epsilon(epsilon, k):.4g} = "
                             f"{whole:.4g}"),
            Case("ldp_sparse", self.label,
                 f"a worker's whole vector of {cells} cells, all 0 vs all |Γ|-1 (likelihood "
                 "ratio)", epsilon, 0.0, whole_vector(cells, True), exact_epsilon=whole,
                 statistic="log likelihood ratio", claimed=False, family=self.CLAIM,
                 composition=f"{cells} cells × {lp_cell_epsilon(epsilon, k):.4g} = "
                             f"{whole:.4g}"),
        ]

    def law(self, settings, epsilon, *, domain_size=None):
        from scipy import stats

        k = int(domain_size)
        scale = k / float(epsilon)

        def noise_of(value):
            def sample(rng, n):
                codes = np.full((n, 1), value, dtype=np.int8)
                out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
                return np.asarray(out.values, dtype=np.float64).ravel() - value
            return sample

        def null_sample(rng, n):
            codes = np.full((n, 1), k, dtype=np.int8)
            return np.asarray(self.perturb(codes, epsilon, settings, rng=rng,
                                           domain_size=k).values, dtype=np.float64).ravel()

        if isinstance(settings.null_fill, str):
            def null_cdf(x):
                return np.mean([stats.laplace.cdf(x, loc=v, scale=scale) for v in range(k)],
                               axis=0)
        else:
            def null_cdf(x):
                return stats.laplace.cdf(x, loc=float(settings.null_fill), scale=scale)
        return [
            LawCheck("answered cell: output − answer ~ Lap(|Γ|/ε)", noise_of(k - 1),
                     cdf=stats.laplace(scale=scale).cdf),
            LawCheck("NULL cell: v + Lap(|Γ|/ε), v ~ the fill", null_sample, cdf=null_cdf),
        ]
