"""make test's suites (tests/run_suites.py): the shared whole-pipeline runs are made once, and
every end-to-end test file runs in exactly one suite."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import run_suites
from conftest import ROOT


def test_only_the_pipeline_suite_reads_the_shared_whole_pipeline_runs():
    """A test file outside the pipeline suite that used full_run(s) would make both runs again
    in another process (the fixture is per pytest process)."""
    readers = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")
               if "full_run" in p.read_text() and p.name != "test_run_suites.py"}
    assert readers and readers == set(run_suites.PIPELINE_FILES), readers


def _files_selected(args: list[str]) -> set[str]:
    """The test files a pytest argument list collects (paths, else testpaths = tests; minus
    ``--ignore``), as paths relative to the repository."""
    ignored = [a.split("=", 1)[1].rstrip("/") for a in args if a.startswith("--ignore=")]
    paths, skip = [], False
    for arg in args:
        if skip or arg == "-m":
            skip = arg == "-m"
            continue
        if not arg.startswith("-"):
            paths.append(arg)
    files = set()
    for path in paths or ["tests"]:
        found = [ROOT / path] if (ROOT / path).is_file() else (ROOT / path).rglob("test_*.py")
        for file in found:
            rel = file.relative_to(ROOT).as_posix()
            if not any(rel == i or rel.startswith(i + "/") for i in ignored):
                files.add(rel)
    return files


def test_every_test_file_runs_in_exactly_one_part_of_the_end_to_end_suites():
    """No end-to-end test is lost or run twice when the suites are split."""
    counts: dict[str, int] = {}
    for parts in run_suites.E2E_SUITES.values():
        for args in parts:
            for file in _files_selected(args):
                counts[file] = counts.get(file, 0) + 1
    every = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    assert set(counts) == every and set(counts.values()) == {1}, counts


@pytest.mark.parametrize("codes, status", [([0, 0], 0), ([0, 1, 3], 1), ([4, 0, 2], 4)])
def test_a_chained_suite_runs_every_part_and_keeps_the_first_failure(tmp_path, codes, status):
    marks = [tmp_path / f"ran{i}" for i in range(len(codes))]
    commands = [["sh", "-c", f"touch {m}; exit {c}"] for m, c in zip(marks, codes)]
    assert subprocess.run(run_suites._chain(commands)).returncode == status
    assert all(m.exists() for m in marks)


def test_stopping_a_suite_ends_every_process_it_started(tmp_path):
    """A suite stopped because the fast tests failed leaves nothing running: here its child
    ignores SIGTERM and outlives it, as a Snakemake run a test started did."""
    pid_file = tmp_path / "child.pid"
    child = (f"import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
             f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)")
    suite = subprocess.Popen([sys.executable, "-c", (
        f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child!r}]); "
        "time.sleep(120)")], start_new_session=True)
    end = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < end
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    run_suites._stop(suite)
    end = time.monotonic() + 10
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        try:  # an exited child of an exited parent is reaped by init: wait for that
            if open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        except OSError:
            break
        assert time.monotonic() < end, f"process {pid} of the stopped suite still runs"
        time.sleep(0.05)
