"""Validation of every tidy table before anything is computed from it.

Every problem is a :class:`DataError` naming the file, the line (the header is line 1), the
column, the bad value and what to do. Nothing is ever remapped or dropped silently: a blank id
is an error (``pd.factorize`` would code it -1, which numpy reads as the *last* task), and so
are ids with surrounding spaces, non-numeric or non-finite values, duplicate claims or truth
rows, and labels outside the declared domain.
"""

from __future__ import annotations

import logging
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "DataError",
    "read_csv_strict",
    "check_ids",
    "parse_finite",
    "check_unique",
    "check_labels",
    "check_range",
    "resolve_duplicates",
]

_UNSET = object()


class DataError(ValueError):
    """A bad input table: the message names file, line, column, value and the remedy."""

    def __init__(self, path: str | Path, problem: str, *, remedy: str, line: int | None = None,
                 column: str | None = None, value: object = _UNSET):
        where = str(path)
        if line is not None:
            where += f", line {line}"
        if column is not None:
            where += f", column {column!r}"
        shown = "" if value is _UNSET else f" (value {value!r})"
        super().__init__(f"{where}: {problem}{shown}. {remedy}")
        self.path, self.line, self.column = str(path), line, column
        self.value = None if value is _UNSET else value


def _line(position: int) -> int:
    """File line of the ``position``-th data row (0-based), the header being line 1."""
    return int(position) + 2


def read_csv_strict(path: str | Path, required: list[str], what: str,
                    aliases: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a CSV with every cell as a string (no NA guessing: ``NA`` is a valid id).

    ``aliases`` (alias -> name) are renamed; both an alias and its name present is an error.
    Raises :class:`DataError` for a missing or empty file, a malformed row, a missing
    column, or a header without data rows.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, f"{what} file not found", remedy="Check the path in config")
    if path.stat().st_size == 0 or not path.read_bytes().strip():
        raise DataError(path, f"the {what} file is empty",
                        remedy=f"Give a CSV with a header line ({', '.join(required)}) and rows")
    try:
        with warnings.catch_warnings():
            # a first row longer than the header would otherwise become an index, silently
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False,
                             index_col=False)
    except (pd.errors.ParserError, pd.errors.ParserWarning) as err:
        detail = " ".join(str(err).replace("Error tokenizing data. C error: ", "").split())
        raise DataError(path, f"malformed CSV ({detail})",
                        remedy="Every row needs as many fields as the header") from None
    aliases = aliases or {}
    both = [f"{a!r} and {n!r}" for a, n in aliases.items() if a in df.columns and n in df.columns]
    if both:
        raise DataError(path, f"{what} table has both {', '.join(both)}",
                        remedy="Keep one of each (object/source are aliases of task/worker)")
    df = df.rename(columns=aliases)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataError(
            path, f"{what} table lacks column(s) {missing}; found {list(df.columns)}",
            remedy=f"Name the header {', '.join(required)}" + (
                f" ({' and '.join(aliases)} are accepted as aliases of "
                f"{' and '.join(aliases.values())})" if aliases else ""))
    if df.empty:
        raise DataError(path, f"the {what} table is empty (a header but no data rows)",
                        remedy="Add rows, or remove the dataset from config")
    return df


def check_ids(df: pd.DataFrame, path: str | Path, columns: list[str]) -> None:
    """Raise :class:`DataError` on a blank, whitespace-only or space-padded id.

    Each distinct id is checked once (an id column repeats a few thousand ids over up to
    millions of rows); the error counts and names the rows as a per-row check would."""
    for column in columns:
        ids = df[column].astype(str)
        codes, distinct = pd.factorize(ids, use_na_sentinel=False)  # a missing id is one too
        distinct = pd.Series(distinct, dtype=object)
        stripped = distinct.str.strip()
        for bad, problem, remedy in (
            ((stripped == "").to_numpy(), f"empty {column} id",
             "Every row needs a non-blank id; fix or delete the row"),
            ((stripped != distinct).to_numpy(),
             f"{column} id has leading or trailing spaces",
             "Remove the spaces (ids are compared exactly)"),
        ):
            if bad.any():
                rows = np.flatnonzero(bad[codes])
                raise DataError(path, f"{problem} ({rows.size} row(s) in all)",
                                line=_line(rows[0]), column=column, value=ids.iloc[rows[0]],
                                remedy=remedy)


