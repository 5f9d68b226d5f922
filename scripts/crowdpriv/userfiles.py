"""A user's answer files in and release files out, for :mod:`crowdpriv.api` and the CLI.

Reading (:func:`read_answer_table`): a CSV path or a DataFrame with ``task``, ``worker`` and
``label`` (categorical) or ``value`` (continuous) columns (``object`` / ``source`` accepted),
parsed as categories — each distinct id and value once — so ten million rows take a few hundred
megabytes, not gigabytes of Python strings; every problem is one :class:`DataError` naming the
file (or DataFrame), line (or row), column, value and what to do.

Writing (:class:`OutputTable`, :func:`write_outputs`): long tables written in chunks into
temporary files (:mod:`crowdpriv.files`), their sha256 computed on the bytes written, then
renamed into place data first, ledger last; progress on stderr for long writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .files import CsvWriter, Progress, atomic_path, check_outputs
from .ledger import SCHEMA_VERSION, json_ready, ledger_path, sha256_file, validate
from .tables import ALIASES
from .validate import DataError

__all__ = ["AnswerTable", "read_answer_table", "OutputTable", "write_outputs", "FLOAT_FORMAT",
           "CHUNK_ROWS"]

#: Ten significant digits, as every CSV of the pipeline.
FLOAT_FORMAT = "%.10g"
#: Rows per chunk when a table is written.
CHUNK_ROWS = 500_000


def _line(position: int) -> int:
    return int(position) + 2


@dataclass
class AnswerTable:
    """Validated answers in long format: sorted distinct ``tasks`` and ``workers`` and, per row,
    their codes and the ``value`` (a label or a number); ``column`` is the input's value column
    (``label`` or ``value``); ``sha256`` the input file's (None for a DataFrame)."""

    source: str
    tasks: np.ndarray
    workers: np.ndarray
    task: np.ndarray
    worker: np.ndarray
    value: np.ndarray
    column: str = "value"
    sha256: str | None = None
    file: str | None = None

    @property
    def rows(self) -> int:
        return int(self.value.size)

    def matrix(self, dtype=np.float64) -> np.ndarray:
        """Workers × tasks, ``NaN`` where a worker gave no answer."""
        out = np.full((self.workers.size, self.tasks.size), np.nan, dtype=dtype)
        out[self.worker, self.task] = self.value
        return out

    def frame(self) -> pd.DataFrame:
        """``task, worker, value`` as a DataFrame (ids as strings)."""
        return pd.DataFrame({"task": self.tasks[self.task], "worker": self.workers[self.worker],
                             "value": self.value})

    def shape(self):
        """What a guarantee depends on: workers, tasks, the most records of one worker."""
        from .mechanisms import DataShape

        per_worker = np.bincount(self.worker, minlength=self.workers.size)
        return DataShape(int(self.workers.size), int(self.tasks.size),
                         int(per_worker.max()) if per_worker.size else 0)


def _as_categories(column: pd.Series, where: str, name: str, kind: str):
    """``(categories as str, codes)`` of a column, categories sorted; a missing cell is an
    error naming its row."""
    cat = column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype("category")
    codes = cat.cat.codes.to_numpy()
    missing = np.flatnonzero(codes < 0)
    if missing.size:
        raise DataError(where, f"{name} is missing ({missing.size} row(s) in all)",
                        line=_line(missing[0]) if kind == "file" else None, column=name,
                        value=None, remedy=f"Every row needs a {name}; fix or delete the row")
    labels = np.asarray(cat.cat.categories).astype(str)
    order = np.argsort(labels, kind="stable")
    remap = np.empty(order.size, dtype=np.int64)
    remap[order] = np.arange(order.size)
    return labels[order], remap[codes].astype(np.int32 if order.size < 2**31 else np.int64)


def _first_row(codes: np.ndarray, bad_categories: np.ndarray) -> tuple[int, int]:
    """(first row whose code is one of ``bad_categories``, how many rows have one)."""
    hit = np.isin(codes, bad_categories)
    rows = np.flatnonzero(hit)
    return int(rows[0]), int(rows.size)


