"""``make test``'s two pytest suites side by side: the fast tests (``-m "not e2e"``) in the
foreground, and, started at the same moment, the end-to-end runs (``-v -m e2e``).

The end-to-end suite spends much of its time in single-threaded work (Snakemake's start-up,
dry runs, a CLI release) and leaves a core of the 2-core machine kind idle, which the fast
tests use. Its output goes to a log that is printed once the fast tests have passed and then
followed as it grows, so each end-to-end test is still named as it finishes. If the fast tests
fail, the end-to-end suite is stopped at once and the exit status is theirs; otherwise it is the
end-to-end suite's. Each suite has its own ``--basetemp``.

Run: ``python tests/run_suites.py`` (from any folder; ``make test`` runs it after the lint).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _stop(proc: subprocess.Popen) -> None:
    """Stop ``proc`` and every process it started (its own session)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="crowdpriv-tests-"))
    log = base / "e2e.log"
    pytest = [sys.executable, "-m", "pytest"]
    with open(log, "w") as out:
        e2e = subprocess.Popen([*pytest, "-v", "-m", "e2e", f"--basetemp={base / 'e2e'}"],
                               cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        unit = subprocess.run([*pytest, "-q", "-m", "not e2e", f"--basetemp={base / 'unit'}"],
                              cwd=ROOT).returncode
        if unit != 0:
            _stop(e2e)
            print("the fast tests failed: the end-to-end suite was stopped", flush=True)
            return unit
        print(f"fast tests passed; the end-to-end suite (running since they started, log "
              f"{log}):", flush=True)
        with open(log) as follow:
            while True:
                done = e2e.poll() is not None
                sys.stdout.write(follow.read())
                sys.stdout.flush()
                if done:
                    break
                time.sleep(1.0)
        code = e2e.returncode
    except BaseException:
        _stop(e2e)
        raise
    if code == 0:
        shutil.rmtree(base, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
