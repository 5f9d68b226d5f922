"""The job server: pipeline jobs forked from one process that has imported the numeric stack
once, instead of each job importing numpy, pandas, scipy and crowdpriv afresh (issue 28).

Every job of a default run pays about 0.4-0.5 CPU-s before its own work in its own process
(the interpreter, Snakemake's ``script:`` preamble, numpy and pandas, one paper's modules),
about a fifth of the run's CPU for 77 jobs; with the server a job's CPU falls by a median of
about 0.2 CPU-s (the launcher still pays the interpreter and the preamble; the fork's first
touches of the server's memory and the imports not preloaded remain). With a launcher (the
way described first; without one, below), Snakemake starts each job's script as it always
does (same rule, same log), but the script's first statement,
:func:`run_in_server`, hands the job to the server: the server forks, the fork takes the
launcher's place (its working directory, environment, umask, ``sys.path``, ``sys.argv``,
standard streams, the dispositions of the signals below and its ``snakemake`` object) and runs
the script from its first line as ``__main__``, while the launcher waits, passes on the
SIGTERM, SIGINT, SIGHUP and SIGQUIT it receives (those it ignores stay ignored, in the fork
too) and a terminal's Ctrl-Z (SIGTSTP, then SIGCONT), and exits with the job's status, or dies
of the job's signal (SIGKILL included). Once the server has forked the job, its launcher never
runs it: if the server does not answer within a minute, the job fails with a message. The
launcher has paid the interpreter and the preamble (~0.07-0.1 CPU-s); the fork pays nothing
for imports.

Without a launcher (how the pipeline's local jobs run): its Snakefile wraps Snakemake's ``script`` function (which
every ``script:`` directive compiles to a call of) in :func:`script_without_launcher`, so a
local run does not start that launcher either. Snakemake's job thread builds the request the
launcher would have sent (:func:`_launcher_request`: the script found as Snakemake finds it,
the ``snakemake`` object as its preamble builds it, the environment Snakemake's shell gives a
job, the launcher's ``sys.path``), the server forks the job, and the thread waits for its exit
status (a non-zero status fails the job as a script's would; a ``benchmark:`` file measures
the fork). What differs from the launcher's request: ``sys.argv[0]`` is the script, not
Snakemake's temporary copy of it, and a variable the shell adds only when it is missing
(``SHLVL``) is not added. While the server runs, Snakemake's process passes on to the jobs it
requested what a launcher received from the terminal (SIGINT, SIGHUP, SIGQUIT; Ctrl-Z as
SIGSTOP, then SIGCONT; a signal that comes while a request is on its way reaches the job once
it is forked), then handles the signal as before. SIGTERM is not passed on: sent to Snakemake
alone, it lets running jobs finish (Snakemake's graceful stop), as with launchers; sent to
Snakemake's whole process group (``kill -TERM -<group>``, ``timeout``), it used to reach the
jobs through their launchers and now does not, so they finish too. Snakemake's ``shell.kill``
and ``shell.terminate`` (for pipe and service group jobs, which this workflow has none of) do
not reach a forked job. A job the server refuses (a shadow folder, for one, is another working
directory), or one Snakemake runs in a conda, container or module environment, goes through
Snakemake's own ``script`` and its launcher, as above. That saves the launcher: its
interpreter and preamble (median 0.09 CPU-s a job), the shell Snakemake starts it in and
Snakemake's temporary copy of the script.

The same numbers as a job in its own process, by construction and by test (the end-to-end runs
compare a run with the server and one without, byte for byte):

* the server imports (:data:`PRELOAD`), never runs a job, and forks only while it has one
  thread; a fork starts from that state. Python's ``random`` reseeds itself in a fork and
  numpy's legacy global generator is reseeded here from fresh entropy, as a new interpreter's
  is (every number of the pipeline comes from generators derived from the config's seeds).
  What differs from a process of its own, and changes no number: every module of
  :data:`PRELOAD` is already imported, every fork shares the server's string-hash seed (a new
  interpreter draws its own; the pipeline's outputs do not depend on it, which the byte
  identity of runs in fresh processes shows), the peak resident memory in a job's record
  counts the server's preloaded pages, which the fork shares, and a job that fails ends
  without the interpreter's finalization (as every adapter's successful end already does,
  :func:`crowdpriv.runtime.finish_job`), so a file it left open and unflushed is not flushed;
* a request is refused, and the job runs in its own process as without the server, when the
  fork could import or run differently: another Python executable or working directory, a
  variable read at import time that differs (:data:`IMPORT_TIME_VARIABLES`: the BLAS/OpenMP
  thread counts, pandas' and scipy's options among them), other resource limits, CPU
  affinity or priority, a script that is not a local file, or a source file of crowdpriv,
  the ``__init__`` of a preloaded package or a file matplotlib read at import (its rc files,
  its font list) changed since the server imported it (its modification and change times,
  size and inode); the job's log says which way it ran
  (:func:`how_this_job_runs`);
* only local execution starts a server (``workflow.local_exec``; not for ``--touch``); a job
  that finds no server (a cluster node, a run with ``job_server: false``, a server that is
  gone) runs in its own process.

The job's CPU record (:func:`crowdpriv.runtime.record_job_cpu`) adds the launcher's CPU, if
there was one, to the fork's, and the server's own (the imports, once; the loop) is written when it stops
(:func:`crowdpriv.runtime.record_job_server_cpu`, ``results/benchmarks/job_server.cpu.json``),
so the per-job table of ``benchmarks/reproduction_cpu.py`` still sums every process of the
run. With a launcher, Snakemake's ``benchmark:`` files measure the process it started, the
launcher, and so miss the job's work when it ran in the server; without one they measure the
fork. The ``*.cpu.json`` records are the jobs' CPU either way.

The server runs in a session of its own, so a terminal's Ctrl-C reaches a job once, through its
launcher or through Snakemake's process. If a launcher is killed outright (SIGKILL), the server kills its job; if the server
dies, the kernel kills its jobs (``PR_SET_PDEATHSIG``) and their launchers (or Snakemake's
job threads) fail them; if Snakemake
dies, the server ends and kills the jobs still running, and their launchers die of it (in
their own processes the jobs would run on, orphaned). An error while taking one request refuses that request only. The socket lives
in a private temporary folder (mode 0700) of the user running the workflow, removed when the
server stops.

This module imports nothing heavy at the top: :func:`run_in_server` runs in every launcher
before numpy or pandas are imported.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import struct
import sys
import threading
import time

__all__ = ["ENV", "PRELOAD", "IMPORT_TIME_VARIABLES", "JOB_THREAD_VARIABLES", "how_this_job_runs",
           "preload_modules", "process_age", "run_in_server", "script_without_launcher", "serve",
           "start_server", "stop_server"]

#: The environment variable holding the server's socket path (set by :func:`start_server` in
#: the Snakemake process, inherited by every job it starts).
ENV = "CROWDPRIV_JOB_SERVER"

#: What the server imports once: the numeric stack, Snakemake's modules that the ``script:``
#: preamble imports to unpickle the job, crowdpriv's packages and its figure module (matplotlib
#: with pyplot on the Agg backend). matplotlib reads its configuration at import, from files a
#: run does not pin (a ``matplotlibrc`` in the working directory, in ``$MATPLOTLIBRC``, in its
#: configuration folder; its font list in its cache folder): those files are watched as the
#: sources are (:func:`_matplotlib_files`), and the variables that place them are
#: :data:`IMPORT_TIME_VARIABLES`.
PRELOAD = (
    "numpy", "pandas", "scipy.sparse", "scipy.special", "yaml", "snakemake.logging",
    "snakemake.iocontainers", "crowdpriv.runtime", "crowdpriv.jobs", "crowdpriv.files",
    "crowdpriv.tables", "crowdpriv.claims", "crowdpriv.data", "crowdpriv.readings",
    "crowdpriv.ldp_sparse", "crowdpriv.pptd", "crowdpriv.priscrowd", "crowdpriv.audits",
    "matplotlib", "crowdpriv.plotting",
)

#: Environment variables (names, or prefixes ending in ``_``) that a library reads when it is
#: imported or starts: a job whose value differs from the server's is not forked.
IMPORT_TIME_VARIABLES = (
    "PYTHON", "OMP_", "OPENBLAS_", "GOTO_", "MKL_", "BLIS_", "VECLIB_", "NUMEXPR_", "NPY_",
    "NUMPY_", "KMP_", "GOMP_", "PANDAS_", "SCIPY_", "MPL", "MATPLOTLIBRC", "HOME",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "LD_", "MALLOC_", "GLIBC_", "LC_", "LANG", "TZ",
)

#: The variables Snakemake sets to a job's thread count in the job's environment
#: (``snakemake/shell.py``): the server imports with the values of a one-thread job, so a job
#: with more threads is refused (its BLAS would start with another pool) and runs on its own.
JOB_THREAD_VARIABLES = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                        "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

_HEADER = struct.Struct("!Q")
#: Signals a launcher passes on to its job (a terminal's Ctrl-C and hang-up, Snakemake's stop).
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
#: Resource limits a fork must share with its launcher.
_LIMITS = ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_NOFILE", "RLIMIT_CPU",
           "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NPROC")
#: Seconds a launcher waits for the server to take its request, and the server for a request.
_TIMEOUT_S = 60.0
_REQUEST_TIMEOUT_S = 5.0
_PR_SET_PDEATHSIG = 1
#: The server's first line starts with this, then a fresh interpreter's ``sys.path[1:]``.
_FRESH_SYS_PATH = "fresh-sys-path"

#: In a job forked by the server: what it knows of its launcher (set in the fork).
_CHILD: dict | None = None
#: In a launcher whose request was not forked: why (for the job's log).
_NOT_USED: str | None = None


# ----------------------------------------------------------------------------- launcher side

def run_in_server(snakemake) -> None:
    """Hand this job to the job server, if one runs: the first statement of every adapter.

    In a launcher (a script Snakemake started, with :data:`ENV` set): the server forks the job
    and this call never returns; the process exits with the job's status (or dies of the
    job's signal). Returns (the caller runs the job itself) in the fork, without a server, or
    when the server refuses or cannot be reached in time (the reason is kept for the job's
    log).
    """
    global _NOT_USED
    if _CHILD is not None:
        return
    path = os.environ.get(ENV)
    if not path:
        _NOT_USED = f"no job server ({ENV} unset)"
        return
    try:
        _delegate(path, snakemake)  # returns only when the request was refused
    except (OSError, EOFError, pickle.PickleError) as err:
        _NOT_USED = f"job server at {path} not reachable ({err})"


def how_this_job_runs() -> str:
    """One line for the job's log: forked by the job server, or why in its own process."""
    if _CHILD is not None and _CHILD.get("without_launcher"):
        return (f"forked by the job server (pid {_CHILD['server_pid']}) at the request of "
                f"Snakemake (pid {_CHILD['launcher_pid']}), without a launcher")
    if _CHILD is not None:
        return (f"forked by the job server (pid {_CHILD['server_pid']}; launcher pid "
                f"{_CHILD['launcher_pid']}, {_CHILD['launcher_cpu_s']:.3f} CPU-s)")
    return f"in its own process: {_NOT_USED or 'no job server'}"


