"""Recovery: a run killed with SIGKILL leaves Snakemake's lock and an incomplete output; the
next run (what `make reproduce` does: python -m crowdpriv.resume, then snakemake
--rerun-incomplete) names a live holder, clears a stale lock and re-runs the incomplete job."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from crowdpriv.resume import holders, lock_files

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
#: A job of a few seconds that needs no data (PrisCrowd Table 2 at p = 0.1, default sizes).
TARGET = "results/priscrowd/runs/simulated/p0.1/table.csv"
LOG = "results/logs/priscrowd/simulated/p0.1.log"


def _args(workdir: Path) -> list[str]:
    return ["-s", str(ROOT / "Snakefile"), "--configfile", str(ROOT / "config/config.yaml")]


def _snakemake(workdir: Path, *extra: str, **kwargs):
    cmd = [sys.executable, "-m", "snakemake", *_args(workdir), "-d", str(workdir), "--cores",
           "1", *extra, TARGET]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)


def _resume(workdir: Path):
    cmd = [sys.executable, "-m", "crowdpriv.resume", "-d", str(workdir), "--", *_args(workdir)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_a_killed_run_resumes(tmp_path):
    work = tmp_path / "run"
    work.mkdir()
    cmd = [sys.executable, "-m", "snakemake", *_args(work), "-d", str(work), "--cores", "1",
           TARGET]
    run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not ((work / LOG).is_file() and "rule priscrowd_simulated" in (work / LOG)
                   .read_text()):
            assert run.poll() is None, "the run ended before its job started"
            assert time.monotonic() < deadline, "the job did not start"
            time.sleep(0.05)
        assert lock_files(work)
        # while it runs, the next `make reproduce` names it and leaves the lock alone
        busy = _resume(work)
        assert busy.returncode == 1, busy.stdout + busy.stderr
        assert re.search(rf"in use by a running Snakemake \(pid {run.pid}: ", busy.stderr)
        assert lock_files(work)
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # the run and its job, as kill -9 of a session
        run.wait()
    deadline = time.monotonic() + 30
    while holders(work) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert holders(work) == []
    assert lock_files(work), "the killed run left its lock"
    incomplete = any((work / ".snakemake" / "incomplete").iterdir())
    assert incomplete, "the killed job's output is marked incomplete"
    output = work / TARGET
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("p,half-written\n")  # as a job killed while writing leaves it
    # a plain rerun stops on the lock
    locked = _snakemake(work)
    assert locked.returncode != 0 and "--unlock" in locked.stdout + locked.stderr
    # what make reproduce does: unlock, then re-run the incomplete job
    resumed = _resume(work)
    assert resumed.returncode == 0, resumed.stderr
    assert "removed the lock of an interrupted run" in resumed.stdout
    assert not lock_files(work)
    rerun = _snakemake(work, "--rerun-incomplete")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    table = pd.read_csv(output)
    assert {"p", "method", "rep"} <= set(table.columns) and len(table) > 0
    assert _resume(work).returncode == 0  # no lock left: nothing to do
