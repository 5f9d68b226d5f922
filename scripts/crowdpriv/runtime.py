"""Small helpers shared by the adapter scripts (no Snakemake import).

Adapters call :func:`start_job` first: warnings and errors land in the rule's log, a bad input
is reported as one clear message (file, row, column or config key path, value, remedy) instead
of a traceback, and raw inputs are re-verified. Tables are written with :func:`write_csv`, whose
fixed float format makes reruns byte-identical. :class:`Progress` logs long loops.
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import resource
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from .jobserver import process_age

if TYPE_CHECKING:  # pandas is imported where a table is written: a job that writes none
    import pandas as pd  # (fetch_raw) never pays for it

__all__ = [
    "FLOAT_FORMAT",
    "CALIBRATION_ANSWERS",
    "Progress",
    "calibration_unit",
    "cpu_record_path",
    "finish_job",
    "glibc",
    "record_run_cpu",
    "record_job_server_cpu",
    "JOB_SERVER_RECORD",
    "RUN_RECORD",
    "job_cpu",
    "record_job_cpu",
    "config_key_message",
    "keep_freed_memory",
    "column_formatter",
    "log_to",
    "markdown_table",
    "start_job",
    "write_csv",
    "write_markdown",
]

#: Ten significant digits: stable across platforms, ample for every reported quantity.
FLOAT_FORMAT = "%.10g"


def log_to(log_path: str | Path) -> logging.Logger:
    """Send stderr and the ``crowdpriv`` logger to ``log_path`` (the rule's ``log:``)."""
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    handle = open(log_path, "w", buffering=1)  # noqa: SIM115 - lives as long as the job
    sys.stderr = handle
    logger = logging.getLogger("crowdpriv")
    logger.handlers[:] = [logging.StreamHandler(handle)]
    logger.setLevel(logging.INFO)
    logging.captureWarnings(True)
    return logger


def _find_list(params: Any, path: list[str]) -> list | None:
    """The list stored under the key path ``path`` anywhere in a job's (nested) params."""
    stack = [params]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            node = item
            for part in path:
                node = node.get(part) if isinstance(node, Mapping) else None
            if isinstance(node, list):
                return node
            stack.extend(item.values())
    return None


def _list_of_key(params: Any, key: str) -> list | None:
    """The config list ``key`` (dotted) as a job received it: the longest matching key-path tail
    (``fig4.m`` before ``m``), so that another block's list of the same name is not taken."""
    parts = key.split(".")
    for start in range(1, len(parts)):
        found = _find_list(params, parts[start:])
        if found is not None:
            return found
    return None


def config_key_message(err: Exception, config_keys: Mapping[str, str], params: Any = None
                       ) -> str | None:
    """``err`` (a :class:`crowdpriv._checks.ParameterError`) restated with its config key path.

    ``config_keys`` maps the code's parameter names to config key paths (built from a job's
    ``params.config`` by :func:`crowdpriv.jobs.key_paths`); when the key's list is among the job's
    ``params``, the value's position is added: ``ldp_sparse.fig2.epsilons[3] = 0.0: ...``.
    Returns None when the parameter is not in ``config_keys``.
    """
    parameter = getattr(err, "parameter", None)
    if parameter is None:
        return None
    key = config_keys.get(parameter) or config_keys.get(parameter.rsplit(".", 1)[-1])
    if key is None:
        return None
    value = getattr(err, "value", None)
    values = _list_of_key(params, key) if params is not None else None
    where = key
    if values is not None:
        matches = [i for i, v in enumerate(values) if v == value]
        if matches:
            where = f"{key}[{matches[0]}]"
    return f"config key {where} = {value!r}: {err}"


#: Errors that describe the user's input (data, config, raw files): shown as one message.
def _is_input_error(err: BaseException) -> bool:
    from ._checks import ParameterError
    from .data.acquire import ChecksumError
    from .files import OutputClash
    from .validate import DataError

    return isinstance(err, (ParameterError, DataError, ChecksumError, FileNotFoundError,
                            OutputClash))


#: glibc mallopt parameters (malloc.h): M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD.
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


def keep_freed_memory() -> bool:
    """Let glibc's malloc reuse freed large blocks instead of returning them to the kernel.

    By default every array above ~32 MB is its own ``mmap``: freeing it unmaps it and the next
    one of that size is faulted in and zeroed again, page by page. The experiments allocate
    and free such temporaries by the hundred (a 10,000 × 1,000 float32 matrix is 40 MB), which
    measured 25 % of an LDP-sparse Fig. 4 job (6.1 s of system time of 24.2 s; 0.6 s with
    this). Large blocks then come from the heap (mmap threshold 1 GiB) and freed memory stays
    with the process (trim threshold 2 GiB, top pad 256 MiB), so a job's peak resident memory
    is about the same but is not given back before the job ends. No effect on any number.
    Returns whether it applied (glibc only; elsewhere nothing changes).
    """
    libc = glibc()
    if libc is None:
        return False
    try:
        return all(libc.mallopt(param, value) == 1 for param, value in (
            (_M_MMAP_THRESHOLD, 1 << 30), (_M_TRIM_THRESHOLD, (1 << 31) - 1),
            (_M_TOP_PAD, 1 << 28)))
    except AttributeError:
        return False


@functools.cache
def glibc():
    """This process's C library through ``ctypes`` when it is glibc, else None; looked up once
    (finding it reads the interpreter's binary and runs ``ldconfig -p``; the job server looks
    it up before it forks, so no job does)."""
    import ctypes
    import ctypes.util
    import platform

    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def start_job(snakemake: Any) -> logging.Logger:
    """Begin a pipeline job: log to ``snakemake.log[0]``, explain input errors, refuse an output
    that is an input, verify raw files.

    An input error raised later in the job (bad data, a config value the code rejects, a damaged
    raw file) ends the job with one message in the log, which the workflow profile's
    ``show-failed-logs`` prints on the terminal: a config value is named by its key path
    (from ``params.config``, the values the job reads in the config's shape,
    :func:`crowdpriv.jobs.key_paths`). Other exceptions keep their traceback. Raw inputs listed in
    ``params.raw_pins`` ({path: {sha256, size}}) are re-verified before anything reads them.
    """
    logger = log_to(snakemake.log[0])
    record_job_cpu(cpu_record_path(snakemake.log[0]), rule=snakemake.rule,
                   wildcards=dict(getattr(snakemake, "wildcards", {}) or {}))
    from .jobserver import how_this_job_runs

    logger.info("rule %s, threads %s, BLAS/OpenMP threads %s, freed memory kept: %s; %s",
                snakemake.rule, getattr(snakemake, "threads", "?"),
                os.environ.get("OPENBLAS_NUM_THREADS", "unset"), keep_freed_memory(),
                how_this_job_runs())
    params = dict(snakemake.params.items()) if hasattr(snakemake.params, "items") else {}
    from .jobs import key_paths

    keys = key_paths(params.get("config") or {})

    def excepthook(kind, err, tb):
        _CPU_RECORD["failed"] = True
        if _is_input_error(err):
            message = config_key_message(err, keys, params) or str(err)
            print(f"crowdpriv input error in rule {snakemake.rule}: {message}", file=sys.stderr)
        else:
            traceback.print_exception(kind, err, tb, file=sys.stderr)
        sys.stderr.flush()

    sys.excepthook = excepthook
    from .files import check_outputs

    # An output that resolves to one of the job's inputs (or to another output) is refused
    # before anything is written; Snakemake's DAG refuses it too, this holds wherever an
    # adapter runs. A directory() output is a folder by design.
    check_outputs(list(getattr(snakemake, "input", ()) or ()),
                  [out for out in getattr(snakemake, "output", ()) or () if not os.path.isdir(out)])
    from .labels import set_dataset_labels

    set_dataset_labels((getattr(snakemake, "config", None) or {}).get("dataset_labels"))
    pins = params.get("raw_pins") or {}
    if pins:
        from .data.acquire import verify_local_copy

        for path, pin in pins.items():
            verify_local_copy(path, sha256=pin["sha256"], size=pin.get("size"))
        logger.info("re-verified %d raw file(s) (size + sha256)", len(pins))
    return logger


def finish_job() -> NoReturn:
    """End a pipeline job whose outputs are written, without the interpreter's finalization.

    First what a normal exit runs: ``threading._shutdown`` (what the interpreter calls: its
    exit hooks stop ``concurrent.futures`` workers, then the threads that are not daemons are
    joined), every ``atexit`` handler (the CPU record of :func:`record_job_cpu`;
    ``logging.shutdown``, which flushes the log), then stdout and stderr are flushed; a flush
    that fails exits 120, as Python's own exit does. Then ``os._exit``. What is skipped is the
    interpreter's finalization, destroying every module and object one by one: about
    0.3-0.45 CPU-s per job on this project's 2-core machine kind with pandas and numpy loaded
    (issue 28: a default run's CPU outside any job record fell from 26.7 to 4.7 CPU-s), work
    without effect, since the kernel frees a process's memory at once (and C-level stdio
    buffers are dropped, which no adapter writes to). Each
    adapter calls it as its last statement (tests/test_architecture.py checks that every one
    does); a job that fails before it never reaches it and exits the normal way, with its
    traceback and status.
    """
    threading._shutdown()
    atexit._run_exitfuncs()
    status = 0
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except ValueError:  # closed: nothing left to flush
            pass
        except OSError:  # e.g. a full disk or a closed pipe: Python exits 120 then
            status = 120
    os._exit(status)


#: Answers in the calibration pass of :func:`calibration_unit`.
CALIBRATION_ANSWERS = 1_000_000

_CPU_RECORD: dict[str, Any] = {}


def calibration_unit(*, repeat: int = 5, answers: int = CALIBRATION_ANSWERS,
                     n_tasks: int = 1_000) -> float:
    """CPU seconds of one ``np.bincount`` pass over ``answers`` answers with weights: the unit
    in which the benchmarks state costs, so that numbers from machines of different speed (or
    one machine under different load) compare.

    The pass is the one a truth-inference method makes over long-format answers: int32 task
    indices (scattered uniformly over ``n_tasks`` tasks), float64 weights, ``minlength``. The
    median of ``repeat`` passes, each timed by ``time.process_time`` (this process's CPU time,
    not wall-clock time: other processes on the machine do not count).
    """
    rng = np.random.default_rng(0)
    task = rng.integers(0, n_tasks, size=answers, dtype=np.int32)
    weight = rng.random(answers)
    times = []
    for _ in range(max(1, int(repeat))):
        t0 = time.process_time()
        np.bincount(task, weights=weight, minlength=n_tasks)
        times.append(time.process_time() - t0)
    return float(np.median(times))


def job_cpu() -> dict[str, float]:
    """CPU seconds of this process and of the children it waited for, from
    ``resource.getrusage`` (the kernel's exact accounting, not sampling), and peak RSS (MiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {"user_s": own.ru_utime, "system_s": own.ru_stime,
           "children_user_s": kids.ru_utime, "children_system_s": kids.ru_stime}
    out["cpu_s"] = sum(out.values())
    out["max_rss_mib"] = own.ru_maxrss / 1024  # Linux reports KiB
    out["children_max_rss_mib"] = kids.ru_maxrss / 1024
    return out


def cpu_record_path(log_path: str | Path) -> Path:
    """Where a job's CPU record goes: its log path with the last ``logs`` folder replaced by
    ``benchmarks`` and the suffix by ``.cpu.json`` (``results/logs/pptd/fig3.log`` ->
    ``results/benchmarks/pptd/fig3.cpu.json``, beside Snakemake's ``fig3.tsv``); beside the
    log when its path has no ``logs`` folder."""
    path = Path(log_path)
    parts = list(path.parts)
    if "logs" in parts[:-1]:
        at = len(parts) - 2 - parts[:-1][::-1].index("logs")
        parts[at] = "benchmarks"
        path = Path(*parts)
    return path.with_name(path.name.rsplit(".", 1)[0] + ".cpu.json")


def record_job_cpu(path: str | Path, *, rule: str = "", wildcards: Mapping | None = None,
                   calibrate: bool = True) -> None:
    """Write this process's CPU time to ``path`` (JSON) when it exits (``atexit``).

    The record holds :func:`job_cpu` read at exit (so the interpreter's start-up, the imports
    and the job itself, by the kernel's accounting; for a job forked by the job server,
    :mod:`crowdpriv.jobserver`, the fork's CPU plus its launcher's, ``launcher_cpu_s``; Snakemake's own ``cpu_time`` column samples
    every 30 s and misses short jobs), the wall-clock seconds since the process started,
    whether the job ended on an uncaught exception, and, measured after the job's numbers are
    read (so not counted in them), :func:`calibration_unit` on this machine at this moment (about
    20 ms of CPU), the unit of ``benchmarks/reproduction_cpu.py``'s table. Called by
    :func:`start_job`, so every adapter gets it; calling it again replaces the target path.
    With the environment variable ``CROWDPRIV_PROFILE`` set, the job also runs under
    ``cProfile`` and writes its statistics beside the record (``<job>.prof``, for
    ``python -m pstats``); profiling inflates the CPU it records, so never both at once.
    """
    first = not _CPU_RECORD
    if first and os.environ.get("CROWDPRIV_PROFILE"):
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
        _CPU_RECORD["profiler"] = profiler
    _CPU_RECORD.update(path=str(path), rule=str(rule), wildcards={
        str(k): str(v) for k, v in (wildcards or {}).items()}, started=time.monotonic(),
        calibrate=bool(calibrate), failed=False)
    if first:
        atexit.register(_write_cpu_record)


def _write_cpu_record() -> None:
    if not _CPU_RECORD:
        return
    profiler = _CPU_RECORD.get("profiler")
    if profiler is not None:  # CROWDPRIV_PROFILE=1: the job's cProfile stats beside its record
        profiler.disable()
        try:
            profiler.dump_stats(str(Path(_CPU_RECORD["path"]).with_suffix("").with_suffix(".prof")))
        except OSError:
            pass
    record = {"rule": _CPU_RECORD["rule"], "wildcards": _CPU_RECORD["wildcards"], **job_cpu(),
              "wall_s": process_age() or time.monotonic() - _CPU_RECORD["started"],
              "failed": _CPU_RECORD["failed"], "finished_at": time.time()}
    from .jobserver import _CHILD as forked

    if forked is not None:  # forked by the job server: its launcher's CPU is the job's too
        record["launcher_cpu_s"] = forked["launcher_cpu_s"]  # 0 when Snakemake asked itself
        record["without_launcher"] = bool(forked.get("without_launcher"))
        record["cpu_s"] += forked["launcher_cpu_s"]
        record["wall_s"] = time.time() - forked["launcher_started_at"]
    if _CPU_RECORD["calibrate"]:
        record["unit_cpu_s"] = calibration_unit()
        record["unit"] = (f"one np.bincount pass over {CALIBRATION_ANSWERS:,} answers with "
                          "weights (CPU s, median of 5)")
    _write_record(_CPU_RECORD["path"], record, "the CPU record")


def _write_record(path, record: dict, what: str) -> None:
    """``record`` as JSON at ``path``, whole or not at all (:func:`crowdpriv.files.write_text`);
    a record must never fail a job or a run: an error writing it is printed and ignored."""
    from .files import write_text

    try:
        write_text(path, json.dumps(record, indent=1) + "\n")
    except OSError as err:
        print(f"crowdpriv: could not write {what} {path}: {err}", file=sys.stderr)


#: Where :func:`record_job_server_cpu` writes (relative to the working directory): a
#: ``*.cpu.json`` name, so the job table of ``benchmarks/reproduction_cpu.py`` has it as a row.
JOB_SERVER_RECORD = "results/benchmarks/job_server.cpu.json"


def record_job_server_cpu(stats: Mapping[str, Any], path: str | Path = JOB_SERVER_RECORD) -> None:
    """Write the job server's own CPU as a job record, rule ``job_server`` (its imports, once,
    and its loop; :mod:`crowdpriv.jobserver` calls it when it stops). The CPU of the jobs it
    forked is in their own records: here only their total (``forked_jobs_cpu_s``), as a check,
    with ``stats`` (how many it forked and refused, when it started)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    now = time.time()
    record = {"rule": "job_server", "wildcards": {}, "user_s": own.ru_utime,
              "system_s": own.ru_stime, "children_user_s": 0.0, "children_system_s": 0.0,
              "cpu_s": own.ru_utime + own.ru_stime, "max_rss_mib": own.ru_maxrss / 1024,
              "children_max_rss_mib": 0.0, "forked_jobs_cpu_s": kids.ru_utime + kids.ru_stime,
              "forked": int(stats["forked"]), "refused": int(stats["refused"]),
              "wall_s": now - float(stats["started_at"]), "failed": False, "finished_at": now,
              "unit_cpu_s": calibration_unit()}
    _write_record(path, record, "the job server's CPU record")


#: Where :func:`record_run_cpu` writes (relative to the working directory). Not a ``*.cpu.json``
#: name: the job table of ``benchmarks/reproduction_cpu.py`` reads those.
RUN_RECORD = "results/benchmarks/snakemake_run.json"


def record_run_cpu(path: str | Path = RUN_RECORD) -> None:
    """Write the CPU of the Snakemake run in this process: called by the Snakefile's
    ``onsuccess`` (so only after a run in which jobs ran and all succeeded; not for a dry run or
    a run with nothing to do).

    The record holds this process's own CPU seconds (the scheduler: the DAG, job selection,
    Snakemake's benchmark polling) and its waited-for children's (every local job with its
    shell; on a cluster only the jobs run locally), by ``resource.getrusage``, when the process
    started and when the run ended (epoch seconds), so ``benchmarks/reproduction_cpu.py`` can
    tell which job records belong to this run, and the calibration unit measured here.
    """
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    now = time.time()
    age = process_age()
    record = {"scheduler_cpu_s": own.ru_utime + own.ru_stime,
              "children_cpu_s": kids.ru_utime + kids.ru_stime,
              "started_at": now - age if age is not None else None, "finished_at": now}
    record["cpu_s"] = record["scheduler_cpu_s"] + record["children_cpu_s"]
    record["unit_cpu_s"] = calibration_unit()
    _write_record(path, record, "the run's CPU record")


#: The module whose ``threading.Timer`` threads :func:`cancel_pending_timers` cancels: Snakemake's
#: scheduler, whose timers wake it once its job-rate window has passed.
SCHEDULER_MODULE = "snakemake.scheduling.job_scheduler"


def cancel_pending_timers() -> int:
    """Cancel the scheduler's wake-up timers still waiting in this process; how many.

    Called first by the Snakefile's ``onsuccess`` and ``onerror``, once Snakemake's scheduler
    has returned: Python waits for such timers before the process exits, and with the default
    profile's job-rate window (``profiles/default/config.yaml`` says why it is 10 s) the last
    ones would hold the exit up to that long. Only timers whose function was defined in
    :data:`SCHEDULER_MODULE` are cancelled (other libraries' timers are left alone). A run that
    ends without those hooks (``--no-hooks``, an exception Snakemake re-raises) still waits for
    them, up to the window; no result changes either way.
    """
    import threading

    cancelled = 0
    for thread in threading.enumerate():
        function = getattr(thread, "function", None)
        if (isinstance(thread, threading.Timer) and thread.is_alive()
                and getattr(function, "__module__", None) == SCHEDULER_MODULE):
            thread.cancel()
            cancelled += 1
    return cancelled


class Progress:
    """Log a long loop's progress (which point, which repetition, elapsed) about every ``every`` s.

    Wall-clock time decides only *when* a line is logged, never a number the job writes.
    """

    def __init__(self, logger: logging.Logger, what: str, total: int | None = None,
                 every: float = 10.0):
        self.logger, self.what, self.total, self.every = logger, what, total, float(every)
        self.start = self.last = time.monotonic()
        self.done = 0
        logger.info("%s: started%s", what, "" if total is None else f", {total} step(s)")

    def __call__(self, label: str = "") -> None:
        """Mark one step done (``label`` says which point / repetition); log if ``every`` s
        passed since the last line (and at the last step)."""
        self.done += 1
        now = time.monotonic()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            of = "" if self.total is None else f"/{self.total}"
            self.logger.info("%s: step %d%s done (%s), %.1f s elapsed", self.what, self.done, of,
                             label, now - self.start)

    def finish(self) -> None:
        """Log the total elapsed time."""
        self.logger.info("%s: %d step(s) done in %.1f s", self.what, self.done,
                         time.monotonic() - self.start)


def write_csv(df: pd.DataFrame, path: str | Path) -> None:
    """Write ``df`` as CSV without index, floats with :data:`FLOAT_FORMAT`, atomically (a
    temporary file renamed into place: :func:`crowdpriv.files.atomic_path`)."""
    from .files import atomic_path

    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")


def column_formatter(values, *, digits: int = 4, thousands: bool = False):
    """One number format for a whole column (a reader compares down a column).

    Integer columns: integers (thousands separators when ``thousands``). Other numeric columns:
    ``digits`` significant digits in plain notation, trailing zeros dropped (``0.02007``,
    ``1,977``, ``0.5``) when every nonzero
    value lies in [1e-3, 1e6), else scientific notation for every value (``7.643e+04``).
    Infinite values show as ``inf``/``-inf``, NaN as an empty cell.
    """
    import pandas as pd

    arr = pd.to_numeric(pd.Series(list(values), dtype=object), errors="coerce").to_numpy(float)
    finite = arr[np.isfinite(arr)]
    integer = finite.size > 0 and bool(np.all(finite == np.round(finite))) and bool(
        np.all(np.abs(finite) < 1e15))
    nonzero = np.abs(finite[finite != 0])
    plain = nonzero.size == 0 or bool((nonzero.min() >= 1e-3) and (nonzero.max() < 1e6))
    sep = "," if thousands else ""

    def number(value: float) -> str:
        if value != value:
            return ""
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        if integer:
            return f"{int(value):{sep}d}"
        if not plain:
            return f"{value:.{digits - 1}e}"
        if value == 0:
            return "0"
        decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(value)))))
        text = f"{value:{sep}.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text

    return number