def _check_ids(labels, codes, where, column, kind):
    stripped = np.char.strip(labels.astype(str))
    for problem, bad, remedy in (
            (f"empty {column} id", np.flatnonzero(stripped == ""),
             "Every row needs a non-blank id; fix or delete the row"),
            (f"{column} id has leading or trailing spaces", np.flatnonzero(stripped != labels),
             "Remove the spaces (ids are compared exactly)")):
        if bad.size:
            row, count = _first_row(codes, bad)
            raise DataError(where, f"{problem} ({count} row(s) in all)",
                            line=_line(row) if kind == "file" else None, column=column,
                            value=labels[codes[row]], remedy=remedy)


def _read_csv_categories(path: Path):
    if path.is_dir():
        raise DataError(path, "is a folder, not a CSV file", remedy="Give the answers file")
    if not path.exists():
        raise DataError(path, "answers file not found", remedy="Check the path")
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except PermissionError:
        raise DataError(path, "cannot be read (permission denied)",
                        remedy="Make the file readable, or copy it somewhere readable") from None
    if size == 0 or not head.strip():
        raise DataError(path, "the answers file is empty",
                        remedy="Give a CSV with a header line (task, worker, label or value) "
                               "and rows")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(path, dtype="category", keep_default_na=False, na_filter=False,
                               index_col=False, encoding="utf-8")
    except UnicodeDecodeError as err:
        raise DataError(path, f"is not UTF-8 text ({err.reason} at byte {err.start})",
                        remedy="Save the file as UTF-8 CSV") from None
    except (pd.errors.ParserError, pd.errors.ParserWarning) as err:
        detail = " ".join(str(err).replace("Error tokenizing data. C error: ", "").split())
        raise DataError(path, f"malformed CSV ({detail})",
                        remedy="Every row needs as many fields as the header") from None


def read_answer_table(source, *, domain: int | None = None, where: str = "answers",
                      domain_flag: str = "--domain") -> AnswerTable:
    """Read and validate a user's answers (a CSV path or a DataFrame).

    Columns ``task``, ``worker`` and ``label`` or ``value`` (``object`` / ``source`` accepted
    for ``task`` / ``worker``); ids are strings compared exactly; with ``domain`` every value
    must be an integer label ``0 .. domain-1`` (declared by ``domain_flag``); one answer per
    (task, worker). Raises :class:`DataError` naming file (or ``where``), line (or DataFrame
    row), column, value and the remedy. An :class:`AnswerTable` this returned is returned as it
    is when no ``domain`` is asked (its checks ran: a file released several times is read once).
    """
    if isinstance(source, AnswerTable) and domain is None:
        return source
    if isinstance(source, pd.DataFrame):
        kind, path, digest, name = "frame", where, None, None
        df = source.copy(deep=False)
        df.columns = [str(c) for c in df.columns]
    else:
        kind = "file"
        path = Path(source)
        df = _read_csv_categories(path)
        digest, name = sha256_file(path), str(path)
    both = [f"{a!r} and {n!r}" for a, n in ALIASES.items() if a in df.columns and n in df.columns]
    if both:
        raise DataError(path, f"answers table has both {', '.join(both)}",
                        remedy="Keep one of each (object/source are aliases of task/worker)")
    df = df.rename(columns=ALIASES)
    value_columns = [c for c in ("label", "value") if c in df.columns]
    if len(value_columns) == 2:
        raise DataError(path, "answers table has both 'label' and 'value'",
                        remedy="Keep label for categorical answers or value for continuous ones")
    missing = [c for c in ("task", "worker") if c not in df.columns] + (
        [] if value_columns else ["label or value"])
    if missing:
        raise DataError(path, f"answers table lacks column(s) {missing}; found "
                        f"{list(df.columns)}", remedy="Name the header task, worker and label "
                        "(categorical answers) or value (continuous); object and source are "
                        "accepted for task and worker")
    column = value_columns[0]
    if len(df) == 0:
        raise DataError(path, "the answers table is empty (a header but no data rows)",
                        remedy="Add rows")
    where_rows = str(path) if kind == "file" else f"{where} (DataFrame; rows counted from 0)"
    tasks, task = _as_categories(df["task"], where_rows, "task", kind)
    workers, worker = _as_categories(df["worker"], where_rows, "worker", kind)
    _check_ids(tasks, task, where_rows, "task", kind)
    _check_ids(workers, worker, where_rows, "worker", kind)
    values = _parse_values(df[column], where_rows, column, kind)
    if domain is not None:
        bad = np.flatnonzero((values != np.round(values)) | (values < 0) | (values > domain - 1))
        if bad.size:
            raise DataError(where_rows, f"{column} is outside the label domain 0..{domain - 1} "
                            f"declared by {domain_flag} {domain} ({bad.size} row(s) in all)",
                            line=_line(bad[0]) if kind == "file" else None, column=column,
                            value=f"{values[bad[0]]:g}",
                            remedy=f"Code labels as integers 0..{domain - 1}, or change "
                                   f"{domain_flag}")
    key = pd.Series(worker.astype(np.int64) * max(tasks.size, 1) + task)
    dup = np.flatnonzero(key.duplicated().to_numpy())
    if dup.size:
        row = dup[0]
        raise DataError(where_rows, f"duplicate row for task={str(tasks[task[row]])!r}, "
                        f"worker={str(workers[worker[row]])!r} ({dup.size} duplicate(s) in all)",
                        line=_line(row) if kind == "file" else None, column="worker",
                        remedy="Keep one answer per (task, worker): decide which one and "
                               "delete the others")
    return AnswerTable(str(path), tasks, workers, task, worker, values, column, digest, name)


