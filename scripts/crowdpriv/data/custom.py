"""A user's own dataset: tidy claims (and optional truth) CSVs, validated and normalised."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from ..tables import read_claims, read_truth

__all__ = ["import_claims_table"]


def import_claims_table(
    claims_path: str | Path, truth_path: str | Path | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read and validate a user's claims (``task``, ``worker``, ``value``) and truth tables.

    ``object``/``source`` are accepted as aliases of ``task``/``worker``
    (:data:`crowdpriv.tables.ALIASES`). Every check of :func:`crowdpriv.tables.read_claims` and
    :func:`~crowdpriv.tables.read_truth` applies (a :class:`crowdpriv.validate.DataError` names
    file, line, column, value and remedy); a custom dataset's duplicate (task, worker) claims are
    an error, never resolved. Truth rows for tasks nobody claimed are left out, and counted in
    the log. Returns ``(claims, truth)`` sorted by task and worker, with only the tidy columns.
    """
    claims = read_claims(claims_path)[["task", "worker", "value"]]
    if truth_path is None:
        truth = pd.DataFrame({"task": pd.Series(dtype=str), "truth": pd.Series(dtype=float)})
    else:
        truth = read_truth(truth_path)[["task", "truth"]]
        claimed = truth["task"].isin(set(claims["task"]))
        logging.getLogger("crowdpriv").info(
            "%s: %d of %d truth rows are for tasks nobody claimed; left out", truth_path,
            int((~claimed).sum()), len(truth))
        truth = truth.loc[claimed]
    return (
        claims.sort_values(["task", "worker"], kind="stable", ignore_index=True),
        truth.sort_values("task", kind="stable", ignore_index=True),
    )
