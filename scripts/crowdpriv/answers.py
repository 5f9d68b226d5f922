"""Crowd answers in long format, and the few reductions truth inference needs from them.

:class:`Answers` is the one public container of crowd data: parallel arrays ``task``,
``worker`` (int32 indices) and ``value`` (int8 labels for categorical answers, float64 for
continuous values: float32 would round population counts above 2**24), with the numbers of tasks
and workers. A NULL (a worker who did not answer a task) is simply absent.

Truth-inference methods (:mod:`crowdpriv.truth`) never index the arrays themselves: they ask an
answer *source* for four reductions, each one pass over the answers,

* ``task_sums(w)``: per task, Σ_i w_i a_ij and Σ_i w_i over the workers who answered it;
* ``worker_losses(t, scale)``: per worker, Σ_j (a_ij − t_j)² / scale_j over the tasks answered;
* ``task_counts`` / ``worker_counts``; ``task_moments()`` (mean and std per task);
  ``task_medians()``.

:class:`Answers` computes the first two as one sparse matrix-vector product each over a matrix
built once per answer set (cost ∝ number of answers, no temporary per answer);
:class:`DenseAnswers` as one matrix product each over a workers × tasks block, for mechanism
outputs that are dense by design or nearly (LDP-sparse's LP gives every cell a value, RR and
2-Layer most cells at small ε). Both centre the answers on their task means, which keeps the
expanded squared losses exact on data far from 0. Both may hold
``groups`` independent problems of equal shape stacked together (repetitions): group ``g`` owns
tasks ``g·n … (g+1)·n−1`` and workers ``g·m … (g+1)·m−1``, so one pass serves all of them and
each converges on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

__all__ = ["Answers", "DenseAnswers", "as_source", "from_array", "from_codes", "DENSE_ABOVE"]

#: Answered fraction above which :func:`from_array` and :func:`from_codes` keep a matrix dense:
#: float32 matrix products over the block (whose cost does not depend on the fill) then beat the
#: sparse products over the answers in long format (cost ∝ answers). benchmarks/inference.py,
#: Sun per iteration at 10,000 × 1,000 (one BLAS thread) in units of one np.bincount pass over
#: 1M answers: block 3-6 at every fill; long 0.3 at 1 %, 2.4 at 10 %, 4.6 at 20 %, 5.5 at 30 %,
#: 13 at 50 %. Building either costs about as much as 3-4 iterations of it (the long layout
#: ~11 units per 1M answers), so the break-even stays near 20 % for few iterations too.
#: Memory: long format holds ~40 bytes per answer, the masked block 8 per cell.
DENSE_ABOVE = 0.2


def _group_sizes(n_tasks: int, n_workers: int, groups: int) -> tuple[int, int]:
    if groups < 1 or n_tasks % groups or n_workers % groups:
        raise ValueError(f"groups={groups} must divide n_tasks={n_tasks} and "
                         f"n_workers={n_workers}")
    return n_tasks // groups, n_workers // groups


@dataclass(frozen=True)
class Answers:
    """Long-format answers: ``value[k]`` is worker ``worker[k]``'s answer to task ``task[k]``.

    Parameters
    ----------
    task, worker : array_like of int
        Indices in ``[0, n_tasks)`` and ``[0, n_workers)``; stored as int32.
    value : array_like
        Answers; int8 when ``categorical`` (labels 0..126), else float64. Must be finite.
    n_tasks, n_workers : int
        Sizes of the index spaces (tasks or workers without answers are allowed).
    groups : int
        Number of stacked independent problems (see the module docstring).
    task_ids, worker_ids : array_like, optional
        Original identifiers (from :meth:`from_frame`), used by :meth:`to_frame`.
    """

    task: np.ndarray
    worker: np.ndarray
    value: np.ndarray
    n_tasks: int
    n_workers: int
    groups: int = 1
    task_ids: np.ndarray | None = field(default=None, repr=False)
    worker_ids: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        task = np.ascontiguousarray(self.task, dtype=np.int32)
        worker = np.ascontiguousarray(self.worker, dtype=np.int32)
        value = np.asarray(self.value)
        if value.dtype.kind == "f" and value.dtype != np.float64:
            value = value.astype(np.float64)
        elif value.dtype.kind in "iub" and value.dtype != np.int8:
            if value.size and (value.min() < -128 or value.max() > 127):
                raise ValueError("integer answers must fit int8 (labels); pass floats for "
                                 "continuous values")
            value = value.astype(np.int8)
        elif value.dtype.kind not in "fiub":
            raise ValueError(f"answer values must be numeric, got dtype {value.dtype}")
        value = np.ascontiguousarray(value)
        if not (task.shape == worker.shape == value.shape) or task.ndim != 1:
            raise ValueError(f"task, worker and value must be 1-d of one length, got "
                             f"{task.shape}, {worker.shape}, {value.shape}")
        n_tasks, n_workers = int(self.n_tasks), int(self.n_workers)
        _group_sizes(n_tasks, n_workers, int(self.groups))
        if task.size:
            if task.min() < 0 or task.max() >= n_tasks:
                raise ValueError(f"task indices must lie in [0, {n_tasks}), found "
                                 f"{task.min() if task.min() < 0 else task.max()}")
            if worker.min() < 0 or worker.max() >= n_workers:
                raise ValueError(f"worker indices must lie in [0, {n_workers}), found "
                                 f"{worker.min() if worker.min() < 0 else worker.max()}")
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise ValueError("answer values must be finite (a NULL is an absent answer)")
        for name, arr in (("task", task), ("worker", worker), ("value", value)):
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "n_tasks", n_tasks)
        object.__setattr__(self, "n_workers", n_workers)
        object.__setattr__(self, "groups", int(self.groups))

    # -- construction and conversion -------------------------------------------------------
    @classmethod
    def _trusted(cls, task, worker, value, n_tasks, n_workers, groups=1) -> "Answers":
        """Without the checks of the constructor, for arrays built here that pass them by
        construction (int32 indices in range, finite float64 or int8 values)."""
        self = object.__new__(cls)
        for name, item in (("task", task), ("worker", worker), ("value", value),
                           ("n_tasks", int(n_tasks)), ("n_workers", int(n_workers)),
                           ("groups", int(groups)), ("task_ids", None), ("worker_ids", None)):
            object.__setattr__(self, name, item)
        return self

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, task: str = "task", worker: str = "worker",
                   value: str = "value", categorical: bool = False) -> "Answers":
        """From a tidy table; ids are coded in sorted order and kept for :meth:`to_frame`."""
        task_codes, task_ids = pd.factorize(df[task], sort=True)
        worker_codes, worker_ids = pd.factorize(df[worker], sort=True)
        if (task_codes < 0).any() or (worker_codes < 0).any():
            raise ValueError("a task or worker id is missing (validate with "
                             "crowdpriv.tables.read_claims)")
        values = df[value].to_numpy()
        values = values.astype(np.int8) if categorical else values.astype(np.float64)
        return cls(task_codes, worker_codes, values, len(task_ids), len(worker_ids),
                   task_ids=np.asarray(task_ids), worker_ids=np.asarray(worker_ids))

    @classmethod
    def from_dense(cls, matrix, *, categorical: bool = False) -> "Answers":
        """From a workers × tasks matrix (``NaN`` = NULL), or a stack ``(groups, m, n)``."""
        a = np.asarray(matrix, dtype=np.float64)
        if a.ndim == 2:
            a = a[None]
        if a.ndim != 3:
            raise ValueError(f"matrix must be (m, n) or (groups, m, n), got shape {a.shape}")
        g, m, n = a.shape
        gi, wi, ti = np.nonzero(~np.isnan(a))
        values = a[gi, wi, ti]
        return cls(gi * n + ti, gi * m + wi, values.astype(np.int8) if categorical else values,
                   g * n, g * m, groups=g)

    def to_frame(self) -> pd.DataFrame:
        """The tidy table (``task``, ``worker``, ``value``), with original ids when known."""
        task = self.task_ids[self.task] if self.task_ids is not None else self.task
        worker = self.worker_ids[self.worker] if self.worker_ids is not None else self.worker
        return pd.DataFrame({"task": task, "worker": worker, "value": self.value})

    def to_dense(self) -> np.ndarray:
        """``(groups, m, n)`` float64 matrix with ``NaN`` for NULL (small problems only)."""
        n, m = _group_sizes(self.n_tasks, self.n_workers, self.groups)
        out = np.full((self.groups, m, n), np.nan)
        g = self.task // n
        out[g, self.worker - g * m, self.task - g * n] = self.value
        return out

    @property
    def size(self) -> int:
        return int(self.value.size)

    def standardised(self, center: np.ndarray, scale: np.ndarray) -> "Answers":
        """The same answers as ``(value − center_task) / scale_task`` (float64)."""
        z = (self.value - center[self.task]) / scale[self.task]
        return Answers(self.task, self.worker, z, self.n_tasks, self.n_workers, self.groups)

    # -- the reductions of crowdpriv.truth ---------------------------------------------------
    @property
    def task_counts(self) -> np.ndarray:
        return self._paired.task_counts

    @property
    def worker_counts(self) -> np.ndarray:
        return self._paired.worker_counts

    @cached_property
    def _paired(self) -> "_PairedAnswers":
        """The answers as a sparse matrix, built on the first reduction and kept."""
        return _PairedAnswers(self)

    def free_reductions(self) -> None:
        """Drop the sparse matrix the reductions built (about 24 bytes per answer, kept for
        the next method's reductions); the next reduction builds it again. For large answer
        sets whose inference is done, e.g. before perturbing them."""
        self.__dict__.pop("_paired", None)

    def task_sums(self, worker_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._paired.task_sums(worker_weight)

    def worker_losses(self, truth: np.ndarray, task_scale: np.ndarray | None = None
                      ) -> np.ndarray:
        return self._paired.worker_losses(truth, task_scale)

    def task_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and (population) standard deviation of the answers per task (NaN if none)."""
        counts = self.task_counts
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.bincount(self.task, weights=self.value, minlength=self.n_tasks) / counts
            d = self.value - mean[self.task]
            var = np.bincount(self.task, weights=d * d, minlength=self.n_tasks) / counts
        return mean, np.sqrt(var)

    def task_medians(self) -> np.ndarray:
        """Median of the answers per task (mean of the two middle ones for an even count)."""
        order = np.lexsort((self.value, self.task))
        sorted_values = self.value[order].astype(np.float64)
        counts = np.bincount(self.task, minlength=self.n_tasks)
        start = np.concatenate(([0], np.cumsum(counts)[:-1]))
        has = counts > 0
        lo = start + np.maximum(counts - 1, 0) // 2
        hi = start + counts // 2
        out = np.full(self.n_tasks, np.nan)
        out[has] = 0.5 * (sorted_values[lo[has]] + sorted_values[np.minimum(hi, len(order) - 1)[has]])
        return out


class _PairedAnswers:
    """Long-format answers as one sparse workers × (2 · tasks) CSR matrix: answer a_ij is the
    pair of entries (i, 2j) = a_ij − c_j and (i, 2j + 1) = 1, c_j the mean answer on task j.

    Each reduction of :class:`Answers` is then one compiled sparse matrix-vector product, a
    single pass over the answers with no temporary per answer:

    * ``task_sums(w)``: ``wᵀB`` gives, interleaved, Σ_i w_i (a_ij − c_j) and Σ_i w_i, so
      Σ_i w_i a_ij = (first) + c_j · (second);
    * ``worker_losses(t, s)``: Σ_j (a_ij − t_j)² / s_j = Σ_j (a_ij − c_j)² / s_j
      + Σ_j [−2 (t_j − c_j) / s_j] (a_ij − c_j) + Σ_j (t_j − c_j)² / s_j over the answered
      tasks, i.e. a fixed per-worker term (kept per ``s``) plus ``B x`` with x interleaving
      −2 (t − c) / s and (t − c)² / s.

    Centring on c_j is what keeps the expansion exact enough: the terms are of the size of the
    answers' spread around their task's mean, not of the answers themselves (population counts
    around 1e6 with a spread of 1 would lose every digit in Σ a² − 2 t Σ a + n t²). A worker
    who answered a task twice has two pairs, so duplicates count as in long format. Costs
    24 bytes per answer (scipy.sparse, imported here only).
    """

    def __init__(self, answers: "Answers"):
        from scipy.sparse import csr_array

        n, m, size = answers.n_tasks, answers.n_workers, answers.size
        task, worker, value = answers.task, answers.worker, answers.value
        if size and np.any(worker[1:] < worker[:-1]):
            order = np.argsort(worker, kind="stable")
            task, worker, value = task[order], worker[order], value[order]
        counts = np.bincount(task, minlength=n)
        self.task_counts = counts.astype(np.float64)
        self.worker_counts = np.bincount(worker, minlength=m).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            center = np.bincount(task, weights=value, minlength=n) / counts
        self.center = np.where(counts > 0, center, 0.0)
        big = max(2 * size, 2 * n) >= np.iinfo(np.int32).max
        index = np.int64 if big else np.int32
        cols = np.empty(2 * size, dtype=index)
        np.multiply(task, 2, out=cols[0::2], dtype=index)
        np.add(cols[0::2], 1, out=cols[1::2])
        data = np.empty(2 * size)
        np.subtract(value, self.center[task], out=data[0::2])
        data[1::2] = 1.0
        indptr = np.zeros(m + 1, dtype=index)
        np.cumsum(self.worker_counts, out=indptr[1:], dtype=index)
        indptr *= 2
        self.matrix = csr_array((data, cols, indptr), shape=(m, 2 * n))
        self._centred, self._worker = data[0::2], worker
        self._squares: tuple[np.ndarray | None, np.ndarray] | None = None

    def task_sums(self, worker_weight):
        both = self.matrix.T @ np.asarray(worker_weight, dtype=np.float64)
        den = both[1::2]
        return both[0::2] + self.center * den, den

    def _squared(self, inv):
        """Σ_j (a_ij − c_j)² · inv_j per worker (inv = 1 / task scale, None for 1), computed
        once per scale: CRH and GTM pass the same scale at every iteration."""
        cached = self._squares
        if cached is not None and (cached[0] is inv or (
                cached[0] is not None and inv is not None and np.array_equal(cached[0], inv))):
            return cached[1]
        d2 = self._centred * self._centred
        if inv is not None:
            d2 *= inv[self.matrix.indices[0::2] // 2]
        out = np.bincount(self._worker, weights=d2, minlength=self.matrix.shape[0])
        self._squares = (None if inv is None else inv.copy(), out)
        return out

    def worker_losses(self, truth, task_scale=None):
        t = np.asarray(truth, dtype=np.float64) - self.center
        inv = None if task_scale is None else 1.0 / np.asarray(task_scale, dtype=np.float64)
        x = np.empty(2 * t.size)
        np.multiply(t, -2.0 if inv is None else -2.0 * inv, out=x[0::2])
        np.multiply(t, t if inv is None else t * inv, out=x[1::2])
        return np.maximum(self._squared(inv) + self.matrix @ x, 0.0)


class DenseAnswers:
    """A ``(groups, m, n)`` answer block with ``NaN`` for NULL, reduced by matrix products.

    For mechanism outputs that are dense by design (LDP-sparse's LP) or nearly so (RR and
    2-Layer at small ε). Offers the same reductions as :class:`Answers` (flattened group-major
    index spaces) from one block in ``dtype`` (float32 halves memory traffic; products are
    accumulated by BLAS in ``dtype``): per group the m × n answers centred on each task's mean
    c_j (NULL cells 0) and, when some cells are NULL, the answered mask beside them,
    ``[a − c | mask]`` of shape (groups, m, 2n). Each reduction is then one batched matrix
    product over the block, as :class:`_PairedAnswers` is for long format (the same algebra:
    ``qᵀ[a − c | mask]`` gives the weighted sums and weights per task; the per-worker losses
    are Σ_j (a_ij − c_j)²/s_j, kept per scale s, plus ``[a − c | mask] [x; y]``), and the
    centring keeps the expansion of the squared losses exact on data far from 0.

    Only float64 blocks are centred (c = 0 in float32, the block is then the answers
    themselves, with no copy for a finite float32 matrix): float32 is LDP-sparse's choice for
    labels and labels plus noise, whose offset is a few labels; and where centring would matter
    (answers far from 0 with a small spread) float32 cannot hold the spread in the first place
    (answers around 1e6 are held to 0.06), and its BLAS sums accumulate in float32 anyway.
    """

    def __init__(self, matrix, *, dtype=np.float64, mask=None, finite=None):
        a = np.asarray(matrix)
        if a.ndim == 2:
            a = a[None]
            mask = None if mask is None else mask[None]
        if a.ndim != 3:
            raise ValueError(f"matrix must be (m, n) or (groups, m, n), got shape {a.shape}")
        sums = None
        if mask is None and finite is None:  # one pass: NaN and ±inf reach their column's sum
            sums = _column_sums(a)
            finite = bool(np.isfinite(sums).all())
        # ``finite``: the caller already knows that every value is finite (from_array checked)
        finite = bool(finite)
        if not (mask is None and finite):
            mask = ~np.isnan(a) if mask is None else np.asarray(mask, dtype=bool)
            if mask.all():
                mask = None
        self._fill(a, mask, dtype, centre=_centred(dtype), sums=sums if mask is None else None)
        if not (finite and self.dense) and not _all_finite(self.block):  # NULLs are 0 here
            raise ValueError("answers must be finite or NaN (NULL); found an infinite value")

    @classmethod
    def from_codes(cls, codes, null_code: int, *, dtype=np.float64, mask=None) -> "DenseAnswers":
        """The block of integer label codes ``codes`` (``null_code`` = NULL): the same numbers
        as ``DenseAnswers(float matrix with NaN for NULL)`` (the same block, centres and
        counts, so the same results bit for bit), built from the 1-byte codes."""
        c = np.asarray(codes)
        if c.ndim == 2:
            c = c[None]
            mask = None if mask is None else mask[None]
        if c.ndim != 3 or c.dtype.kind not in "iu":
            raise ValueError(f"codes must be integer (m, n) or (groups, m, n), got {c.dtype} "
                             f"{c.shape}")
        mask = c != null_code if mask is None else np.asarray(mask, dtype=bool)
        self = cls.__new__(cls)
        self._fill(c, None if mask.all() else mask, dtype, centre=_centred(dtype))
        return self

    def _fill(self, a, mask, dtype, *, centre: bool, sums=None) -> None:
        """Counts, task means c and the block ``[a − c | mask]`` (``mask`` None: every cell);
        c = 0 unless ``centre``. ``sums``: the column sums of ``a``, when already known."""
        self.groups, self.m, self.n = a.shape
        self.n_tasks, self.n_workers = self.groups * self.n, self.groups * self.m
        self.dtype, self.dense = dtype, mask is None
        g, m, n = a.shape
        ones = np.ones((g, 1, m), dtype=dtype)
        if self.dense:
            counts = np.full((g, n), float(m))
            self._worker_counts = np.full(self.n_workers, float(n))
            if not centre:
                center = np.zeros((g, n), dtype=dtype)
                self.block = a.astype(dtype, copy=False)  # read only, never written
            else:
                sums = _column_sums(a) if sums is None else sums
                if not np.isfinite(sums).all():  # overflow of a float32 sum (or ±inf)
                    sums = a.sum(-2, dtype=np.float64)
                center = (sums / m).astype(dtype)
                self.block = np.empty((g, m, n), dtype=dtype)
                np.subtract(a, center[:, None, :], out=self.block, casting="unsafe")
        else:
            self.block = np.empty((g, m, 2 * n), dtype=dtype)
            values, pattern = self.block[..., :n], self.block[..., n:]
            np.copyto(pattern, mask)
            if a.dtype.kind in "iu":  # label codes: the NULL code times 0
                np.multiply(a, mask, out=values, casting="unsafe")
            else:  # NaN times 0 is NaN: copy, then clear the NULL cells
                np.copyto(values, a, casting="unsafe")
                np.copyto(values, 0, where=~mask)
            # counts: exact, integers below 2**24; the values' sums only when centring
            both = (ones @ (self.block if centre else pattern))[:, 0, :].astype(np.float64)
            counts = both[:, -n:]
            self._worker_counts = (pattern @ np.ones((n, 1), dtype=dtype))[..., 0].astype(
                np.float64).ravel()
            if centre:
                with np.errstate(invalid="ignore", divide="ignore"):
                    center = np.where(counts > 0, both[:, :n] / counts, 0.0).astype(dtype)
                values -= center[:, None, :]  # NULL cells: (0 − c) · 0 = 0 below
                values *= pattern
            else:
                center = np.zeros((g, n), dtype=dtype)
        self._task_counts = counts.ravel()
        self.center = center.astype(np.float64).ravel()  # exactly the c subtracted
        self._squares = None

    @classmethod
    def _from_finite(cls, a, sums, dtype) -> "DenseAnswers":
        """A (groups, m, n) block known to be finite, with its column sums."""
        self = cls.__new__(cls)
        self._fill(a, None, dtype, centre=_centred(dtype), sums=sums)
        return self

    @property
    def values(self) -> np.ndarray:
        """The centred answers ``a − c`` (groups, m, n), 0 for NULL (a view of the block)."""
        return self.block[..., :self.n]

    @property
    def size(self) -> int:
        return int(self._worker_counts.sum())

    @property
    def task_counts(self) -> np.ndarray:
        return self._task_counts

    @property
    def worker_counts(self) -> np.ndarray:
        return self._worker_counts

    def _answers(self) -> np.ndarray:
        """The answers in float64, ``NaN`` for NULL (groups, m, n)."""
        a = self.values.astype(np.float64) + self.center.reshape(self.groups, 1, self.n)
        if not self.dense:
            a[~self.block[..., self.n:].astype(bool)] = np.nan
        return a

    def standardised(self, center, scale) -> "DenseAnswers":
        """The same answers as ``(a − center_task) / scale_task`` (float64)."""
        c = center.reshape(self.groups, 1, self.n)
        s = scale.reshape(self.groups, 1, self.n)
        return DenseAnswers((self._answers() - c) / s, dtype=np.float64)

    def task_sums(self, worker_weight):
        q = worker_weight.reshape(self.groups, 1, self.m).astype(self.dtype)
        both = (q @ self.block)[:, 0, :].astype(np.float64)
        if self.dense:
            den = np.repeat(worker_weight.reshape(self.groups, self.m).sum(-1), self.n)
            return both.ravel() + self.center * den, den
        den = both[:, self.n:].ravel()
        return both[:, :self.n].ravel() + self.center * den, den

    def _squared(self, inv):
        """Σ_j (a_ij − c_j)² · inv_j per worker (groups, m), computed once per scale."""
        cached = self._squares
        if cached is not None and (cached[0] is inv or (
                cached[0] is not None and inv is not None and np.array_equal(cached[0], inv))):
            return cached[1]
        v = self.values  # summed in dtype, as the products of the reductions are
        if inv is None:
            out = np.einsum("gij,gij->gi", v, v).astype(np.float64)
        else:
            out = np.einsum("gij,gj,gij->gi", v, inv.astype(self.dtype), v).astype(np.float64)
        self._squares = (None if inv is None else inv.copy(), out)
        return out

    def worker_losses(self, truth, task_scale=None):
        g, n = self.groups, self.n
        t = (np.nan_to_num(truth) - self.center).reshape(g, n)
        inv = None if task_scale is None else 1.0 / task_scale.reshape(g, n)
        x = np.empty((g, n if self.dense else 2 * n))
        np.multiply(t, -2.0 if inv is None else -2.0 * inv, out=x[:, :n])
        y = t * t if inv is None else t * t * inv
        if self.dense:
            const = y.sum(-1, keepdims=True)
        else:
            x[:, n:] = y
            const = 0.0
        cross = (self.block @ x.astype(self.dtype)[:, :, None])[..., 0].astype(np.float64)
        return np.maximum(self._squared(inv) + cross + const, 0.0).ravel()

    def task_moments(self):
        counts = self._task_counts.reshape(self.groups, self.n)
        v = self.values
        with np.errstate(invalid="ignore", divide="ignore"):
            shift = v.sum(-2, dtype=np.float64) / counts  # mean − c
            d = v - shift[:, None, :].astype(self.dtype)
            if not self.dense:
                d *= self.block[..., self.n:]
            var = np.einsum("gij,gij->gj", d, d, dtype=np.float64) / counts
        return self.center + shift.ravel(), np.sqrt(var).ravel()

    def task_medians(self):
        with np.errstate(invalid="ignore"):
            return np.nanmedian(self._answers(), axis=-2).ravel()


def _centred(dtype) -> bool:
    """Whether a :class:`DenseAnswers` block in ``dtype`` is centred on its task means."""
    return np.dtype(dtype).itemsize >= 8


def _column_sums(a) -> np.ndarray:
    """Σ over workers per (group, task) of a (groups, m, n) array, as float64: by BLAS in the
    array's own float type (a NaN or ±inf reaches its column's sum; a float32 sum may overflow
    to inf, which callers treat as not known to be finite), else by a float64 reduction."""
    if a.dtype in (np.float32, np.float64) and a.flags.c_contiguous:
        ones = np.ones((a.shape[0], 1, a.shape[1]), dtype=a.dtype)
        return (ones @ a)[:, 0, :].astype(np.float64)
    return a.sum(-2, dtype=np.float64)


def _all_finite(a) -> bool:
    """Whether every value is finite, by one float64 sum (a NaN or ±inf makes it non-finite;
    float32 values cannot overflow it; float64 ones that do are sent the long way)."""
    return bool(np.isfinite(np.add.reduce(a, axis=None, dtype=np.float64)))


def from_array(matrix, *, dtype=np.float64):
    """An answer source for a ``(m, n)`` or ``(groups, m, n)`` array with ``NaN`` = NULL:
    :class:`DenseAnswers` when more than :data:`DENSE_ABOVE` of the cells are answered (the
    output of a dense-by-design mechanism), else long-format :class:`Answers`."""
    a = np.asarray(matrix)
    if a.size and a.ndim in (2, 3):  # no NULL at all (LP, MF): skip the mask
        block = a if a.ndim == 3 else a[None]
        sums = _column_sums(block)
        if np.isfinite(sums).all():
            return DenseAnswers._from_finite(block, sums, dtype)
    elif a.size and _all_finite(a):
        return DenseAnswers(a, dtype=dtype, finite=True)  # refuses the shape
    mask = ~np.isnan(a)
    if a.size and np.count_nonzero(mask) > DENSE_ABOVE * a.size:
        return DenseAnswers(a, dtype=dtype, mask=mask)
    if np.isinf(a).any():
        raise ValueError("answers must be finite or NaN (NULL); found an infinite value")
    return Answers.from_dense(a)


def from_codes(codes, null_code: int, *, dtype=np.float64):
    """An answer source for a ``(m, n)`` or ``(groups, m, n)`` matrix of integer label codes
    with ``null_code`` for NULL (LDP-sparse's :func:`~crowdpriv.ldp_sparse.answer_codes`).

    The same choice and the same numbers as :func:`from_array` on the float matrix with ``NaN``
    for NULL, without building that matrix (1 byte per cell instead of 4 or 8).
    """
    c = np.asarray(codes)
    if c.dtype.kind not in "iu":
        raise ValueError(f"label codes must be integers, got dtype {c.dtype}")
    mask = c != null_code
    if c.size and np.count_nonzero(mask) > DENSE_ABOVE * c.size:
        return DenseAnswers.from_codes(c, null_code, dtype=dtype, mask=mask)
    if c.ndim == 2:
        c, mask = c[None], mask[None]
    if c.ndim != 3:
        raise ValueError(f"codes must be (m, n) or (groups, m, n), got shape {c.shape}")
    g, m, n = c.shape
    if g * m * n >= np.iinfo(np.int32).max:
        gi, wi, ti = np.nonzero(mask)  # the general way, with Answers' checks
        return Answers(gi * n + ti, gi * m + wi, c[gi, wi, ti].astype(np.float64), g * n,
                       g * m, groups=g)
    # cell f = (g·m + i)·n + j, in worker order: worker g·m + i = f // n, task g·n + j
    cell = np.flatnonzero(mask).astype(np.int32)
    worker, task = np.divmod(cell, np.int32(n))
    task += (worker // np.int32(m)) * np.int32(n)
    return Answers._trusted(task, worker, c.reshape(-1)[cell].astype(np.float64), g * n, g * m,
                            groups=g)


def as_source(answers):
    """An answer source for :mod:`crowdpriv.truth`: anything offering the reductions
    (:class:`Answers`, :class:`DenseAnswers`, :mod:`crowdpriv.streaming`'s blocked and factored
    outputs) passes through; an array ``(m, n)`` or ``(groups, m, n)`` with ``NaN`` = NULL is
    wrapped by :func:`from_array`."""
    if hasattr(answers, "task_sums") and hasattr(answers, "worker_losses"):
        return answers
    return from_array(answers)
