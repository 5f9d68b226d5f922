"""Readers and converters for the tidy claims/truth tables every rule exchanges.

``claims.csv``: columns ``task``, ``worker``, ``value`` (one claim per worker and task).
``truth.csv``: columns ``task``, ``truth``. A user's own files may say ``object`` for ``task``
and ``source`` for ``worker`` (the words of PrisCrowd and PPTD): :data:`ALIASES` are renamed on
read, never both at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .validate import DataError, check_ids, check_labels, check_unique, parse_finite, read_csv_strict

__all__ = ["ALIASES", "ClaimMatrix", "align_truth", "read_claims", "read_truth",
           "claims_to_matrix"]

#: Input column aliases: alias -> the pipeline's name.
ALIASES = {"object": "task", "source": "worker"}


def read_claims(path: str | Path, *, domain_size: int | None = None,
                domain_key: str = "") -> pd.DataFrame:
    """Read and validate a tidy claims CSV (``task``, ``worker``, ``value``).

    Raises :class:`crowdpriv.validate.DataError` (file, line, column, value, remedy) for an
    empty file, missing columns, a blank or space-padded id, a non-finite value, a worker
    claiming a task twice, or, when ``domain_size`` is given, a value that is not a label
    ``0..domain_size-1`` (declared by config key ``domain_key``). Ids are kept as strings.
    """
    df = read_csv_strict(path, ["task", "worker", "value"], "claims", ALIASES)
    check_ids(df, path, ["task", "worker"])
    values = parse_finite(df, path, "value")
    if domain_size is not None:
        check_labels(values, path, "value", domain_size, domain_key)
    check_unique(df, path, ["task", "worker"],
                 remedy="Keep one claim per (task, worker): decide which one and delete the others")
    df["value"] = values
    return df


def read_truth(path: str | Path, *, domain_size: int | None = None,
               domain_key: str = "") -> pd.DataFrame:
    """Read and validate a tidy truth CSV (``task``, ``truth``): non-blank task ids, finite
    truths (gold labels in ``0..domain_size-1`` when given), one row per task."""
    df = read_csv_strict(path, ["task", "truth"], "truth", ALIASES)
    check_ids(df, path, ["task"])
    values = parse_finite(df, path, "truth")
    if domain_size is not None:
        check_labels(values, path, "truth", domain_size, domain_key)
    check_unique(df, path, ["task"], remedy="Keep one truth row per task")
    df["truth"] = values
    return df


def align_truth(truth: pd.DataFrame, tasks: np.ndarray, path: str | Path, *,
                require: str = "any") -> np.ndarray:
    """Truth of each of ``tasks`` (NaN where absent) from a :func:`read_truth` table.

    ``require="all"``: every task needs a truth (PPTD measures against all of them);
    ``"any"``: at least one does (accuracy over the tasks with gold). Otherwise a
    :class:`crowdpriv.validate.DataError` names the truth file and a task lacking one.
    """
    aligned = truth.set_index("task")["truth"].reindex(tasks).to_numpy(dtype=float)
    lacking = np.flatnonzero(np.isnan(aligned))
    if require == "all" and lacking.size:
        raise DataError(path, f"{lacking.size} claimed task(s) have no truth row, e.g. task "
                        f"{tasks[lacking[0]]!r}", remedy="Give a truth row for every claimed task")
    if require == "any" and lacking.size == len(tasks):
        raise DataError(path, "no claimed task has a truth row, so accuracy cannot be measured",
                        remedy="Give truth rows for the claimed tasks")
    return aligned


@dataclass(frozen=True)
class ClaimMatrix:
    """Workers × tasks matrix of claims, ``NaN`` where a worker made no claim (NULL)."""

    values: np.ndarray
    workers: np.ndarray
    tasks: np.ndarray

    @property
    def answered(self) -> np.ndarray:
        return ~np.isnan(self.values)


def claims_to_matrix(claims: pd.DataFrame) -> ClaimMatrix:
    """Pivot a tidy claims table into a :class:`ClaimMatrix` (rows sorted workers, columns tasks)."""
    dup = claims.duplicated(["task", "worker"])
    if dup.any():
        first = claims.loc[dup].iloc[0]
        raise ValueError(
            f"duplicate claim for task {first['task']!r} by worker {first['worker']!r}"
        )
    worker_codes, workers = pd.factorize(claims["worker"], sort=True)
    task_codes, tasks = pd.factorize(claims["task"], sort=True)
    if (worker_codes < 0).any() or (task_codes < 0).any():
        # factorize codes a missing id -1, which numpy would read as the last row or column
        raise ValueError("claims have a missing task or worker id; validate with read_claims")
    values = np.full((len(workers), len(tasks)), np.nan)
    values[worker_codes, task_codes] = claims["value"].to_numpy(dtype=float)
    return ClaimMatrix(values, np.asarray(workers), np.asarray(tasks))
