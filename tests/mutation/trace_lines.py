"""A pytest plugin that records which lines of the mutated modules each test runs.

``tests/mutation/mutate.py`` runs the tests once under this plugin (``-p trace_lines``) before
it mutates anything, then runs against each mutant only the tests that ran the mutated
statement (see ``select_tests`` there). The tracer is ``sys.settrace`` (no coverage package):
a call into a file outside the targets is not line-traced at all.

What a test is charged with:

- the lines run during its setup, call and teardown;
- the lines run while any fixture of wider than function scope that it uses was set up (that
  work is done once, during the first such test, and reused by the others);
- nothing else: lines run outside every test (importing the package, which this plugin does up
  front for every module of ``crowdpriv``; collecting the test modules; parametrize lists) go to
  ``"<import>"``, and a mutant on such a line is tested against every test.

The environment names the targets and the output: ``CROWDPRIV_TRACE_ROOT`` (the folder the
target paths are relative to), ``CROWDPRIV_TRACE_FILES`` (``os.pathsep``-separated relative
paths) and ``CROWDPRIV_TRACE_OUT`` (the JSON written at the end: ``{"tests": {nodeid:
{"seconds": s, "fixture_seconds": f, "outcome": o, "lines": {file: [line, ...]}}},
"<import>": {file: [...]}}``; ``fixture_seconds``: the set-up time of the wider-scoped fixtures
the test uses, wherever it was spent). With ``CROWDPRIV_TRACE_LINES=0`` no line is traced: the
same file records only the times and outcomes of a plain run (a line tracer slows pure-Python
loops several-fold, so a mutant's time limit is set from the plain run).
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import time
from pathlib import Path

import pytest

_ROOT = Path(os.environ.get("CROWDPRIV_TRACE_ROOT", "."))
_FILES = {str((_ROOT / f).resolve()): f
          for f in os.environ.get("CROWDPRIV_TRACE_FILES", "").split(os.pathsep) if f}
_OUT = os.environ.get("CROWDPRIV_TRACE_OUT")
_LINES = os.environ.get("CROWDPRIV_TRACE_LINES", "1") != "0"

_IMPORT: set[tuple[str, int]] = set()
_current: set[tuple[str, int]] = _IMPORT
_per_test: dict[str, dict] = {}
_per_fixture: dict[int, set[tuple[str, int]]] = {}
_fixture_seconds: dict[int, float] = {}


def _local(frame, event, arg):
    if event == "line":
        _current.add((frame.f_code.co_filename, frame.f_lineno))
    return _local


def _global(frame, event, arg):
    return _local if frame.f_code.co_filename in _FILES else None


def pytest_configure(config):
    if not _OUT:
        return
    if _LINES:
        sys.settrace(_global)
    # every module of the package imported now, so that whatever runs at import time is charged
    # to "<import>" and not to the first test that happens to import the module
    import crowdpriv

    for info in pkgutil.walk_packages(crowdpriv.__path__, "crowdpriv."):
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an optional module that cannot load is not a target
            pass


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    global _current
    if not _OUT or fixturedef.scope == "function":
        yield
        return
    saved, _current = _current, _per_fixture.setdefault(id(fixturedef), set())
    t0 = time.perf_counter()
    try:
        yield
    finally:
        _current = saved
        _fixture_seconds[id(fixturedef)] = (_fixture_seconds.get(id(fixturedef), 0.0)
                                            + time.perf_counter() - t0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _current
    if not _OUT:
        yield
        return
    lines: set[tuple[str, int]] = set()
    fixtures = {id(d) for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs}
    _current = lines
    t0 = time.perf_counter()
    try:
        yield
    finally:
        _current = _IMPORT
    _per_test[item.nodeid] = {"seconds": time.perf_counter() - t0, "lines": lines,
                              "fixtures": fixtures,
                              "outcome": _per_test.get(item.nodeid, {}).get("outcome", "passed")}


def pytest_runtest_logreport(report):
    if _OUT and report.outcome == "failed":
        _per_test.setdefault(report.nodeid, {})["outcome"] = "failed"


def _by_file(lines) -> dict[str, list[int]]:
    out: dict[str, set[int]] = {}
    for filename, line in lines:
        out.setdefault(_FILES[filename], set()).add(line)
    return {f: sorted(ls) for f, ls in out.items()}


def pytest_sessionfinish(session, exitstatus):
    if not _OUT:
        return
    sys.settrace(None)
    tests = {}
    for nodeid, rec in _per_test.items():
        lines = set(rec.get("lines", ()))
        for key in rec.get("fixtures", ()):
            lines |= _per_fixture.get(key, set())
        # what its wider-scoped fixtures took to set up (charged to whichever test ran first)
        fixture_s = sum(_fixture_seconds.get(key, 0.0) for key in rec.get("fixtures", ()))
        tests[nodeid] = {"seconds": rec.get("seconds", 0.0), "fixture_seconds": fixture_s,
                         "outcome": rec["outcome"], "lines": _by_file(lines)}
    Path(_OUT).write_text(json.dumps({"tests": tests, "<import>": _by_file(_IMPORT)}))
