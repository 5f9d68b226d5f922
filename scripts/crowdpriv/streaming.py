"""LDP-sparse's mechanisms in blocks of workers, with outputs truth inference reads compactly.

The original answers stay in long format (:class:`crowdpriv.answers.Answers`, worker-sorted).
LP and MF give every cell a value by design, and RR and 2-Layer nearly so, so their outputs are
produced one block of workers at a time, each block's noise drawn from a stream derived from
(seed, block):

* LP: the block's perturbed values, float32 (4 bytes per cell);
* RR and 2-Layer: the block's output symbols, int8 with NULL as the extra symbol |Γ| (1 byte
  per cell);
* MF: only the workers' vectors u_i (d floats per worker): the output u_iᵀV is never formed,
  :class:`FactoredAnswers` answers the reductions from U and V.

:class:`BlockedAnswers` and :class:`FactoredAnswers` give :mod:`crowdpriv.truth` the same
reductions as :class:`~crowdpriv.answers.Answers`, so the peak memory of a point is the compact
output plus one block, not workers × tasks float64. Used by ``benchmarks/ldp_scale.py``.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int_at_least
from .answers import Answers
from .seeds import derive_rng

__all__ = ["BlockedAnswers", "RegeneratedAnswers", "FactoredAnswers", "perturb_in_blocks",
           "worker_blocks"]


#: Cells of a block reduced at a time (float32 temporaries of 1 MiB: L2-sized).
_STEP_CELLS = 1 << 18


def worker_blocks(n_workers: int, block_workers: int):
    """``(block, start, stop)`` of consecutive worker blocks."""
    b = check_int_at_least("block_workers", block_workers, 1)
    for block, start in enumerate(range(0, n_workers, b)):
        yield block, start, min(start + b, n_workers)


class BlockedAnswers:
    """A dense-by-design output held as worker blocks (float32 values, or int8 symbols with a
    NULL code); offers the reductions of :class:`crowdpriv.answers.Answers` (``groups`` = 1)."""

    groups = 1

    def __init__(self, n_tasks: int, n_workers: int):
        self.n_tasks, self.n_workers = int(n_tasks), int(n_workers)
        self.blocks: list[tuple[int, int, np.ndarray, int | None]] = []
        self._task_counts = np.zeros(self.n_tasks)
        self._worker_counts = np.zeros(self.n_workers)

    def add(self, start: int, data: np.ndarray, null_code: int | None = None) -> None:
        """Append the block of workers ``start … start + len(data) − 1``."""
        stop = start + data.shape[0]
        self.blocks.append((start, stop, data, null_code))
        mask = self._mask(data, null_code)
        self._task_counts += data.shape[0] if mask is None else mask.sum(0)
        self._worker_counts[start:stop] = data.shape[1] if mask is None else mask.sum(1)

    @staticmethod
    def _mask(data, null_code):
        return None if null_code is None else data != null_code

    @staticmethod
    def _steps(data):
        """Row slices of a block whose float32 temporaries (a few per reduction) stay in the
        cache: each reduction then reads the stored block from memory once (1 byte per cell
        for symbols, 4 for LP) instead of writing and re-reading block-sized temporaries."""
        rows = max(1, _STEP_CELLS // max(1, data.shape[1]))
        return [slice(a, a + rows) for a in range(0, data.shape[0], rows)]

    @property
    def nbytes(self) -> int:
        return sum(block[2].nbytes for block in self.blocks)

    def _each(self):
        """The blocks ``(start, stop, data, null_code)``, in worker order."""
        return iter(self.blocks)

    @property
    def task_counts(self):
        return self._task_counts

    @property
    def worker_counts(self):
        return self._worker_counts

    @staticmethod
    def _decoded(part, null):
        """float32 values (0 for NULL) and answered flags (None: all) of a few rows, by
        arithmetic only (masked assignment is several times slower)."""
        values = part.astype(np.float32)
        if null is None:
            return values, None
        answered = (part != null).astype(np.float32)
        values *= answered
        return values, answered

    def task_sums(self, worker_weight):
        num = np.zeros(self.n_tasks)
        den = np.zeros(self.n_tasks)
        for start, stop, data, null in self._each():
            w = worker_weight[start:stop].astype(np.float32)
            for rows in self._steps(data):
                values, answered = self._decoded(data[rows], null)
                num += w[rows] @ values
                den += w[rows].sum() if answered is None else w[rows] @ answered
        return num, den

    def worker_losses(self, truth, task_scale=None):
        # per cell (a − t)², in the cache: exact whatever the offset of the answers
        t = np.nan_to_num(truth).astype(np.float32)
        inv = None if task_scale is None else (1.0 / task_scale).astype(np.float32)
        out = np.empty(self.n_workers)
        for start, stop, data, null in self._each():
            for rows in self._steps(data):
                d, answered = self._decoded(data[rows], null)
                d -= t
                if answered is not None:
                    d *= answered
                d *= d
                if inv is not None:
                    d *= inv
                out[start + rows.start:start + rows.start + d.shape[0]] = d.sum(
                    1, dtype=np.float64)
        return out


class RegeneratedAnswers(BlockedAnswers):
    """Like :class:`BlockedAnswers`, but nothing is stored: each block is redrawn from its own
    random stream whenever a reduction needs it (same values every time), so memory is bounded
    by one block, at the price of redrawing the noise at every reduction."""

    def __init__(self, n_tasks: int, n_workers: int, make_block, blocks):
        super().__init__(n_tasks, n_workers)
        self._make, self._spans = make_block, list(blocks)
        for block, start, stop in self._spans:  # one pass for the counts
            data, null = make_block(block, start, stop)
            mask = self._mask(data, null)
            self._task_counts += data.shape[0] if mask is None else mask.sum(0)
            self._worker_counts[start:stop] = data.shape[1] if mask is None else mask.sum(1)

    @property
    def nbytes(self) -> int:
        return 0

    def _each(self):
        for block, start, stop in self._spans:
            data, null = self._make(block, start, stop)
            yield start, stop, data, null


class FactoredAnswers:
    """MF's output U·V (workers × tasks) answered from its factors, never formed.

    ``u`` is ``(m, d)`` or stacked ``(groups, m, d)``; ``profiles`` V is ``(d, n)`` or
    ``(groups, d, n)``. Every reduction costs O(m·d + d·n) per group instead of O(m·n), in
    float64, by matrix products (V Vᵀ computed once); index spaces are flattened group-major
    as for the other sources.
    """

    def __init__(self, u: np.ndarray, profiles: np.ndarray):
        u = np.asarray(u, dtype=np.float64)
        v = np.asarray(profiles, dtype=np.float64)
        if u.ndim == 2:
            u = u[None]
        if v.ndim == 2:
            v = np.broadcast_to(v, (u.shape[0],) + v.shape)
        if u.ndim != 3 or v.shape[0] != u.shape[0] or v.shape[1] != u.shape[2]:
            raise ValueError(f"u {u.shape} and profiles {v.shape} do not factor a matrix")
        self.u, self.v = u, v
        self._gram = None
        self.groups, self.m, self.n = u.shape[0], u.shape[1], v.shape[2]
        self.n_workers, self.n_tasks = self.groups * self.m, self.groups * self.n

    @property
    def task_counts(self):
        return np.full(self.n_tasks, float(self.m))

    @property
    def worker_counts(self):
        return np.full(self.n_workers, float(self.n))

    def task_sums(self, worker_weight):
        q = np.asarray(worker_weight, dtype=np.float64).reshape(self.groups, 1, self.m)
        num = (q @ self.u) @ self.v  # (qᵀU)V, never U·V
        return num.ravel(), np.repeat(q.sum(-1).ravel(), self.n)

    def worker_losses(self, truth, task_scale=None):
        # Σ_j (u_i·v_j − t_j)² / s_j = u_i G u_i − 2 u_i·(V (t/s)) + Σ t²/s, G = V diag(1/s) Vᵀ
        t = np.nan_to_num(np.asarray(truth, dtype=np.float64)).reshape(self.groups, self.n)
        if task_scale is None:
            if self._gram is None:  # V Vᵀ: the same at every iteration
                self._gram = self.v @ np.swapaxes(self.v, -1, -2)
            gram, weighted = self._gram, t
        else:
            inv = 1.0 / np.asarray(task_scale, dtype=np.float64).reshape(t.shape)
            gram = (self.v * inv[:, None, :]) @ np.swapaxes(self.v, -1, -2)
            weighted = t * inv
        quad = ((self.u @ gram) * self.u).sum(-1)
        cross = (self.u @ (self.v @ weighted[:, :, None]))[..., 0]
        const = (t * weighted).sum(-1, keepdims=True)
        return np.maximum(quad - 2.0 * cross + const, 0.0).ravel()


def _code_block(answers: Answers, lo: int, hi: int, start: int, stop: int, k: int
                ) -> np.ndarray:
    """The int8 label codes of workers ``start … stop − 1`` (NULL = ``k``) from their answers
    ``answers[lo:hi]``."""
    out = np.full((stop - start, answers.n_tasks), k, dtype=np.int8)
    out[answers.worker[lo:hi] - start, answers.task[lo:hi]] = answers.value[lo:hi]
    return out


def perturb_in_blocks(answers: Answers, mechanism: str, epsilon: float, *, seed: int,
                      domain_size: int, block_workers: int = 5000, profiles=None,
                      settings=None, mode: str = "compact"):
    """A mechanism (:mod:`crowdpriv.mechanisms`: LP, RR, 2-Layer, MF or any registered member
    with a ``stream`` part) applied one worker block at a time.

    Each block runs the member's own sampler (its ``draws`` then ``apply``, float32 draws as in
    the sweeps) on the block's label codes, its randomness from
    ``derive_rng(seed, "streaming", label, epsilon, "block", b)``. ``answers`` must be sorted by
    worker (as :func:`crowdpriv.ldp_sparse.synthetic_long` returns them). Returns a
    :class:`BlockedAnswers` (``mode="compact"``: float32 values, or int8 symbols with NULL =
    ``domain_size``) or a :class:`RegeneratedAnswers` (``mode="regenerate"``: the same values
    redrawn per reduction, memory bounded by one block); for a factored output (MF, with
    ``profiles`` V of shape (d, n)) a :class:`FactoredAnswers`. ``settings``: the member's
    settings (default: its defaults).
    """
    from .mechanisms import get

    if np.any(np.diff(answers.worker) < 0):
        raise ValueError("answers must be sorted by worker")
    mech = get(mechanism)
    if "stream" not in mech.parts:
        raise ValueError(f"mechanism {mech.id!r} has no streamed path (streamable: "
                         f"{', '.join(m.id for m in _streamable())})")
    if mode not in ("compact", "regenerate"):
        raise ValueError(f"mode must be 'compact' or 'regenerate', got {mode!r}")
    settings = mech.settings() if settings is None else settings
    k = int(domain_size)
    bounds = np.searchsorted(answers.worker, np.arange(answers.n_workers + 1))

    def make_block(block, start, stop):
        codes = _code_block(answers, bounds[start], bounds[stop], start, stop, k)
        public = {} if profiles is None else {"profiles": profiles}
        state = mech.prepare(codes, settings, domain_size=k, **public)
        rng = derive_rng(seed, "streaming", mech.label, float(epsilon), "block", block)
        return mech.perturb(codes, epsilon, settings, rng=rng, domain_size=k, state=state,
                            dtype=np.float32)

    spans = list(worker_blocks(answers.n_workers, block_workers))
    first = make_block(*spans[0]) if spans else None
    if first is not None and first.factors is not None:
        us = [first.factors[0]] + [make_block(*span).factors[0] for span in spans[1:]]
        return FactoredAnswers(np.concatenate(us), first.factors[1])

    def values(block, start, stop):
        out = first if block == 0 else make_block(block, start, stop)
        return out.values, out.null_code

    if mode == "regenerate":
        def redraw(block, start, stop):
            out = make_block(block, start, stop)
            return out.values, out.null_code
        return RegeneratedAnswers(answers.n_tasks, answers.n_workers, redraw, spans)
    out = BlockedAnswers(answers.n_tasks, answers.n_workers)
    for block, start, stop in spans:
        data, null = values(block, start, stop)
        out.add(start, data, null_code=null)
    return out


def _streamable():
    from .mechanisms import members

    return members(part="stream")
