"""Population dataset (Pasternack & Roth, COLING 2010) as used by PrisCrowd (Huai et al. 2019).

PrisCrowd takes the preprocessing of Wan et al. (KDD 2016): drop values > 1e8, keep the latest
claim per (source, object), drop objects whose claims are all equal. An object is
``"<city, state>, <year>"`` in lower case, which is also the key of the raw truth file.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from .._checks import check_positive
from ..validate import resolve_duplicates

__all__ = [
    "read_population_truth",
    "read_pop_data_csv",
    "parse_pop_tuples",
    "pop_tuples_to_claims",
    "filter_population_claims",
]

_TIME_SPAN = re.compile(
    r"^\[(\d{1,2})/(\d{1,2})/(\d{4}) [^\]]* to (\d{1,2})/(\d{1,2})/(\d{4}) [^\]]*\]$"
)


def read_population_truth(path: str | Path) -> pd.DataFrame:
    """Read ``popAnswersOut.txt`` (``city, state, year, value`` per line, no header).

    Returns a truth table with ``object = "city, state, year"`` lower-cased.
    """
    rows = []
    for lineno, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 3:
            raise ValueError(f"{path}:{lineno}: malformed truth line {line!r}")
        *place, value = parts
        try:
            truth = float(value)
        except ValueError:
            raise ValueError(f"{path}:{lineno}: non-numeric truth value {value!r}") from None
        rows.append((", ".join(place).lower(), truth))
    df = pd.DataFrame(rows, columns=["task", "truth"])
    return df.drop_duplicates("task", keep="last").reset_index(drop=True)


def read_pop_data_csv(path: str | Path) -> pd.DataFrame:
    """Read bykau's derived ``pop_data.csv`` (columns ``S``, ``O``, ``V``).

    That table already keeps the last claim per (source, city, year) in time-span order.
    """
    df = pd.read_csv(path, usecols=["S", "O", "V"], dtype={"S": str, "O": str})
    values = pd.to_numeric(df["V"], errors="coerce")
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise ValueError(f"{path}: non-numeric value {df['V'].iloc[row]!r} in data row {row + 1}")
    return pd.DataFrame(
        {"task": df["O"].str.strip().str.lower(), "worker": df["S"], "value": values.astype(float)}
    )


def parse_pop_tuples(path: str | Path) -> pd.DataFrame:
    """Parse the raw ``popTuples.txt`` format (8 tab-separated fields per line, no header).

    Fields: city, dataset name, infobox type, edit location, source id, revision id, time span
    ``[m/d/yyyy ... to m/d/yyyy ...]``, value. The year is taken from the span's end date, parsed
    properly (the original code's ``time_span[5:9]`` breaks on two-digit months and days).

    Returns
    -------
    DataFrame with columns ``city``, ``source``, ``revision``, ``year``, ``value``.
    """
    records = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != 8:
                raise ValueError(
                    f"{path}:{lineno}: malformed line, expected 8 tab-separated fields, "
                    f"got {len(fields)}: {line[:80]!r}"
                )
            city, _, _, _, source, revision, span, value = fields
            match = _TIME_SPAN.match(span.strip())
            if match is None:
                raise ValueError(f"{path}:{lineno}: malformed time span {span!r}")
            try:
                number = float(value.replace(",", ""))
                rev = int(revision)
            except ValueError:
                raise ValueError(
                    f"{path}:{lineno}: non-numeric value {value!r} or revision {revision!r}"
                ) from None
            records.append((city.strip(), source.strip(), rev, int(match.group(6)), number))
    return pd.DataFrame(records, columns=["city", "worker", "revision", "year", "value"])


def pop_tuples_to_claims(tuples: pd.DataFrame) -> pd.DataFrame:
    """Turn parsed raw tuples into claims, keeping the latest revision per (source, object)."""
    objects = tuples["city"].str.lower() + ", " + tuples["year"].astype(str)
    df = pd.DataFrame(
        {
            "task": objects,
            "worker": tuples["worker"].str.lower(),
            "value": tuples["value"].astype(float),
            "revision": tuples["revision"],
        }
    )
    df = resolve_duplicates(df.sort_values("revision", kind="stable"), ["task", "worker"],
                            keep="last", policy="latest revision, as Wan et al.'s KDEm")
    return df.drop(columns="revision").reset_index(drop=True)


def filter_population_claims(claims: pd.DataFrame, *, max_value: float = 1e8) -> pd.DataFrame:
    """Apply Wan et al.'s filtering as PrisCrowd does.

    1. drop claims with value > ``max_value``;
    2. keep the last claim per (source, object) in table order;
    3. drop objects whose claims are all equal (this includes single-claim objects).
    """
    check_positive("max_value", max_value)
    df = claims.loc[claims["value"] <= max_value]
    df = resolve_duplicates(df, ["task", "worker"], keep="last",
                            policy="last claim in table order, as PrisCrowd")
    distinct = df.groupby("task")["value"].transform("nunique")
    df = df.loc[distinct > 1]
    return df.sort_values(["task", "worker"], kind="stable").reset_index(drop=True)
