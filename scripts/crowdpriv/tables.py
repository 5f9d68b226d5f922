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

__all__ = ["ALIASES", "ClaimMatrix", "read_claims", "read_truth", "claims_to_matrix"]

#: Input column aliases: alias -> the pipeline's name.
ALIASES = {"object": "task", "source": "worker"}


def _read_with_aliases(path: str | Path, required: list[str], what: str) -> pd.DataFrame:
    """Read a CSV with id columns as strings, renaming :data:`ALIASES`; check ``required``."""
    header = pd.read_csv(path, nrows=0).columns
    both = [f"{alias!r} and {name!r}" for alias, name in ALIASES.items()
            if alias in header and name in header]
    if both:
        raise ValueError(f"{path}: {what} table has both {', '.join(both)}; keep one of each "
                         "(object/source are accepted as aliases of task/worker)")
    ids = {c: str for c in header if ALIASES.get(c, c) in ("task", "worker")}
    df = pd.read_csv(path, dtype=ids).rename(columns=ALIASES)
    missing = sorted(set(required) - set(df.columns))
    if missing:
        raise ValueError(f"{path}: {what} table lacks column(s) {missing} (object and source "
                         "are accepted as aliases of task and worker)")
    return df


def read_claims(path: str | Path) -> pd.DataFrame:
    """Read a tidy claims CSV (``task``, ``worker``, ``value``), checking every value is numeric."""
    df = _read_with_aliases(path, ["task", "worker", "value"], "claims")
    values = pd.to_numeric(df["value"], errors="coerce")
    bad = values.isna() & df["value"].notna() | df["value"].isna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"{path}: non-numeric value {df['value'].iloc[row]!r} in data row {row + 1}"
        )
    df["value"] = values.astype(float)
    return df


def read_truth(path: str | Path) -> pd.DataFrame:
    """Read a tidy truth CSV (``task``, ``truth``)."""
    df = _read_with_aliases(path, ["task", "truth"], "truth")
    df["truth"] = pd.to_numeric(df["truth"], errors="raise").astype(float)
    return df


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
    values = np.full((len(workers), len(tasks)), np.nan)
    values[worker_codes, task_codes] = claims["value"].to_numpy(dtype=float)
    return ClaimMatrix(values, np.asarray(workers), np.asarray(tasks))
