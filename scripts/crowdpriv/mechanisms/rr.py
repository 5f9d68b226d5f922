"""RR: randomized response with NULL as one more symbol (LDP-sparse Sec. IV-B, Eq. 8).

A cell keeps its symbol with probability e^ε/(|Γ|+e^ε); otherwise it becomes one of the |Γ|
other symbols of Γ ∪ {NULL}, uniformly. NULL may become an answer and vice versa, so every
cell of a worker's row is released.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import check_int_at_least
from ._base import (
    Channel,
    Claimed,
    DataShape,
    Guarantee,
    LawCheck,
    Mechanism,
    Perturbed,
    basic_composition,
)
from ._codes import answer_codes, check_epsilon, codes_to_answers
from .lp import CELL_NEIGHBOURS

__all__ = ["RR", "RRSettings", "rr_keep_probability", "rr_perturb", "rr_perturb_codes",
           "rr_draws", "rr_apply", "rr_channel", "rr_rounding_excess"]


@dataclass(frozen=True)
class RRSettings:
    """RR has no settings: its channel follows from ε and |Γ| (Eq. 8)."""


def rr_keep_probability(epsilon, domain_size: int):
    """Probability that RR keeps a symbol, e^ε/(|Γ| + e^ε) (LDP-sparse Eq. 8).

    Each of the |Γ| other symbols of Γ ∪ {NULL} is output with probability 1/(|Γ| + e^ε).
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    # e^ε/(|Γ|+e^ε) written as 1/(1 + |Γ| e^(−ε)) so that a huge ε does not overflow.
    return 1.0 / (1.0 + k * np.exp(-check_epsilon(epsilon)))


def rr_channel(epsilon: float, domain_size: int) -> np.ndarray:
    """RR's channel P[output | input] over the codes 0 .. |Γ| (|Γ| = NULL), written from Eq. 8
    directly (independently of the sampler): e^ε/(|Γ|+e^ε) on the diagonal, 1/(|Γ|+e^ε)
    elsewhere."""
    k = int(domain_size)
    e = np.exp(float(epsilon))
    out = np.full((k + 1, k + 1), 1.0 / (k + e))
    np.fill_diagonal(out, e / (k + e))
    return out


def rr_rounding_excess(epsilon: float, domain_size: int, *, uniform_bits: int = 53) -> float:
    """An estimate (not a proof) of how far floating point moves RR's ε as sampled by
    :func:`rr_apply`: each output's probability is the length of an interval of the uniform's
    grid (2^−53 for float64 draws, 2^−24 for float32) whose ends are computed in floating
    point, so it is off by a few grid steps (4 taken here); the ratio keep/other then moves by
    about 4·step/P(other). ∞ when P(other) is below that (the keep probability rounds to 1)."""
    k = int(domain_size)
    step = 4.0 * 2.0 ** -uniform_bits
    keep = float(rr_keep_probability(epsilon, k))
    other = (1.0 - keep) / k
    if other <= step:
        return float("inf")
    return float(np.log1p(step / keep) - np.log1p(-step / other))


def rr_perturb(answers, epsilon, *, rng, domain_size: int, dtype=np.float32,
               checked: bool = False):
    """RR (Eq. 8) on a float answer matrix (``NaN`` = NULL); ``epsilon`` may be per worker,
    broadcastable to ``(..., m, 1)`` (2-Layer). Returns floats with ``NaN`` for NULL."""
    codes = answer_codes(answers, domain_size, checked=checked)
    out = rr_perturb_codes(codes, epsilon, rng=rng, domain_size=domain_size)
    return codes_to_answers(out, domain_size, dtype=dtype)


def rr_perturb_codes(codes, epsilon, *, rng, domain_size: int, dtype=np.float64) -> np.ndarray:
    """:func:`rr_perturb` on label codes; returns int8 codes: :func:`rr_apply` of
    :func:`rr_draws` (uniforms in ``dtype``: float64 by default, so every output probability
    is exact to about 1e-16)."""
    return rr_apply(codes, rr_draws(codes, rng=rng, dtype=dtype), epsilon, domain_size=domain_size)


def rr_draws(codes, *, rng, dtype=np.float64, out=None) -> np.ndarray:
    """RR's ε-free draws: one uniform on [0, 1) per cell (float32 halves the cost; its 2⁻²⁴
    grid moves each output probability by about 1e-7, for accuracy experiments). ``out``: an
    array of the codes' shape and ``dtype`` to fill."""
    if out is not None:
        return rng.random(dtype=dtype, out=out)
    return rng.random(np.shape(codes), dtype=dtype)