def _parse_values(series: pd.Series, where, column, kind) -> np.ndarray:
    """Finite floats of a value column, parsed once per distinct text."""
    if pd.api.types.is_numeric_dtype(series) and not isinstance(series.dtype,
                                                                 pd.CategoricalDtype):
        values = series.to_numpy(dtype=np.float64)
        raw = None
    else:
        cat = series if isinstance(series.dtype, pd.CategoricalDtype) \
            else series.astype("category")
        codes = cat.cat.codes.to_numpy()
        if (codes < 0).any():
            first = int(np.flatnonzero(codes < 0)[0])
            raise DataError(where, f"{column} is missing", column=column, value=None,
                            line=_line(first) if kind == "file" else None,
                            remedy=f"Every {column} must be a finite number; fix or delete "
                                   "the row")
        texts = np.asarray(cat.cat.categories).astype(str)
        parsed = pd.to_numeric(pd.Series(np.char.strip(texts)), errors="coerce").to_numpy(
            dtype=np.float64)
        values = parsed[codes]
        raw = texts[codes] if not np.isfinite(parsed).all() else None
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        first = int(bad[0])
        text = raw[first] if raw is not None else values[first]
        kind_of = ("empty" if isinstance(text, str) and not text.strip() else
                   "not a number" if isinstance(text, str) and np.isnan(values[first])
                   and text.strip().lower() not in ("nan", "+nan", "-nan") else "not finite")
        raise DataError(where, f"{column} is {kind_of} ({bad.size} row(s) in all)",
                        line=_line(first) if kind == "file" else None, column=column,
                        value=text if isinstance(text, str) else float(text),
                        remedy=f"Every {column} must be a finite number; fix or delete the row")
    return values


