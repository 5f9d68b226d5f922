"""make test's suites (tests/run_suites.py): the shared whole-pipeline runs are made once."""

from __future__ import annotations

import run_suites
from conftest import ROOT


def test_only_the_pipeline_suite_reads_the_shared_whole_pipeline_runs():
    """A test file outside tests/e2e/ that used full_run(s) would make both runs again in the
    other suite (the fixture is per pytest process): it belongs in tests/e2e/."""
    readers = [p for p in (ROOT / "tests").rglob("test_*.py")
               if "full_run" in p.read_text() and p.name != "test_run_suites.py"]
    assert readers and all(p.parent == ROOT / run_suites.PIPELINE for p in readers), readers
    assert f"--ignore={run_suites.PIPELINE}" in run_suites.E2E_SUITES["rest"]