def markdown_table(df: pd.DataFrame, *, digits: int = 4, thousands: bool = False) -> str:
    """The one GitHub Markdown table renderer of the pipeline (no extra dependency).

    Numbers get one format per column (:func:`column_formatter`); text is shown as is with
    ``|`` escaped; NaN is an empty cell.
    """
    import pandas as pd

    formats = {}
    for column in df.columns:
        series = df[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            formats[column] = column_formatter(series, digits=digits, thousands=thousands)

    def cell(column, value: object) -> str:
        if column in formats and not isinstance(value, str):
            return formats[column](float(value))
        if isinstance(value, (float, np.floating)) and value != value:
            return ""
        return str(value).replace("|", "\\|").replace("\n", " ")

    columns = list(df.columns)
    lines = ["| " + " | ".join(map(str, columns)) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(c, v) for c, v in zip(columns, row)) + " |"
              for row in df.itertuples(index=False)]
    return "\n".join(lines)


def write_markdown(df: pd.DataFrame, path: str | Path, *, title: str = "", notes: str = "") -> None:
    """Write ``df`` as a Markdown table (:func:`markdown_table`) with optional title and notes."""
    lines = [f"# {title}", ""] if title else []
    lines.append(markdown_table(df, thousands=True))
    if notes:
        lines += ["", notes]
    from .files import write_text

    write_text(path, "\n".join(lines) + "\n")
