"""A user's own dataset: tidy claims (and optional truth) CSVs, checked and normalised."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..tables import read_claims, read_truth

__all__ = ["import_claims_table"]


def import_claims_table(
    claims_path: str | Path, truth_path: str | Path | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read and check a user's claims (``task``, ``worker``, ``value``) and truth tables.

    ``object``/``source`` are accepted as aliases of ``task``/``worker``
    (:data:`crowdpriv.tables.ALIASES`). Raises ``ValueError`` naming the file and the offending
    entry for: missing columns, non-numeric values, an empty table, or a worker claiming the
    same task twice. Truth rows for tasks nobody claimed are dropped. Returns
    ``(claims, truth)`` sorted by task and worker, with only the tidy columns.
    """
    claims = read_claims(claims_path)[["task", "worker", "value"]]
    if claims.empty:
        raise ValueError(f"{claims_path}: the claims table is empty")
    dup = claims.duplicated(["task", "worker"])
    if dup.any():
        first = claims.loc[dup].iloc[0]
        raise ValueError(
            f"{claims_path}: worker {first['worker']!r} claims task {first['task']!r} more "
            "than once; keep one claim per (task, worker)"
        )
    if truth_path is None:
        truth = pd.DataFrame({"task": pd.Series(dtype=str), "truth": pd.Series(dtype=float)})
    else:
        truth = read_truth(truth_path)[["task", "truth"]]
        truth = truth.loc[truth["task"].isin(set(claims["task"]))]
    return (
        claims.sort_values(["task", "worker"], kind="stable", ignore_index=True),
        truth.sort_values("task", kind="stable", ignore_index=True),
    )
