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

:class:`Answers` computes them with ``np.bincount`` (cost ∝ number of answers);
:class:`DenseAnswers` with matrix products over a workers × tasks block, for mechanism outputs
that are dense by design (LDP-sparse's LP and MF give every cell a value). Both may hold
``groups`` independent problems of equal shape stacked together (repetitions): group ``g`` owns
tasks ``g·n … (g+1)·n−1`` and workers ``g·m … (g+1)·m−1``, so one pass serves all of them and
each converges on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Answers", "DenseAnswers", "as_source", "from_array", "from_codes", "DENSE_ABOVE"]

#: Answered fraction above which :func:`from_array` keeps a matrix already in memory dense:
#: float32 matrix products over the block then beat ``np.bincount`` passes over the answers
#: (benchmarks/inference.py at 10 % answered: 5 ms vs 15 ms per Sun iteration; break-even ~3 %).
DENSE_ABOVE = 0.03


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
        return np.bincount(self.task, minlength=self.n_tasks).astype(np.float64)

    @property
    def worker_counts(self) -> np.ndarray:
        return np.bincount(self.worker, minlength=self.n_workers).astype(np.float64)

    def task_sums(self, worker_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = worker_weight[self.worker]
        num = np.bincount(self.task, weights=w * self.value, minlength=self.n_tasks)
        den = np.bincount(self.task, weights=w, minlength=self.n_tasks)
        return num, den

    def worker_losses(self, truth: np.ndarray, task_scale: np.ndarray | None = None
                      ) -> np.ndarray:
        d = self.value - truth[self.task]
        d = d * d
        if task_scale is not None:
            d /= task_scale[self.task]
        return np.bincount(self.worker, weights=d, minlength=self.n_workers)

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


class DenseAnswers:
    """A ``(groups, m, n)`` answer block with ``NaN`` for NULL, reduced by matrix products.

    For mechanism outputs that are dense by design (LDP-sparse's LP and MF). Offers the same
    reductions as :class:`Answers` (flattened group-major index spaces), computed in ``dtype``
    (float32 halves memory traffic; sums are accumulated in float64 where numpy allows).
    """

    def __init__(self, matrix, *, dtype=np.float64, mask=None, finite=None):
        a = np.asarray(matrix)
        if a.ndim == 2:
            a = a[None]
            mask = None if mask is None else mask[None]
        if a.ndim != 3:
            raise ValueError(f"matrix must be (m, n) or (groups, m, n), got shape {a.shape}")
        # ``finite``: the caller already knows that every value is finite (from_array checked)
        finite = (mask is None and _all_finite(a)) if finite is None else bool(finite)
        if mask is None and finite:
            self.dense = True  # one reduction instead of a mask: the common case of LP / MF
        else:
            mask = ~np.isnan(a) if mask is None else mask
            self.dense = bool(mask.all())
        self.groups, self.m, self.n = a.shape
        self.n_tasks, self.n_workers = self.groups * self.n, self.groups * self.m
        self.a0 = (a.astype(dtype, copy=False) if self.dense
                   else np.where(mask, a, 0).astype(dtype, copy=False))
        checked = self.dense and finite and self.a0.dtype.itemsize >= a.dtype.itemsize
        if not checked and not _all_finite(self.a0):  # NULLs are 0 here: only an infinity is left
            raise ValueError("answers must be finite or NaN (NULL); found an infinite value")
        self.w = None if self.dense else mask.astype(dtype)
        self.dtype = dtype
        self._worker_counts = (np.full(self.n_workers, float(self.n)) if self.dense
                               else self.w.sum(-1, dtype=np.float64).ravel())
        self._task_counts = (np.full(self.n_tasks, float(self.m)) if self.dense
                             else self.w.sum(-2, dtype=np.float64).ravel())
        self._sq = np.einsum("gij,gij->gi", self.a0, self.a0, dtype=np.float64).ravel()

    @classmethod
    def from_codes(cls, codes, null_code: int, *, dtype=np.float64, mask=None) -> "DenseAnswers":
        """The block of integer label codes ``codes`` (``null_code`` = NULL): the same numbers
        as ``DenseAnswers(float matrix with NaN for NULL)``, built from the 1-byte codes.

        Labels are small integers, so the counts and each worker's Σ_j a_ij² are exact in
        float32 matrix products while they stay below 2**24 (checked; the float64 path is
        taken otherwise) and equal the float64 sums of the generic constructor.
        """
        c = np.asarray(codes)
        if c.ndim == 2:
            c = c[None]
            mask = None if mask is None else mask[None]
        if c.ndim != 3 or c.dtype.kind not in "iu":
            raise ValueError(f"codes must be integer (m, n) or (groups, m, n), got {c.dtype} "
                             f"{c.shape}")
        mask = c != null_code if mask is None else mask
        largest = max(abs(int(c.max(initial=0))), abs(int(c.min(initial=0))), 1)
        if max(c.shape[1], c.shape[2]) * largest**2 >= 2**24:
            return cls(c, dtype=dtype, mask=mask)
        self = cls.__new__(cls)
        self.groups, self.m, self.n = c.shape
        self.n_tasks, self.n_workers = self.groups * self.n, self.groups * self.m
        self.dtype = dtype
        w = np.empty(c.shape, np.float32)
        np.copyto(w, mask)
        a0 = np.empty(c.shape, np.float32)  # NULL cells are 0, as in the constructor:
        np.copyto(a0, np.multiply(c, mask))  # an integer product (label x 1, NULL x 0)
        self._worker_counts = (w @ np.ones(self.n, np.float32)).astype(np.float64).ravel()
        self._task_counts = (np.ones(self.m, np.float32) @ w).astype(np.float64).ravel()
        self._sq = np.einsum("gij,gij->gi", a0, a0).astype(np.float64).ravel()
        self.dense = bool(self._worker_counts.sum() == c.size)
        self.a0 = a0.astype(dtype, copy=False)
        self.w = None if self.dense else w.astype(dtype, copy=False)
        return self

    @property
    def size(self) -> int:
        return int(self._worker_counts.sum())

    @property
    def task_counts(self) -> np.ndarray:
        return self._task_counts

    def standardised(self, center, scale) -> "DenseAnswers":
        """The same answers as ``(a − center_task) / scale_task`` (float64)."""
        c = center.reshape(self.groups, 1, self.n)
        s = scale.reshape(self.groups, 1, self.n)
        a = self.a0.astype(np.float64)
        z = (a - c) / s
        if self.w is not None:
            z = np.where(self.w.astype(bool), z, np.nan)
        return DenseAnswers(z, dtype=np.float64)

    @property
    def worker_counts(self) -> np.ndarray:
        return self._worker_counts

    def task_sums(self, worker_weight):
        q = worker_weight.reshape(self.groups, 1, self.m).astype(self.dtype)
        num = (q @ self.a0)[:, 0, :].astype(np.float64).ravel()
        if self.dense:
            den = np.repeat(worker_weight.reshape(self.groups, self.m).sum(-1), self.n)
        else:
            den = (q @ self.w)[:, 0, :].astype(np.float64).ravel()
        return num, den

    def worker_losses(self, truth, task_scale=None):
        # Σ_j w (a − t)²/s = Σ a²/s − 2 Σ a t/s + Σ w t²/s (no m × n temporary)
        t = np.nan_to_num(truth).reshape(self.groups, self.n)
        inv = np.ones_like(t) if task_scale is None else 1.0 / task_scale.reshape(t.shape)
        if task_scale is None:
            sq = self._sq.reshape(self.groups, self.m)
        else:
            sq = np.einsum("gij,gj,gij->gi", self.a0, inv.astype(self.dtype), self.a0,
                           dtype=np.float64)
        cross = (self.a0 @ (t * inv).astype(self.dtype)[:, :, None])[..., 0].astype(np.float64)
        if self.dense:
            tsq = np.broadcast_to((t * t * inv).sum(-1, keepdims=True), cross.shape)
        else:
            tsq = (self.w @ (t * t * inv).astype(self.dtype)[:, :, None])[..., 0].astype(
                np.float64)
        return np.maximum(sq - 2.0 * cross + tsq, 0.0).ravel()

    def task_moments(self):
        counts = self._task_counts.reshape(self.groups, self.n)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = self.a0.sum(-2, dtype=np.float64) / counts
            d = self.a0 - mean[:, None, :].astype(self.dtype)
            if self.w is not None:
                d = d * self.w
            var = np.einsum("gij,gij->gj", d, d, dtype=np.float64) / counts
        return mean.ravel(), np.sqrt(var).ravel()

    def task_medians(self):
        a = np.where(self.w.astype(bool), self.a0, np.nan) if self.w is not None else self.a0
        with np.errstate(invalid="ignore"):
            med = np.nanmedian(a.astype(np.float64), axis=-2)
        return med.ravel()


def _all_finite(a) -> bool:
    """Whether every value is finite, by one float64 sum (a NaN or ±inf makes it non-finite;
    float32 values cannot overflow it; float64 ones that do are sent the long way)."""
    return bool(np.isfinite(np.add.reduce(a, axis=None, dtype=np.float64)))


def from_array(matrix, *, dtype=np.float64):
    """An answer source for a ``(m, n)`` or ``(groups, m, n)`` array with ``NaN`` = NULL:
    :class:`DenseAnswers` when more than :data:`DENSE_ABOVE` of the cells are answered (the
    output of a dense-by-design mechanism), else long-format :class:`Answers`."""
    a = np.asarray(matrix)
    if a.size and _all_finite(a):  # no NULL at all (LP, MF): skip the mask
        return DenseAnswers(a, dtype=dtype, finite=True)
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
    gi, wi, ti = np.nonzero(mask)
    return Answers(gi * n + ti, gi * m + wi, c[gi, wi, ti].astype(np.float64), g * n, g * m,
                   groups=g)


def as_source(answers):
    """An answer source for :mod:`crowdpriv.truth`: anything offering the reductions
    (:class:`Answers`, :class:`DenseAnswers`, :mod:`crowdpriv.streaming`'s blocked and factored
    outputs) passes through; an array ``(m, n)`` or ``(groups, m, n)`` with ``NaN`` = NULL is
    wrapped by :func:`from_array`."""
    if hasattr(answers, "task_sums") and hasattr(answers, "worker_losses"):
        return answers
    return from_array(answers)