def parse_finite(df: pd.DataFrame, path: str | Path, column: str) -> np.ndarray:
    """``df[column]`` as floats; raise :class:`DataError` on a non-number, NaN or ±inf."""
    text = df[column].astype(str)
    # A column whose every cell parses to a finite number as it is (the usual case) needs no
    # stripping: pandas parses the same text either way. Otherwise the whole column is parsed
    # stripped, as before (a cell only str.strip clears, e.g. a no-break space, can change how
    # pandas types the column, and so the sign of a zero)
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).all():
        values = pd.to_numeric(text.str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        first = bad[0]
        raw = text.iloc[first]
        kind = ("empty" if not raw.strip() else
                "not a number" if math.isnan(values[first]) and raw.strip().lower() not in
                ("nan", "+nan", "-nan") else "not finite")
        raise DataError(path, f"{column} is {kind} ({bad.size} row(s) in all)",
                        line=_line(first), column=column, value=raw,
                        remedy=f"Every {column} must be a finite number; fix or delete the row")
    return values


def check_unique(df: pd.DataFrame, path: str | Path, keys: list[str], remedy: str) -> None:
    """Raise :class:`DataError` on the first row repeating an earlier row's ``keys``."""
    dup = np.flatnonzero(_duplicated(df, keys))
    if dup.size:
        row = df.iloc[dup[0]]
        shown = ", ".join(f"{k}={row[k]!r}" for k in keys)
        raise DataError(path, f"duplicate row for {shown} ({dup.size} duplicate(s) in all)",
                        line=_line(dup[0]), column=keys[-1], remedy=remedy)


def _duplicated(df: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """``df.duplicated(keys)`` (every repeat of an earlier row's keys) through one integer per
    row, each key column's codes combined, when their product fits in int64 (the usual case)."""
    combined = np.zeros(len(df), dtype=np.int64)
    size = 1
    for key in keys:
        codes, distinct = pd.factorize(df[key])
        size *= max(len(distinct), 1)
        if size >= 2**62 or (codes < 0).any():  # too many combinations, or a missing key
            return df.duplicated(keys).to_numpy()
        combined = combined * max(len(distinct), 1) + codes
    return pd.Series(combined).duplicated().to_numpy()


def check_labels(values: np.ndarray, path: str | Path, column: str, domain_size: int,
                 key: str) -> None:
    """Raise :class:`DataError` unless every value is an integer label in ``0..domain_size-1``.

    ``key`` is the config key declaring the domain (e.g. ``ldp_sparse.real_domain_size``).
    """
    values = np.asarray(values, dtype=float)
    bad = np.flatnonzero((values != np.round(values)) | (values < 0) | (values > domain_size - 1))
    if bad.size:
        raise DataError(
            path, f"{column} is outside the label domain 0..{domain_size - 1} declared by "
            f"{key} = {domain_size} ({bad.size} row(s) in all)", line=_line(bad[0]),
            column=column, value=f"{float(values[bad[0]]):g}",
            remedy=f"Code labels as integers 0..{domain_size - 1}, or change {key}")


def check_range(values: np.ndarray, path: str | Path, column: str, low: float, high: float, *,
                key: str) -> None:
    """Raise :class:`DataError` unless every value lies in ``[low, high]``.

    ``key`` is the config key declaring the range (e.g. ``datasets.emotion.value_range``).
    """
    values = np.asarray(values, dtype=float)
    bad = np.flatnonzero((values < low) | (values > high))
    if bad.size:
        raise DataError(
            path, f"{column} is outside the range [{low:g}, {high:g}] declared by {key} "
            f"({bad.size} row(s) in all)", line=_line(bad[0]), column=column,
            value=f"{float(values[bad[0]]):g}", remedy=f"Fix or delete the row, or change {key}")


def resolve_duplicates(df: pd.DataFrame, keys: list[str], *, keep: str, policy: str
                       ) -> pd.DataFrame:
    """A built-in dataset's documented duplicate policy, applied and reported (never silent).

    Keeps the ``keep`` (``"first"``/``"last"``) row per ``keys`` and logs how many rows the
    policy removed, citing ``policy`` (where it is documented); a user's own dataset never
    goes through here (its duplicates are an error, see :func:`check_unique`).
    """
    out = df.drop_duplicates(keys, keep=keep)
    removed = len(df) - len(out)
    logging.getLogger("crowdpriv").info(
        "%d duplicate row(s) per (%s) resolved by keeping the %s (%s)", removed,
        ", ".join(keys), keep, policy)
    out.attrs["duplicates_resolved"] = removed
    return out
