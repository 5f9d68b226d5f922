"""Readers and converters for the tidy claims/truth tables every rule exchanges.

``claims.csv``: columns ``object``, ``source``, ``value`` (one claim per source and object).
``truth.csv``: columns ``object``, ``truth``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["ClaimMatrix", "read_claims", "read_truth", "claims_to_matrix"]


def read_claims(path: str | Path) -> pd.DataFrame:
    """Read a tidy claims CSV, checking its columns and that every value is numeric."""
    df = pd.read_csv(path, dtype={"object": str, "source": str})
    missing = {"object", "source", "value"} - set(df.columns)
    if missing:
        raise ValueError(f"{path}: claims table lacks column(s) {sorted(missing)}")
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
    """Read a tidy truth CSV (``object``, ``truth``)."""
    df = pd.read_csv(path, dtype={"object": str})
    missing = {"object", "truth"} - set(df.columns)
    if missing:
        raise ValueError(f"{path}: truth table lacks column(s) {sorted(missing)}")
    df["truth"] = pd.to_numeric(df["truth"], errors="raise").astype(float)
    return df


@dataclass(frozen=True)
class ClaimMatrix:
    """Sources × objects matrix of claims, ``NaN`` where a source made no claim (NULL)."""

    values: np.ndarray
    sources: np.ndarray
    objects: np.ndarray

    @property
    def answered(self) -> np.ndarray:
        return ~np.isnan(self.values)


def claims_to_matrix(claims: pd.DataFrame) -> ClaimMatrix:
    """Pivot a tidy claims table into a :class:`ClaimMatrix` (rows sorted sources, columns objects)."""
    dup = claims.duplicated(["object", "source"])
    if dup.any():
        first = claims.loc[dup].iloc[0]
        raise ValueError(
            f"duplicate claim for object {first['object']!r} by source {first['source']!r}"
        )
    src_codes, sources = pd.factorize(claims["source"], sort=True)
    obj_codes, objects = pd.factorize(claims["object"], sort=True)
    values = np.full((len(sources), len(objects)), np.nan)
    values[src_codes, obj_codes] = claims["value"].to_numpy(dtype=float)
    return ClaimMatrix(values, np.asarray(sources), np.asarray(objects))
