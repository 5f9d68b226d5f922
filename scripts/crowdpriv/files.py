"""Writing files a user can trust: never half-written, never over an input.

Every file is written to a temporary file in the target's folder (``.<name>.tmp-<pid>``),
flushed to disk and renamed onto the target (:func:`atomic_path`); a failure or an interrupt
(Ctrl-C, a full disk) removes the temporary file and leaves the target as it was.
:func:`check_outputs` refuses, before anything is written, an output that resolves to an input
or to another output.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import time
from pathlib import Path

__all__ = ["atomic_path", "write_text", "check_outputs", "OutputClash", "CsvWriter",
           "Progress"]


class OutputClash(ValueError):
    """An output path that is an input, another output, or cannot be written."""


@contextlib.contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path beside ``path``; on success fsync it and rename it onto
    ``path``; on any exception (KeyboardInterrupt included) remove it and re-raise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        yield tmp
        with open(tmp, "rb+") as handle:
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text)


def check_outputs(inputs, outputs) -> None:
    """Refuse (:class:`OutputClash`, one line naming both paths) when an output resolves to an
    input or to another output, or is an existing folder."""
    resolved_in = {os.path.realpath(p): str(p) for p in inputs if p is not None}
    seen: dict[str, str] = {}
    for out in outputs:
        real = os.path.realpath(out)
        if os.path.isdir(real):
            raise OutputClash(f"output {out} is a folder; give a file name")
        if real in resolved_in:
            raise OutputClash(f"output {out} is the input {resolved_in[real]}: the input would "
                              "be overwritten; choose another output name")
        if real in seen:
            raise OutputClash(f"outputs {seen[real]} and {out} are the same file; choose "
                              "another output name")
        seen[real] = str(out)


class Progress:
    """Progress of a long write on stderr (rows, rows/s), at most every ``every`` seconds and
    only once the job has run for ``after`` seconds (short jobs stay silent)."""

    def __init__(self, what: str, total: int, *, every: float = 2.0, after: float = 2.0,
                 stream=None):
        self.what, self.total, self.every, self.after = what, int(total), every, after
        self.stream = stream if stream is not None else sys.stderr
        self.start = self.last = time.monotonic()
        self.shown = False

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.start < self.after or now - self.last < self.every:
            return
        self.last, self.shown = now, True
        rate = done / max(now - self.start, 1e-9)
        print(f"crowdpriv: {self.what}: {done:,} of {self.total:,} rows "
              f"({rate:,.0f} rows/s)", file=self.stream, flush=True)

    def finish(self, done: int) -> None:
        if self.shown:
            elapsed = time.monotonic() - self.start
            print(f"crowdpriv: {self.what}: {done:,} rows in {elapsed:.1f} s",
                  file=self.stream, flush=True)


class CsvWriter:
    """A CSV written in chunks into a temporary file, its sha256 computed on the bytes written,
    renamed into place by :meth:`commit` (or removed on :meth:`abort`)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        self.handle = open(self.tmp, "wb")  # noqa: SIM115 - closed in commit/abort
        self.digest = hashlib.sha256()
        self.rows = 0

    def write(self, text: str, rows: int = 0) -> None:
        data = text.encode("utf-8")
        self.handle.write(data)
        self.digest.update(data)
        self.rows += rows

    @property
    def sha256(self) -> str:
        return self.digest.hexdigest()

    def finish(self) -> None:
        """Flush and sync the temporary file (ready for :meth:`commit`)."""
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()

    def commit(self) -> None:
        """Rename the finished temporary file onto the target."""
        if not self.handle.closed:
            self.finish()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()
        with contextlib.suppress(OSError):
            self.tmp.unlink()