def rr_apply(codes, uniforms, epsilon, *, domain_size: int) -> np.ndarray:
    """RR's output symbols at ε from :func:`rr_draws` (LDP-sparse Eq. 8), int8 codes.

    A cell keeps its symbol x when its uniform u < p = e^ε/(|Γ|+e^ε); otherwise
    s = 1 + ⌊(u − p)/(1 − p)·|Γ|⌋ ∈ {1, …, |Γ|} (uniform given u ≥ p) and it becomes
    (x + s) mod (|Γ| + 1): each of the |Γ| other symbols of Γ ∪ {NULL} with probability
    1/(|Γ|+e^ε). ``epsilon`` may be per worker, broadcastable to ``(..., m, 1)`` (2-Layer).
    """
    c = np.asarray(codes)
    u = np.asarray(uniforms)
    if u.shape != c.shape:
        raise ValueError(f"uniforms must have the shape of the codes {c.shape}, got {u.shape}")
    k = int(domain_size)
    keep = rr_keep_probability(epsilon, k)
    p = np.asarray(keep, dtype=u.dtype)
    # |Γ|/(1 − p), capped: where p rounds to 1 in u's type nothing flips whatever the scale
    scale = np.asarray(np.minimum(k / np.maximum(1.0 - keep, 1e-300), 1e30), dtype=u.dtype)
    out = np.empty(c.shape, dtype=np.int8)
    per_cell = p.ndim and p.shape[-1] != 1
    if c.ndim < 1 or c.size == 0 or per_cell:
        # the scratch allocated here: numpy gives a scalar, not an array, for 0-d operands
        _rr_symbols(c, u, p, scale, k, out, np.empty(np.broadcast_shapes(u.shape, p.shape),
                                                     dtype=u.dtype))
        return out
    # a few rows at a time: the float temporaries stay in cache (the same operations on each
    # cell, so the same symbols as over the whole array at once)
    n = c.shape[-1]
    rows = c.size // n
    c2, u2, o2 = c.reshape(rows, n), u.reshape(rows, n), out.reshape(rows, n)
    if p.ndim:
        p = np.broadcast_to(p, c.shape[:-1] + (1,)).reshape(rows, 1)
    if scale.ndim:
        scale = np.broadcast_to(scale, c.shape[:-1] + (1,)).reshape(rows, 1)
    step = max(1, _RR_SLICE // n)
    buf = np.empty((min(step, rows), n), dtype=u.dtype)
    for lo in range(0, rows, step):
        hi = min(lo + step, rows)
        _rr_symbols(c2[lo:hi], u2[lo:hi], p[lo:hi] if p.ndim else p,
                    scale[lo:hi] if scale.ndim else scale, k, o2[lo:hi], buf[:hi - lo])
    return out


#: Cells per slice of :func:`rr_apply` (1 MiB of float32 temporaries: fewer slices, each of
#: about ten numpy calls, at rows of 10⁴ cells; 825 × 11,040 cells 18.5 → 13.5 ms CPU, 10,000 ×
#: 1,000 11.9 → 10.0 ms, against 2¹⁶ cells; the same symbols, cell by cell).
_RR_SLICE = 1 << 18


def _rr_symbols(c, u, p, scale, k, out, t=None) -> None:
    """:func:`rr_apply`'s arithmetic on one slice: ``out`` = (x + s) mod (|Γ| + 1) with
    s = clip(⌊(u − p)·scale⌋ + 1, 0, |Γ|); ``t`` a float scratch of the slice's shape."""
    t = np.subtract(u, p, out=t)  # < 0 where the symbol is kept
    t *= scale
    np.floor(t, out=t)
    # s − 1 = clip(⌊t⌋, −1, |Γ| − 1), i.e. s = clip(⌊t⌋ + 1, 0, |Γ|) (0 = kept; the top clip
    # only guards rounding at u → 1), the + 1 taken in int8 below with the symbol
    np.clip(t, t.dtype.type(-1), t.dtype.type(k - 1), out=t)
    np.copyto(out, t, casting="unsafe")  # small integers: exact
    out += c
    out += np.int8(1)
    # (x + s) mod (|Γ| + 1), as x + s <= 2|Γ| + 1 < 128: in uint8, x − (|Γ| + 1) wraps above
    # 127 where x <= |Γ|, so min(x, x − (|Γ| + 1)) is the remainder
    v = out.view(np.uint8)
    np.minimum(v, v - np.uint8(k + 1), out=v)


def discrete_column(mechanism, settings, epsilon, domain_size, code, *, statistic=None):
    """An audit sampler: ``mechanism`` on n cells (one per worker) all holding ``code``; the
    output symbol as a float (−1 for NULL), or ``statistic(output codes)``."""
    k = int(domain_size)

    def sample(rng, n, which):
        c = code[0] if which == "D" else code[1]
        codes = np.full((n, 1), c, dtype=np.int8)
        out = mechanism.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
        values = np.asarray(out.values).ravel().astype(np.float64)
        return np.where(values == k, -1.0, values)
    return sample


class RR(Mechanism):
    """RR with NULL as a symbol (LDP-sparse Eq. 8): every cell of a worker's row released."""

    default_inference = "aware-one-coin-ds"
    id = "rr"
    label = "RR"
    aliases = ("RR",)
    paper = "ldp_sparse"
    summary = "randomized response over Γ ∪ {NULL} (LDP-sparse Eq. 8)"
    Settings = RRSettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    float_safe = False  # float uniforms against a rounded keep probability (see guarantee)
    releases_labels = True
    release_with = "rr-exact"
    null_handling = ("NULL is one more symbol: every cell of a worker's row goes through RR "
                     "(a NULL may come out as a label, a label as NULL; NULL outputs are "
                     "omitted from the release)")

    def draw_spec(self, shape, settings, dtype):
        return ((shape, dtype),)

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        return rr_draws(codes, rng=rng, dtype=dtype, out=None if out is None else out[0])

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        return Perturbed(rr_apply(codes, draws, epsilon, domain_size=domain_size), domain_size)

    def channel(self, settings, epsilon, *, domain_size):
        return Channel(rr_channel(epsilon, domain_size)[None], np.ones(1), observes_null=True,
                       description=f"RR over Γ ∪ {{NULL}} (Eq. 8) at ε = {float(epsilon):g}")

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered or NULL cell of a worker (ε-cell LDP)",
                       "LDP-sparse Sec. IV-B, Eq. 8 ('obviously ... satisfies ε-cell LDP')",
                       CELL_NEIGHBOURS)

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None):
        record = float(epsilon)
        worker, _ = basic_composition(record, shape.tasks)
        return Guarantee(
            record_epsilon=record, record_delta=0.0,
            record_unit="answered or NULL cell of a worker",
            worker_epsilon=worker, worker_delta=0.0,
            worker_rule=f"basic composition over the worker's {shape.tasks} released cells "
                        "(NULLs are symbols too)",
            ideal_record_epsilon=record, float_safe=False,
            basis="Eq. 8: keep e^ε/(|Γ|+e^ε) against 1/(|Γ|+e^ε) for any other symbol: "
                  "ratio e^ε; the sampler compares a floating-point uniform (float64 in a "
                  "release, float32 in the sweeps) with the rounded keep probability, so the "
                  "ratio as run is e^ε up to the rounding excess (an estimate, not proved)",
            caveats=("a worker's row: ε adds up over every cell he releases",),
            rounding_excess=rr_rounding_excess(epsilon, domain_size))

    def ledger_text(self, settings, epsilon, *, domain_size=None):
        return {"theorem": "LDP-sparse Eq. 8: randomized response over Γ ∪ {NULL}",
                "unit": "per answer (cell)",
                "covers": ["a change of one cell of a worker's row, NULL included"],
                "not_covered": ["a worker's whole answer vector: ε adds up over his cells"]}

    def audit_cases(self, settings, epsilon, *, domain_size=None, shape=None):
        from ..audit import Case

        k = int(domain_size)
        family = "RR: ε-cell LDP (Eq. 8)"
        cells = min(shape.tasks, 2000) if shape is not None else 20

        def whole_row(n_cells):
            # the log likelihood ratio of the row is ε × ((outputs 0) − (outputs 1))
            def sample(rng, n, which):
                codes = np.full((n, n_cells), 0 if which == "D" else 1, dtype=np.int8)
                out = np.asarray(self.perturb(codes, epsilon, settings, rng=rng,
                                              domain_size=k).values)
                return ((out == 0).sum(axis=1) - (out == 1).sum(axis=1)).astype(np.float64)
            return sample
        return [
            Case("ldp_sparse", self.label, "one answered cell, 0 vs 1", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (0, 1)),
                 exact_epsilon=float(epsilon), discrete=True, family=family),
            Case("ldp_sparse", self.label, "one cell, NULL vs answered 0", epsilon, 0.0,
                 discrete_column(self, settings, epsilon, k, (k, 0)),
                 exact_epsilon=float(epsilon), discrete=True, family=family),
            Case("ldp_sparse", self.label, f"a worker's whole row of {cells} cells, all 0 vs "
                                           "all 1", epsilon, 0.0, whole_row(cells),
                 exact_epsilon=cells * float(epsilon), claimed=False,
                 statistic="(cells output 0) − (cells output 1)", family=family,
                 composition=f"{cells} cells × {float(epsilon):g} = "
                             f"{cells * float(epsilon):g} by basic composition (NULL cells "
                             "are released too)"),
        ]

    def law(self, settings, epsilon, *, domain_size=None):
        k = int(domain_size)
        channel = rr_channel(epsilon, k)

        def sample_from(code):
            def sample(rng, n):
                codes = np.full((n, 1), code, dtype=np.int8)
                out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
                return np.asarray(out.values).ravel().astype(np.int64)
            return sample

        return [LawCheck(f"input {'NULL' if c == k else c}: output distribution of Eq. 8",
                         sample_from(c), support=np.arange(k + 1), probabilities=channel[c])
                for c in (0, k)]