@dataclass
class OutputTable:
    """A long output table kept as arrays (ids as codes into their categories), written in
    chunks: ``columns`` is ``[(name, values, categories or None)]``."""

    columns: list = field(default_factory=list)

    @property
    def rows(self) -> int:
        return int(len(self.columns[0][1])) if self.columns else 0

    @property
    def names(self) -> list[str]:
        return [name for name, _, _ in self.columns]

    def chunk(self, start: int, stop: int) -> pd.DataFrame:
        data = {}
        for name, values, categories in self.columns:
            part = values[start:stop]
            data[name] = categories[part] if categories is not None else part
        return pd.DataFrame(data, columns=self.names)

    def frame(self) -> pd.DataFrame:
        return self.chunk(0, self.rows)

    def _plain_text(self, start: int, stop: int) -> str | None:
        """Rows ``start … stop − 1`` as :meth:`write`'s ``DataFrame.to_csv`` writes them
        (``FLOAT_FORMAT`` per float, NaN empty, ``str`` of integers, strings as they are), for
        the common case pandas formats one value at a time through several layers: numeric
        columns and strings that need no quoting, two columns or more. None otherwise (the
        caller then asks pandas)."""
        if len(self.columns) < 2 or stop <= start:
            return None
        texts = []
        for _, values, categories in self.columns:
            part = values[start:stop]
            if categories is not None:
                labels = np.asarray(categories)
                if labels.dtype.kind not in "OU":
                    return None
                strings = labels.tolist()
                if not all(type(x) is str for x in strings) or _needs_quotes(strings):
                    return None
                texts.append([strings[i] for i in np.asarray(part).tolist()])
                continue
            part = np.asarray(part)
            if part.dtype.kind == "f":
                strings = [FLOAT_FORMAT % x for x in part.tolist()]
                for i in np.flatnonzero(np.isnan(part)).tolist():
                    strings[i] = ""
            elif part.dtype.kind in "iu":
                strings = list(map(str, part.tolist()))
            elif part.dtype.kind in "OU":
                strings = part.tolist()
                if not all(type(x) is str for x in strings) or _needs_quotes(strings):
                    return None
            else:
                return None
            texts.append(strings)
        return "\n".join(map(",".join, zip(*texts))) + "\n"

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> "OutputTable":
        return cls([(str(c), frame[c].to_numpy(), None) for c in frame.columns])

    def write(self, writer: CsvWriter, progress: Progress | None = None) -> None:
        header = ",".join(self.names) + "\n"
        writer.write(header)
        for start in range(0, self.rows, CHUNK_ROWS):
            stop = min(start + CHUNK_ROWS, self.rows)
            text = self._plain_text(start, stop)
            if text is None:
                text = self.chunk(start, stop).to_csv(index=False, header=False,
                                                      float_format=FLOAT_FORMAT,
                                                      lineterminator="\n")
            writer.write(text, rows=stop - start)
            if progress is not None:
                progress(stop)


def _needs_quotes(strings) -> bool:
    """Whether the csv writer of ``DataFrame.to_csv`` would quote any of ``strings`` (a
    delimiter, quote or line break in it; an empty string, quoted when a row has no other
    field, is left to pandas too)."""
    joined = "\x00".join(strings)
    return any(ch in joined for ch in ',"\n\r') or "" in strings


def write_outputs(output: str | Path, table: OutputTable, ledger: dict, *,
                  extra: dict[str, OutputTable] | None = None, inputs=(),
                  progress: bool = True) -> Path:
    """Write a release: the data, then every ``extra`` table (``<stem>.<name>.csv``), then the
    ledger ``<output>.privacy.json`` carrying each file's sha256, rows and columns — all into
    temporary files first; an older ledger is removed before the data is renamed into place,
    so data and ledger either both describe this run or the data has no ledger (which a
    reader treats as incomplete). Outputs that resolve to an input or to each other are
    refused before anything is written. Returns the ledger's path."""
    output = Path(output)
    extra = extra or {}
    extra_paths = {name: output.with_name(f"{output.stem}.{name}.csv") for name in extra}
    ledger_file = ledger_path(output)
    check_outputs(inputs, [output, *extra_paths.values(), ledger_file])
    writers: list[tuple[CsvWriter, Path]] = []
    try:
        data = CsvWriter(output)
        writers.append((data, output))
        show = Progress(f"writing {output}", table.rows) if progress else None
        table.write(data, show)
        data.finish()
        if show is not None:
            show.finish(table.rows)
        described = {"file": output.name, "sha256": data.sha256, "rows": table.rows,
                     "columns": table.names}
        files = {}
        for name, part in extra.items():
            writer = CsvWriter(extra_paths[name])
            writers.append((writer, extra_paths[name]))
            part.write(writer)
            writer.finish()
            files[name] = {"file": extra_paths[name].name, "sha256": writer.sha256,
                           "rows": part.rows, "columns": part.names}
        if files:
            described["extra"] = files
        final = json_ready({"schema": SCHEMA_VERSION, **ledger, "data": described})
        validate(final)
        text = json.dumps(final, indent=2, ensure_ascii=False) + "\n"
        with atomic_path(ledger_file.with_name(ledger_file.name + ".next")) as staged:
            Path(staged).write_text(text)
        staged = ledger_file.with_name(ledger_file.name + ".next")
        with contextlib.suppress(FileNotFoundError):
            ledger_file.unlink()  # never an old ledger beside new data
        for writer, _ in writers:
            writer.commit()
        os.replace(staged, ledger_file)
    except BaseException:
        for writer, _ in writers:
            writer.abort()
        with contextlib.suppress(OSError):
            ledger_file.with_name(ledger_file.name + ".next").unlink()
        raise
    return ledger_file
