"""make test's suites (tests/run_suites.py): the shared whole-pipeline runs are made once."""

from __future__ import annotations

import run_suites
from conftest import ROOT


def test_only_the_pipeline_suite_reads_the_shared_whole_pipeline_runs():
    """A test file outside PIPELINE_FILES that used full_run(s) would make both runs again in
    the other suite (the fixture is per pytest process): it belongs in one of those files."""
    readers = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
                     if "full_run" in p.read_text() and p.name != "test_run_suites.py")
    assert readers == sorted(run_suites.PIPELINE_FILES)
    rest = run_suites.E2E_SUITES["rest"]
    assert all(f"--ignore={f}" in rest for f in run_suites.PIPELINE_FILES)