def _own_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _process_state() -> dict:
    """What of this process a fork must share: resource limits, CPU affinity, priority."""
    import resource

    state = {"limits": {name: resource.getrlimit(getattr(resource, name))
                        for name in _LIMITS if hasattr(resource, name)}}
    try:
        state["affinity"] = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        state["affinity"] = None
    try:
        state["priority"] = os.getpriority(os.PRIO_PROCESS, 0)
    except (AttributeError, OSError):
        state["priority"] = None
    return state


def _send(sock: socket.socket, message, fds=()) -> None:
    payload = pickle.dumps(message, protocol=4)
    if fds:
        socket.send_fds(sock, [_HEADER.pack(len(payload))], list(fds))
    else:
        sock.sendall(_HEADER.pack(len(payload)))
    sock.sendall(payload)


def _receive_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("connection closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(sock: socket.socket, *, max_fds: int = 0):
    """One message (and up to ``max_fds`` file descriptors sent with its header). The
    descriptors are closed here if the message cannot be read whole."""
    if max_fds:
        header, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, max_fds)
    else:
        header, fds = sock.recv(_HEADER.size), []
    fds = list(fds)
    try:
        if not header:
            raise EOFError("connection closed")
        if len(header) < _HEADER.size:
            header += _receive_exactly(sock, _HEADER.size - len(header))
        (size,) = _HEADER.unpack(header)
        return pickle.loads(_receive_exactly(sock, size)), fds
    except BaseException:
        _close_all(fds)
        raise


