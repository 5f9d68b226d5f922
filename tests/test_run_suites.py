"""make test's suites (tests/run_suites.py): the shared whole-pipeline runs are made once, and
every end-to-end test file runs in exactly one suite."""

from __future__ import annotations

import subprocess

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
