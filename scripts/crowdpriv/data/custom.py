"""A user's own dataset: tidy claims (and optional truth) CSVs, checked and normalised."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..tables import read_claims, read_truth

__all__ = ["import_claims_table"]


def import_claims_table(
    claims_path: str | Path, truth_path: str | Path | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read and check a user's claims (``object``, ``source``, ``value``) and truth tables.

    Raises ``ValueError`` naming the file and the offending entry for: missing columns,
    non-numeric values, an empty table, or a source claiming the same object twice. Truth rows
    for objects nobody claimed are dropped. Returns ``(claims, truth)`` sorted by object and
    source, with only the tidy columns.
    """
    claims = read_claims(claims_path)[["object", "source", "value"]]
    if claims.empty:
        raise ValueError(f"{claims_path}: the claims table is empty")
    dup = claims.duplicated(["object", "source"])
    if dup.any():
        first = claims.loc[dup].iloc[0]
        raise ValueError(
            f"{claims_path}: source {first['source']!r} claims object {first['object']!r} more "
            "than once; keep one claim per (object, source)"
        )
    if truth_path is None:
        truth = pd.DataFrame({"object": pd.Series(dtype=str), "truth": pd.Series(dtype=float)})
    else:
        truth = read_truth(truth_path)[["object", "truth"]]
        truth = truth.loc[truth["object"].isin(set(claims["object"]))]
    return (
        claims.sort_values(["object", "source"], kind="stable", ignore_index=True),
        truth.sort_values("object", kind="stable", ignore_index=True),
    )