def _close_all(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _delegate(path: str, snakemake) -> None:
    global _NOT_USED
    main = sys.modules["__main__"]
    ignored = _ignored_signals()
    request = dict(
        script=os.path.realpath(getattr(main, "__file__", "") or ""), snakemake=snakemake,
        cwd=os.getcwd(), env=dict(os.environ), umask=_current_umask(), sys_path=list(sys.path),
        argv=list(sys.argv), executable=sys.executable, ignored_signals=ignored,
        state=_process_state(), launcher_pid=os.getpid(), launcher_cpu_s=_own_cpu(),
        launcher_started_at=_started_at())
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(_TIMEOUT_S)
    sock.connect(path)  # fails: no server, so no fork (the caller runs the job itself)
    _send(sock, request, fds=(0, 1, 2))  # fails: the request is incomplete, so no fork
    try:
        reply, _ = _receive(sock)
    except EOFError:  # closed unanswered: the server died, and with it any fork it made
        sock.close()
        raise
    except OSError as err:  # no answer in time: a fork may yet start, so never run here too
        print(f"crowdpriv: the job server at {path} did not take the job within "
              f"{_TIMEOUT_S:g} s ({err}); the job fails (set job_server: false to run jobs "
              "without it)", file=sys.stderr, flush=True)
        os._exit(1)
    if reply[0] == "refused":
        sock.close()
        _NOT_USED = f"the job server refused: {reply[1]}"
        return
    try:  # the job runs in the server now: whatever happens, this process never runs it
        _wait_for(sock, reply[1], ignored)
    finally:
        os._exit(1)


def _wait_for(sock: socket.socket, child: int, ignored) -> None:
    """In a launcher whose job the server forked: pass signals on until the job ends, then
    exit with its status or die of its signal (never returns)."""
    sock.settimeout(None)
    target = _signal_target(child)

    def forward(signum, _frame):
        _send_signal(target, child, signum)

    def suspend(_signum, _frame):  # Ctrl-Z: stop the job, then this launcher, as asked
        forward(signal.SIGSTOP, _frame)  # (the job's group, in the server's session, is
        os.kill(os.getpid(), signal.SIGSTOP)  # orphaned: the kernel would drop a SIGTSTP)

    for signum in _FORWARDED:
        if int(signum) not in ignored:
            signal.signal(signum, forward)
    if signal.getsignal(signal.SIGTSTP) != signal.SIG_IGN:
        signal.signal(signal.SIGTSTP, suspend)
    signal.signal(signal.SIGCONT, forward)
    try:
        reply, _ = _receive(sock)
    except (OSError, EOFError) as err:
        print(f"crowdpriv: the job server ended before job {child} reported its status ({err})",
              file=sys.stderr, flush=True)
        os._exit(1)
    returncode = reply[1]
    if returncode < 0:  # the job died of a signal: so does its launcher
        try:
            signal.signal(-returncode, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
            pass
        os.kill(os.getpid(), -returncode)
    os._exit(returncode if 0 <= returncode < 256 else 1)


def _ignored_signals() -> list[int]:
    """The signals of :data:`_FORWARDED` this process ignores (a fork keeps them ignored)."""
    return [int(s) for s in _FORWARDED if signal.getsignal(s) == signal.SIG_IGN]


def _signal_target(pid: int):
    """A pidfd of process ``pid`` (a signal then cannot reach a reused pid); None where there is
    no pidfd (signals go by pid); False when the process has ended and been reaped."""
    try:
        return os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    except (AttributeError, OSError):
        return None


def _send_signal(target, pid: int, signum: int) -> None:
    """``signum`` to ``pid`` through its :func:`_signal_target` (nothing when that is False);
    a process already gone is not an error."""
    try:
        if target is False:
            return
        if target is not None:
            signal.pidfd_send_signal(target, signum)
        else:
            os.kill(pid, signum)
    except OSError:
        pass


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def process_age() -> float | None:
    """Wall-clock seconds since this process started (Linux ``/proc``), else None. Here, in
    the module every launcher imports, since it must stay light; the CPU records of
    :mod:`crowdpriv.runtime` read it too."""
    try:
        with open("/proc/self/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as handle:
            uptime = float(handle.read().split()[0])
        return uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _started_at() -> float:
    """Epoch seconds when this process started (now where :func:`process_age` cannot tell)."""
    import time

    return time.time() - (process_age() or 0.0)


# ------------------------------------------------- without a launcher (Snakemake's own process)

#: In Snakemake's process: the jobs it has asked the server for and not seen end, each
#: {"pid", "handle" (a pidfd, or None), "pending" (signals that came before the fork's pid)},
#: for the signals it passes on (:func:`_pass_on`). Re-entrant: a signal handler can run
#: inside another one in the main thread.
_REQUESTED: dict[int, dict] = {}
_REQUESTED_LOCK = threading.RLock()
#: The signals Snakemake's process passes on to the jobs it requested, as their launchers
#: would have received them from a terminal (Ctrl-C, hang-up, Ctrl-\); a terminal's Ctrl-Z
#: (SIGTSTP) stops them and SIGCONT continues them.
_PASSED_ON = (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTSTP, signal.SIGCONT)
#: The handlers :func:`_pass_on_signals` replaced ({signal: previous handler}).
_REPLACED_HANDLERS: dict = {}
#: The parameters of Snakemake's ``script`` that :func:`script_without_launcher` reads.
_SCRIPT_PARAMETERS = frozenset((
    "path", "basedir", "input", "output", "params", "wildcards", "threads", "resources", "log",
    "config", "rulename", "conda_env", "container_img", "env_modules", "bench_record",
    "bench_iteration", "shadow_dir", "sourcecache_path", "runtime_sourcecache_path"))


def script_without_launcher(snakemake_script):
    """Snakemake's ``script`` function (``snakemake.script.script``, which every ``script:``
    directive compiles to a call of), asking the job server first (issue 28).

    The Snakefile puts the result in its namespace under the same name (``common.smk``), so
    each ``script:`` job of a local run is forked by the server at the request of Snakemake's
    own job thread, with the launcher's place (working directory, environment, standard
    streams, ``sys.path``, the ``snakemake`` object) filled as Snakemake would have filled it
    (:func:`_launcher_request`), instead of a new interpreter that imports Snakemake to hand the
    job on (about 0.1 CPU-s per job). The thread waits for the job's exit status; a non-zero
    status fails the job as a script's would (``subprocess.CalledProcessError``). Snakemake's
    ``script`` runs the job as it always does where the server is not asked: no server
    (``job_server: false``, a cluster job, ``--touch``), a conda, container or module
    environment, a script that is not a local Python file; and where the server refuses (a
    shadow folder, for one: another working directory). Its launcher then asks again, and the
    job's log gives the answer it got. Returned unwrapped (with a warning) when Snakemake's
    ``script`` lacks a parameter read here (another Snakemake version); wrapping twice wraps
    once."""
    import functools
    import inspect

    if getattr(snakemake_script, "without_launcher", False):
        return snakemake_script
    signature = inspect.signature(snakemake_script)
    missing = _SCRIPT_PARAMETERS - set(signature.parameters)
    if missing:
        print(f"crowdpriv: Snakemake's script function has no parameter {sorted(missing)}; "
              "every job runs through its launcher", file=sys.stderr)
        return snakemake_script

    @functools.wraps(snakemake_script)
    def script(*args, **kwargs):
        job = signature.bind(*args, **kwargs).arguments
        if not _ran_in_server(job):
            return snakemake_script(*args, **kwargs)
        return None

    script.without_launcher = True
    return script


def _ran_in_server(job: dict) -> bool:
    """Fork ``job`` (the arguments of Snakemake's ``script``) in the server and wait for it:
    False (nothing ran) when it cannot be asked or refuses; raises when the job failed."""
    path = os.environ.get(ENV)
    if not path or any(job.get(key) for key in (
            "conda_env", "container_img", "env_modules", "shadow_dir")):
        return False
    request = _launcher_request(job)
    if request is None:
        return False
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    entry = {"pid": None, "handle": None, "pending": []}  # signals before the fork's pid
    with _REQUESTED_LOCK:
        _REQUESTED[id(entry)] = entry
    try:
        sock.settimeout(_TIMEOUT_S)
        try:
            sock.connect(path)
            _send(sock, request, fds=(0, 1, 2))
        except (OSError, pickle.PickleError):
            return False  # no server to reach, or an incomplete request: no fork
        try:
            reply, _ = _receive(sock)
        except TimeoutError as err:  # a fork may yet start: never run the job a second time
            raise RuntimeError(  # (closing the connection ends a fork that starts)
                f"the job server at {path} did not take the job within {_TIMEOUT_S:g} s "
                f"({err}); set job_server: false to run jobs without it") from err
        except (OSError, EOFError):
            return False  # closed unanswered: the server is gone, and with it any fork
        if reply[0] == "refused":
            return False
        _started(entry, reply[1])
        returncode = _wait_as_launcher(sock, reply[1], job.get("bench_record"))
    finally:
        sock.close()
        with _REQUESTED_LOCK:
            _REQUESTED.pop(id(entry), None)
            if entry["handle"] is not None:
                os.close(entry["handle"])
                entry["handle"] = None
    if returncode != 0:
        import subprocess

        raise subprocess.CalledProcessError(
            returncode, f"{request['script']} (forked by the job server, pid {reply[1]})")
    return True


def _started(entry: dict, child: int) -> None:
    """The server forked ``child`` for ``entry``: from now on signals go to it, first those
    that came while the request was on its way."""
    handle = _signal_target(child)
    with _REQUESTED_LOCK:
        if handle is False:  # already ended and reaped: nothing left to signal
            _REQUESTED.pop(id(entry), None)
            return
        entry.update(pid=child, handle=handle)
        for signum in entry["pending"]:
            _send_signal(handle, child, signum)
        entry["pending"].clear()


def _wait_as_launcher(sock: socket.socket, child: int, bench_record) -> int:
    """The exit status of the job ``child`` (negative: the signal it died of), in Snakemake's
    job thread; the job is measured into ``bench_record`` (a ``benchmark:`` directive's) as
    Snakemake measures a script's process (a job already gone gets its running time only)."""
    sock.settimeout(None)
    started = time.time()
    benchmark = None
    if bench_record is not None:
        try:
            from snakemake.benchmark import benchmarked

            benchmark = benchmarked(child, bench_record)
            benchmark.__enter__()
        except Exception:  # noqa: BLE001 - the job ended already: nothing to sample
            benchmark = None
    try:
        reply, _ = _receive(sock)
    except (OSError, EOFError) as err:
        raise RuntimeError(f"the job server ended before job {child} reported its "
                           f"status ({err})") from err
    finally:
        if benchmark is not None:
            benchmark.__exit__(None, None, None)
        elif bench_record is not None:
            bench_record.running_time = time.time() - started
    return int(reply[1])


def _launcher_request(job: dict) -> dict | None:
    """The request a launcher of ``job`` would send (:func:`_delegate`), built in Snakemake's
    process from what Snakemake's ``script`` and ``shell`` give a script: the script found as
    Snakemake finds it, its ``snakemake`` object as the preamble builds it, the environment
    with the job's thread count (and ``tmpdir`` resource) as the launcher's, the launcher's
    ``sys.path`` (a fresh interpreter's, then Snakemake's search paths, the source cache's
    folder, the script's folder, the folder importing Snakemake adds). None for a script that is not a local Python file. What
    differs from a launcher: ``sys.argv[0]`` is the script, not Snakemake's temporary copy of
    it with the preamble."""
    from snakemake.iocontainers import Snakemake
    from snakemake.script import get_source
    from snakemake.sourcecache import SourceCache
    from snakemake import PIP_DEPLOYMENTS_PATH
    from snakemake.common import get_snakemake_searchpaths

    source_file, _source, language, is_local, cache_path = get_source(
        job["path"], SourceCache(job["sourcecache_path"], job["runtime_sourcecache_path"]),
        job["basedir"], job["wildcards"], job["params"])
    if language != "python" or not is_local:
        return None
    script = os.path.realpath(source_file.get_path_or_uri(secret_free=True))
    script_dir = source_file.get_basedir().get_path_or_uri(secret_free=True)
    snakemake = Snakemake(job["input"], job["output"], job["params"], job["wildcards"],
                          job["threads"], job["resources"], job["log"], job["config"],
                          job["rulename"], job["bench_iteration"], script_dir)
    env = dict(os.environ)
    env.update(dict.fromkeys(JOB_THREAD_VARIABLES, str(job["threads"])))
    tmpdir = job["resources"].get("tmpdir", None)
    if tmpdir:
        env.update(dict.fromkeys(("TMPDIR", "TMP", "TEMPDIR", "TEMP"), tmpdir))
    # and the shell Snakemake starts the launcher with sets these two, as bash does: PWD kept
    # where it names the working directory, else the working directory; _ the command run
    cwd = os.getcwd()
    try:
        keep = os.path.isabs(env.get("PWD", "")) and os.path.samefile(env["PWD"], cwd)
    except OSError:
        keep = False
    env.update(PWD=env["PWD"] if keep else cwd, _=sys.executable)
    search = get_snakemake_searchpaths()
    if cache_path and os.path.dirname(cache_path):
        search.append(os.path.dirname(cache_path))
    search.append(script_dir)
    # then the preamble imports snakemake, whose __init__ appends its pip deployments' folder
    # (the folder of the script run first, as the interpreter puts it, unless PYTHONSAFEPATH)
    first = [] if sys.flags.safe_path else [os.path.realpath(os.path.join(".snakemake",
                                                                          "scripts"))]
    sys_path = [*first, *_SERVER.get("fresh_sys_path", sys.path[1:]), *search,
                PIP_DEPLOYMENTS_PATH]
    return dict(
        script=script, snakemake=snakemake, cwd=cwd, env=env, umask=_umask(),
        sys_path=sys_path, argv=[script], executable=sys.executable,
        ignored_signals=_ignored_signals(),
        state=_process_state(), launcher_pid=os.getpid(), launcher_cpu_s=0.0,
        launcher_started_at=time.time(), without_launcher=True)


def _umask() -> int:
    """This process's umask without setting it (other threads may be creating files):
    ``/proc/self/status`` on Linux, else the umask :func:`start_server` read (before any job
    thread ran)."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return _SERVER["umask"] if "umask" in _SERVER else _current_umask()


def _pass_on(signum, frame) -> None:
    """Snakemake's handler of :data:`_PASSED_ON` while the server runs: the signal goes to
    every job Snakemake requested (SIGTSTP as SIGSTOP, since their process group is in the
    server's session, where the kernel drops a terminal's stop), then as it would have gone
    without the server (the previous handler, or the default action)."""
    sent = signal.SIGSTOP if signum == signal.SIGTSTP else signum
    with _REQUESTED_LOCK:
        for entry in list(_REQUESTED.values()):
            if entry["pid"] is None:  # asked for, not forked yet: delivered once it is
                entry["pending"].append(sent)
            else:
                _send_signal(entry["handle"], entry["pid"], sent)
    previous = _REPLACED_HANDLERS.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL and signum == signal.SIGTSTP:
        os.kill(os.getpid(), signal.SIGSTOP)
    elif previous == signal.SIG_DFL and signum != signal.SIGCONT:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _pass_on_signals() -> None:
    """In Snakemake's main thread: :func:`_pass_on` handles :data:`_PASSED_ON` (those this
    process ignores stay ignored); nothing where signals cannot be set (another thread)."""
    for signum in _PASSED_ON:
        try:
            previous = signal.getsignal(signum)
            if previous == signal.SIG_IGN or previous is None:
                continue
            signal.signal(signum, _pass_on)
            _REPLACED_HANDLERS[signum] = previous
        except (ValueError, OSError):  # not the main thread
            return


def _restore_signals() -> None:
    for signum, previous in list(_REPLACED_HANDLERS.items()):
        try:
            if signal.getsignal(signum) is _pass_on:
                signal.signal(signum, previous)
        except (ValueError, OSError):
            return
        _REPLACED_HANDLERS.pop(signum, None)


# ------------------------------------------------------------------------------- server side

def _stamp(path: str):
    """What changes when a file is rewritten, even with its modification time kept."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)


def _differs(request: dict, sources: dict, state: dict | None = None) -> str | None:
    """Why a fork could differ from a fresh process for this request (None: it cannot);
    ``state``: the server's :func:`_process_state`, read once (here when not given)."""
    if request["executable"] != sys.executable:
        return f"another Python ({request['executable']}, the server runs {sys.executable})"
    if request["cwd"] != os.getcwd():
        return f"another working directory ({request['cwd']})"
    script = request.get("script") or ""
    if not os.path.isfile(script):
        return f"the script {script!r} is not a local file"
    env = request["env"]
    for name in sorted(set(env) | set(os.environ)):
        if name.startswith(IMPORT_TIME_VARIABLES) and env.get(name) != os.environ.get(name):
            return (f"environment variable {name} is {env.get(name)!r}, the server imported "
                    f"with {os.environ.get(name)!r}")
    mine = _process_state() if state is None else state
    for key, value in request.get("state", {}).items():
        if value != mine.get(key):
            return f"another {key} ({value!r}, the server's {mine.get(key)!r})"
    for path, stamp in sources.items():
        if _stamp(path) != stamp:
            return f"{path} changed since the server imported it"
    return None


def _unsafe_to_fork() -> str | None:
    """Why this process must not fork now (None: it has one thread)."""
    threads = _thread_count()
    return None if threads == 1 else f"the server has {threads} threads (a fork needs one)"


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _preload() -> dict:
    """Import :data:`PRELOAD`; the files whose change would make a fork differ from a fresh
    process (every crowdpriv source imported, each preloaded package's ``__init__``), with
    their stamps."""
    import gc
    import importlib

    modules = preload_modules()
    for name in modules:
        importlib.import_module(name)
    sys.modules["crowdpriv.runtime"].glibc()  # looked up once, here, not in every job
    # The imported modules' objects live as long as any job: out of the collector's sight, a
    # fork's garbage collections do not walk them (no number changes).
    gc.collect()
    gc.freeze()
    package = os.path.dirname(os.path.abspath(__file__))
    watched = {getattr(sys.modules.get(name.split(".")[0]), "__file__", None) for name in modules}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and os.path.abspath(path).startswith(package + os.sep):
            watched.add(path)
    watched.update(_matplotlib_files())
    return {os.path.abspath(p): _stamp(p) for p in watched if p}


#: The modules of :data:`PRELOAD` that import matplotlib.
_MATPLOTLIB_MODULES = ("matplotlib", "crowdpriv.plotting")


def preload_modules() -> tuple[str, ...]:
    """:data:`PRELOAD`, without matplotlib where its import would make the server differ from
    a job (:func:`_matplotlib_needs_a_temporary_folder`): the figure jobs then import it
    themselves."""
    if _matplotlib_needs_a_temporary_folder():
        return tuple(name for name in PRELOAD if name not in _MATPLOTLIB_MODULES)
    return PRELOAD


def _matplotlib_needs_a_temporary_folder() -> bool:
    """Whether importing matplotlib here would fall back to a temporary configuration folder:
    its configuration or cache folder (``$MPLCONFIGDIR``, else ``$XDG_CONFIG_HOME`` or
    ``~/.config``, and ``$XDG_CACHE_HOME`` or ``~/.cache``, each with ``matplotlib``) cannot be
    created or written, as matplotlib decides at import. It would then set ``MPLCONFIGDIR`` in
    the server (so every request would differ) and remove that folder when a process exits
    (so the first fork to end would remove it under the others)."""
    from pathlib import Path

    fixed = os.environ.get("MPLCONFIGDIR")
    for variable, default in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache")):
        try:
            folder = (Path(fixed) if fixed else Path(
                os.environ.get(variable) or Path.home() / default, "matplotlib")).resolve()
            folder.mkdir(parents=True, exist_ok=True)
        except (OSError, RuntimeError):
            return True
        if not (folder.is_dir() and os.access(folder, os.W_OK)):
            return True
    return False


def _matplotlib_files() -> set[str]:
    """The files matplotlib read (or would have read) when the server imported it: each place
    a ``matplotlibrc`` is looked for (the working directory, ``$MATPLOTLIBRC``, its
    configuration folder; one that appears later changes its stamp from None) and its font
    list; empty when matplotlib is not imported."""
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None:
        return set()
    files = {os.path.abspath("matplotlibrc"), matplotlib.matplotlib_fname(),
             os.path.join(matplotlib.get_configdir(), "matplotlibrc")}
    if os.environ.get("MATPLOTLIBRC"):
        files.update({os.environ["MATPLOTLIBRC"],
                      os.path.join(os.environ["MATPLOTLIBRC"], "matplotlibrc")})
    font_manager = sys.modules.get("matplotlib.font_manager")
    if font_manager is not None:
        files.add(os.path.join(matplotlib.get_cachedir(),
                               f"fontlist-v{font_manager.FontManager.__version__}.json"))
    return files


def _set_parent_death_signal(signum: int) -> None:
    """Ask the kernel to send ``signum`` when the parent exits (Linux; nothing elsewhere)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _become_job(request: dict, fds: list[int], server_pid: int, close: list) -> None:
    """In the fork: take the launcher's place and run its script; never returns."""
    global _CHILD
    status = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        ignored = set(request["ignored_signals"])
        for signum in _FORWARDED:  # as a new interpreter with the launcher's dispositions
            if int(signum) in ignored:
                signal.signal(signum, signal.SIG_IGN)
            elif signum == signal.SIGINT:
                signal.signal(signum, signal.default_int_handler)
            else:
                signal.signal(signum, signal.SIG_DFL)
        for item in close:
            item.close() if hasattr(item, "close") else os.close(item)
        _set_parent_death_signal(signal.SIGKILL)
        if os.getppid() != server_pid:
            os._exit(1)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[:] = request["sys_path"]
        sys.argv[:] = request["argv"]
        if os.isatty(1):  # line-buffered on a terminal, as a new interpreter's stdout is
            sys.stdout.reconfigure(line_buffering=True)
        import tempfile

        import numpy

        tempfile.tempdir = None  # TMPDIR is the launcher's
        numpy.random.seed()  # fresh entropy, as a new interpreter's legacy generator has
        _CHILD = {key: request[key] for key in (
            "launcher_pid", "launcher_cpu_s", "launcher_started_at")}
        _CHILD["without_launcher"] = bool(request.get("without_launcher"))
        _CHILD["server_pid"] = server_pid
        status = _run_script(request["script"], request["snakemake"])
    except BaseException:  # before the script started: say why, on the launcher's stderr
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
    finally:
        os._exit(status)


def _run_script(script: str, snakemake) -> int:
    """Run ``script`` as ``__main__`` with ``snakemake`` in its globals, as the interpreter runs
    a script (``sys.argv`` untouched; an uncaught exception goes to ``sys.excepthook``; exit
    hooks run; an uncaught KeyboardInterrupt ends the process by SIGINT); the exit status."""
    import atexit
    import threading
    import types

    import builtins

    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=script, __cached__=None, __builtins__=builtins,
                         snakemake=snakemake)
    sys.modules["__main__"] = main
    interrupted = False
    try:
        with open(script, "rb") as handle:
            code = compile(handle.read(), script, "exec", dont_inherit=True)  # no flags of ours
        exec(code, main.__dict__)
        status = 0
    except SystemExit as exit_:
        code = exit_.code
        if code is None:
            status = 0
        elif isinstance(code, int):
            status = code
        else:
            print(code, file=sys.stderr)
            status = 1
    except BaseException as err:  # noqa: BLE001 - reported as the interpreter would
        interrupted = isinstance(err, KeyboardInterrupt)
        sys.excepthook(type(err), err, err.__traceback__)
        status = 1
    try:
        threading._shutdown()
        atexit._run_exitfuncs()
    except KeyboardInterrupt:
        interrupted = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status


def serve(path: str, parent_pid: int, on_exit=None) -> None:
    """The server's loop: preload, listen on ``path``, fork one job per request, report each
    job's exit status to its launcher; exit on SIGTERM or when ``parent_pid`` is gone, after
    ``on_exit({"started_at", "forked", "refused"})`` (the Snakefile's server passes
    :func:`crowdpriv.runtime.record_job_server_cpu`), removing the socket and its folder."""
    import selectors
    import time

    started = time.time()
    _set_parent_death_signal(signal.SIGTERM)
    sources = _preload()
    state = _process_state()  # limits, affinity, priority: the server's do not change
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    stopping = []
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a job's Ctrl-C comes through its launcher
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    jobs: dict[int, socket.socket] = {}  # pid -> launcher connection
    by_connection: dict[socket.socket, int] = {}
    counts = {"forked": 0, "refused": 0}
    print("ready", flush=True)
    quiet = os.open(os.devnull, os.O_WRONLY)  # the starter stops reading: fd 1 to /dev/null
    os.dup2(quiet, 1)
    os.close(quiet)

    def take(connection):
        """One request: refuse it, or fork its job. Any error refuses this request only."""
        fds: list[int] = []
        try:
            connection.settimeout(_REQUEST_TIMEOUT_S)
            request, fds = _receive(connection, max_fds=3)
            reason = ((_differs(request, sources, state) or _unsafe_to_fork()) if len(fds) == 3
                      else "no standard streams")
            pid = None
            if reason is None:
                sys.stdout.flush()
                sys.stderr.flush()
                try:
                    pid = os.fork()
                except OSError as err:
                    reason = f"fork failed ({err})"
            if pid == 0:
                _become_job(request, fds, os.getppid(), [
                    selector, listener, wake_read, wake_write, connection, *by_connection])
        except Exception as err:  # noqa: BLE001 - one bad request must not end the server
            reason, pid = f"the request could not be taken ({type(err).__name__}: {err})", None
        _close_all(fds)
        if pid is None:
            counts["refused"] += 1
            try:
                _send(connection, ("refused", reason))
            except OSError:
                pass
            connection.close()
            return
        counts["forked"] += 1
        try:
            _send(connection, ("started", pid))
        except OSError:  # the launcher is gone: so is its job
            os.kill(pid, signal.SIGKILL)
        jobs[pid] = connection
        by_connection[connection] = pid
        selector.register(connection, selectors.EVENT_READ)

    while not stopping and os.getppid() == parent_pid:
        for key, _ in selector.select(timeout=1.0):
            item = key.fileobj
            if item is listener:
                try:
                    connection, _ = listener.accept()
                except OSError:  # e.g. out of descriptors: back off instead of spinning
                    time.sleep(0.1)
                    continue
                take(connection)
            elif item == wake_read:
                try:
                    while os.read(wake_read, 512):
                        pass
                except BlockingIOError:
                    pass
            else:  # a launcher closed its connection before its job ended: end the job
                pid = by_connection.get(item)
                if pid is not None:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                selector.unregister(item)
        _reap(jobs, by_connection, selector)
    for pid in list(jobs):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    while jobs:
        _reap(jobs, by_connection, selector, block=True)
    listener.close()
    for item in (path, os.path.dirname(path)):
        try:
            (os.unlink if item == path else os.rmdir)(item)
        except OSError:
            pass
    if on_exit is not None:
        try:
            on_exit({"started_at": started, **counts})
        except Exception as err:  # noqa: BLE001 - a record never fails a run
            print(f"crowdpriv: the job server's record failed: {err}", file=sys.stderr)
    os._exit(0)


def _reap(jobs: dict, by_connection: dict, selector, *, block: bool = False) -> None:
    """Collect ended jobs; tell each one's launcher its status (``waitstatus_to_exitcode``)."""
    while jobs:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            jobs.clear()
            return
        if pid == 0:
            return
        connection = jobs.pop(pid, None)
        if connection is None:
            continue
        by_connection.pop(connection, None)
        try:
            selector.unregister(connection)
        except (KeyError, ValueError):
            pass
        try:
            connection.settimeout(5)
            _send(connection, ("exit", os.waitstatus_to_exitcode(status)))
        except OSError:
            pass
        connection.close()
        if block:
            return


# ----------------------------------------------------------------- start and stop (Snakefile)

_SERVER: dict = {}


def start_server() -> bool:
    """Start the job server for this process's jobs (the Snakefile's ``onstart``, local
    execution only): a new interpreter in its own session, in the working directory, with this
    environment and a one-thread job's BLAS/OpenMP variables; once it has imported
    :data:`PRELOAD` and listens, :data:`ENV` is set here, so every job Snakemake starts
    afterwards finds it. Returns whether it runs; if it cannot start, jobs run in their own
    processes as without it (a warning says so; the server's own error, if any, is on
    stderr)."""
    import atexit
    import shutil
    import subprocess
    import tempfile

    if _SERVER:
        return True
    try:
        folder = tempfile.mkdtemp(prefix="crowdpriv-jobs-")  # mode 0700: this user's only
    except OSError as err:
        print(f"crowdpriv: the job server did not start (no temporary folder: {err}); every "
              "job runs in its own process", file=sys.stderr)
        return False
    path = os.path.join(folder, "socket")
    scripts = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Its first line: the search path of a fresh interpreter (a launcher's, after the folder of
    # the script it runs), for the jobs requested from this process (:func:`_launcher_request`).
    code = (f"import sys; print({_FRESH_SYS_PATH!r}, "
            "repr(sys.path[0 if sys.flags.safe_path else 1:]), flush=True); "
            f"sys.path.insert(0, {scripts!r}); from crowdpriv.jobserver import serve; "
            "from crowdpriv.runtime import record_job_server_cpu; "
            f"serve({path!r}, {os.getpid()}, on_exit=record_job_server_cpu)")
    env = {k: v for k, v in os.environ.items() if k != ENV}
    env.update(dict.fromkeys(JOB_THREAD_VARIABLES, "1"))
    try:
        process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, env=env, start_new_session=True)
    except OSError as err:
        shutil.rmtree(folder, ignore_errors=True)
        print(f"crowdpriv: the job server did not start ({err}); every job runs in its own "
              "process", file=sys.stderr)
        return False
    seen, fresh_sys_path = [], None
    for line in process.stdout:  # a site banner may come first; "ready" or the end
        if line.strip() == b"ready":
            break
        if line.startswith(_FRESH_SYS_PATH.encode() + b" ") and fresh_sys_path is None:
            import ast

            fresh_sys_path = ast.literal_eval(line.decode().split(" ", 1)[1].strip())
            continue
        seen.append(line.decode(errors="replace").strip())
    else:
        line = b""
    process.stdout.close()
    if line.strip() != b"ready":
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)
        print(f"crowdpriv: the job server did not start (exit {process.returncode}"
              f"{'; it printed: ' + ' | '.join(seen[-3:]) if seen else ''}); every job runs "
              "in its own process", file=sys.stderr)
        return False
    _SERVER.update(process=process, folder=folder, path=path, umask=_umask())
    if fresh_sys_path is not None:
        _SERVER["fresh_sys_path"] = fresh_sys_path
    os.environ[ENV] = path
    _pass_on_signals()
    atexit.register(stop_server)
    return True


def stop_server() -> None:
    """Stop the job server and wait for it (so its CPU and its jobs' are in this process's
    ``RUSAGE_CHILDREN``, which the run's record reads); its socket folder is removed."""
    import shutil
    import subprocess

    process = _SERVER.pop("process", None)
    os.environ.pop(ENV, None)
    _restore_signals()
    if process is None:
        return
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    shutil.rmtree(_SERVER.pop("folder"), ignore_errors=True)
    _SERVER.clear()
