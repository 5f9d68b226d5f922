"""``make test``'s pytest suites side by side: the fast tests (``-m "not e2e"``) in the
foreground and, started at the same moment, the end-to-end runs (``-v -m e2e``) in two more
processes: the whole-pipeline runs with the two files that read them (``PIPELINE_FILES``),
and the rest — first the end-to-end tests outside ``tests/e2e/`` (the README's extending
examples, the new-mechanism example, the fetch and config checks), then, once those are done,
the other files of ``tests/e2e/`` (inputs, resume). Run last, those take the tail of the
whole-pipeline suite (cluster run, readers) off its path without loading the machine while
the two whole-pipeline runs are at their busiest (measured: run from the start they slowed
them).

The end-to-end tests spend much of their time in single-threaded work (Snakemake's start-up,
dry runs, a CLI release) and would leave a core of the 2-core machine kind idle. Each
background suite writes a log; once the fast tests have passed the logs are printed (the
pipeline one followed as it grows, then the other), so each end-to-end test is named. If
the fast tests fail, the end-to-end suites are stopped at once and the exit status is theirs;
otherwise it is the first non-zero status of the end-to-end suites. Each suite has its own
``--basetemp``.

Run: ``python tests/run_suites.py`` (from any folder; ``make test`` runs it after the lint).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _stop(proc: subprocess.Popen) -> None:
    """Stop ``proc`` and every process it started (its own process group): SIGTERM, then,
    once ``proc`` has ended or after 30 s, SIGKILL to what is left of the group (a Snakemake
    run a test started may outlive its pytest: seen hanging for an hour after SIGTERM)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # nothing left of the group
        pass
    proc.wait()


#: The folder of the end-to-end tests proper.
E2E_FOLDER = "tests/e2e"
#: The files that read the shared whole-pipeline runs (tests/conftest.py's full_runs): one
#: process, so those runs are made once (tests/test_run_suites.py checks no other file reads
#: them).
PIPELINE_FILES = ["tests/e2e/test_cluster.py", "tests/e2e/test_e2e.py"]
#: The end-to-end suites run beside the fast tests: name -> the pytest argument lists the
#: suite runs one after the other in its process.
E2E_SUITES = {
    "pipeline": [["-v", "-m", "e2e", *PIPELINE_FILES]],
    "rest": [["-v", "-m", "e2e", f"--ignore={E2E_FOLDER}"],
             ["-v", "-m", "e2e", *(f"--ignore={f}" for f in PIPELINE_FILES), E2E_FOLDER]],
}


def _chain(commands: list[list[str]]) -> list[str]:
    """One shell command line running ``commands`` one after the other, every one of them
    even after a failure; its exit status is the first non-zero one."""
    lines = ["status=0"]
    for command in commands:
        lines.append(f"{shlex.join(command)}; code=$?; [ $status -ne 0 ] || status=$code")
    return ["sh", "-c", "; ".join(lines) + "; exit $status"]


def _follow(proc: subprocess.Popen, log: Path) -> None:
    """Print ``log`` until ``proc`` has ended and everything it wrote is out."""
    with open(log) as follow:
        while True:
            done = proc.poll() is not None
            sys.stdout.write(follow.read())
            sys.stdout.flush()
            if done:
                return
            time.sleep(1.0)


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="crowdpriv-tests-"))
    pytest = [sys.executable, "-m", "pytest"]
    running: dict[str, tuple[subprocess.Popen, Path]] = {}
    try:
        for name, parts in E2E_SUITES.items():
            log = base / f"e2e-{name}.log"
            commands = [[*pytest, *args, f"--basetemp={base / f'{name}-{i}'}"]
                        for i, args in enumerate(parts)]
            with open(log, "w") as out:
                running[name] = (subprocess.Popen(
                    _chain(commands), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True), log)
        unit = subprocess.run([*pytest, "-q", "-m", "not e2e", f"--basetemp={base / 'unit'}"],
                              cwd=ROOT).returncode
        if unit != 0:
            for proc, _ in running.values():
                _stop(proc)
            print("the fast tests failed: the end-to-end suites were stopped", flush=True)
            return unit
        codes = []
        for name, (proc, log) in running.items():
            parts = " then ".join(" ".join(args) for args in E2E_SUITES[name])
            print(f"\n=== end-to-end suite {name!r} ({parts}; running since the fast tests "
                  "started) ===", flush=True)
            _follow(proc, log)
            codes.append(proc.returncode)
    except BaseException:
        for proc, _ in running.values():
            _stop(proc)
        raise
    code = next((c for c in codes if c != 0), 0)
    if code == 0:
        shutil.rmtree(base, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
