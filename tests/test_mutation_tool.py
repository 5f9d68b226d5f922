"""The mutation tool (tests/mutation/mutate.py) finds the mutants it promises and no others."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "mutate", Path(__file__).parent / "mutation" / "mutate.py")
mutate = importlib.util.module_from_spec(_SPEC)
sys.modules["mutate"] = mutate  # dataclasses look their module up
_SPEC.loader.exec_module(mutate)

SOURCE = '''"""Docstring with 0.5 and a < b."""


def check(a, b, c):
    """Also a docstring: 1 < 2."""
    if a < b and c == 0:
        return not a
    label = f"{a:.3g} ε ≤ {b * 2}"
    x = a is None or b in (1, 2.5)
    y = c <= 10  # pragma: no mutate (equivalent: c is an integer below 10)
    return a - b, True, label, x, y
'''


def _mutants():
    return {(m.original, m.replacement, m.operator) for m in mutate.find_mutants(SOURCE, "f.py")}


def test_operators_are_found():
    found = _mutants()
    assert {("<", "<=", "comparison"), ("<", ">", "comparison"), ("==", "!=", "comparison"),
            ("and", "or", "boolean"), ("or", "and", "boolean"), ("is", "is not", "comparison"),
            ("in", "not in", "comparison"), ("not a", "a", "boolean"),
            ("True", "False", "boolean"), ("-", "+", "arithmetic"), ("*", "/", "arithmetic"),
            ("0", "1", "constant"), ("1", "0", "constant"), ("2", "3", "constant"),
            ("2.5", "3.75", "constant")} <= found


def test_docstrings_format_specs_and_pragma_lines_are_skipped():
    found = _mutants()
    assert ("0.5", "0.75", "constant") not in found  # in the module docstring
    assert not any(orig == "<=" for orig, _, _ in found)  # the pragma line
    assert not any(orig == "10" for orig, _, _ in found)
    mutants = mutate.find_mutants(SOURCE, "f.py")
    assert not any(m.line in (1, 5) for m in mutants)  # docstrings
    assert not any(m.original == ".3g" or m.original == "3" for m in mutants)


def test_a_mutant_changes_only_its_span_even_after_non_ascii_text():
    mutants = mutate.find_mutants(SOURCE, "f.py")
    star = next(m for m in mutants if m.original == "*")  # after "ε ≤" on the same line
    out = star.apply(SOURCE)
    assert out == SOURCE.replace("{b * 2}", "{b / 2}")
    for m in mutants:
        changed = m.apply(SOURCE)
        assert changed[: m.start] == SOURCE[: m.start]
        assert changed[m.start + len(m.replacement):] == SOURCE[m.end:]


@pytest.mark.parametrize("value, new", [(0, ["1"]), (1, ["0"]), (7, ["8"]), (0.0, ["1.0"]),
                                        (0.05, ["0.07500000000000001"])])
def test_number_mutations(value, new):
    assert mutate._number_mutations(value) == new


def test_default_targets_cover_the_claims_code():
    targets = mutate.default_targets()
    names = {p.relative_to(mutate.ROOT).as_posix() for p in targets}
    assert {"scripts/crowdpriv/claims.py", "scripts/crowdpriv/significance.py"} <= names
    for module, tests in targets.items():
        assert all(t.is_file() for t in tests), module
        # every paper's claims module is run against its own claims tests, not only the engine's
        if module.name == "_claims.py":
            assert mutate.ROOT / f"tests/test_{module.parent.name}_claims.py" in tests, module


REGION_SOURCE = '''LIMIT = 3


def outer(a, b=2 * LIMIT):
    total = (a +
             b)
    if (total > 1 and
            a < b):
        return lambda x: x * 2
    return total


class K:
    size = 4 - 1

    def method(self):
        return self.size + 1
'''


def _at(text):
    return REGION_SOURCE.index(text), REGION_SOURCE.index(text) + len(text)


def test_a_mutant_region_is_its_statement_or_compound_header():
    st = mutate.Statements(REGION_SOURCE)
    assert st.region(*_at("+")) == ({5, 6}, False)  # a two-line simple statement
    assert st.region(*_at("<")) == ({7, 8}, False)  # an if test, not its body
    assert st.region(*_at("x * 2")) == ({9}, False)
    assert st.region(*_at("self.size + 1")) == ({17}, False)
    # run at import time: a default, a class attribute, a module constant
    assert st.region(*_at("2 * LIMIT"))[1] is True
    assert st.region(*_at("4 - 1"))[1] is True
    assert st.region(*_at("3"))[1] is True


def test_tests_are_selected_by_the_lines_they_run_fastest_first():
    root = mutate.ROOT
    f = "scripts/crowdpriv/x.py"
    cov = mutate.Coverage({"tests": {
        "tests/test_a.py::slow": {"seconds": 2.0, "outcome": "passed", "lines": {f: [5, 6]}},
        "tests/test_a.py::fast": {"seconds": 0.1, "outcome": "passed", "lines": {f: [6]}},
        "tests/test_b.py::mid": {"seconds": 1.0, "outcome": "passed", "lines": {f: [5, 17]}},
        "tests/test_b.py::none": {"seconds": 0.0, "outcome": "passed", "lines": {}}},
        "<import>": {f: [1, 4, 13, 14, 16]}})
    cov.statements[f] = mutate.Statements(REGION_SOURCE)
    tests = [root / "tests/test_a.py", root / "tests/test_b.py"]

    def mutant(text):
        start, end = _at(text)
        return mutate.Mutant(f, 0, 0, start, end, text, text, "constant")

    # a file's tests together, the file with the fastest test first
    assert cov.select(mutant("+"), tests) == ["tests/test_a.py::fast", "tests/test_a.py::slow",
                                              "tests/test_b.py::mid"]
    assert cov.select(mutant("+"), tests[1:]) == ["tests/test_b.py::mid"]
    assert cov.select(mutant("x * 2"), tests) == []  # no test runs line 9
    assert len(cov.select(mutant("4 - 1"), tests)) == 4  # import time: every test


def test_tests_that_killed_a_mutant_run_first_same_line_before_same_file():
    killers = mutate.Killers()
    m = mutate.Mutant("scripts/x.py", 5, 0, 0, 1, "a", "b", "constant")
    other_line = mutate.Mutant("scripts/x.py", 9, 0, 0, 1, "a", "b", "constant")
    other_file = mutate.Mutant("scripts/y.py", 5, 0, 0, 1, "a", "b", "constant")
    tests = ["t::fast", "t::mid", "t::slow", "u::other"]
    assert killers.order(m, tests) == tests  # nothing learned yet: the given order
    killers.record(other_line, "t::slow")
    killers.record(other_line, "t::slow")
    killers.record(m, "t::mid")
    killers.record(other_file, "t::fast")  # another file's killer does not count here
    killers.record(m, "")  # a mutant killed with no test failing (collection) teaches nothing
    assert killers.order(m, tests) == ["t::mid", "t::slow", "t::fast", "u::other"]
    assert killers.order(other_line, tests) == ["t::slow", "t::mid", "t::fast", "u::other"]
    assert killers.order(m, ["u::other", "t::fast"]) == ["u::other", "t::fast"]  # only its own


def test_a_mutants_time_limit_scales_with_its_tests_and_their_fixtures():
    """3x the selected tests' plain time plus their wider fixtures' set-up (the traced times
    where a test has no plain time), plus 10 s, capped by --timeout; without a trace, the cap
    itself."""
    cov = mutate.Coverage({"tests": {
        "tests/test_a.py::one": {"seconds": 2.0, "fixture_seconds": 10.0, "outcome": "passed",
                                 "lines": {}},
        "tests/test_a.py::two": {"seconds": 1.0, "outcome": "passed", "lines": {}},
        "tests/test_a.py::slow_traced": {"seconds": 30.0, "fixture_seconds": 6.0,
                                         "plain_seconds": 2.0, "plain_fixture_seconds": 1.0,
                                         "outcome": "passed", "lines": {}}},
        "<import>": {}})
    assert mutate.mutant_timeout(cov, ["tests/test_a.py::two"], 120.0) == 3.0 * 1.0 + 10.0
    assert mutate.mutant_timeout(cov, ["tests/test_a.py::one", "tests/test_a.py::two"],
                                 120.0) == 3.0 * 13.0 + 10.0
    assert mutate.mutant_timeout(cov, ["tests/test_a.py::slow_traced"], 120.0) == 3.0 * 3.0 + 10.0
    assert mutate.mutant_timeout(cov, ["tests/test_a.py::one"], 30.0) == 30.0
    assert mutate.mutant_timeout(None, ["tests/test_a.py::one"], 77.0) == 77.0
