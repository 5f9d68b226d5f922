"""Mutation testing of the claims code and of the mechanisms: does changing any threshold,
comparison or law fail a test?

Run it with ``make mutation`` (it is not part of ``make test``), or directly::

    python tests/mutation/mutate.py                      # everything below
    python tests/mutation/mutate.py --group mechanisms   # or: claims
    python tests/mutation/mutate.py --files scripts/crowdpriv/claims.py --tests tests/test_claims_engine.py
    python tests/mutation/mutate.py --jobs 2 --min-score 0.9
    python tests/mutation/mutate.py --group mechanisms --only scripts/crowdpriv/streaming.py

Targets (default, group ``claims``): ``scripts/crowdpriv/claims.py``,
``scripts/crowdpriv/significance.py`` and every ``scripts/crowdpriv/<paper>/_claims.py``, each
tested by ``tests/test_claims_engine.py`` and, for a paper's module,
``tests/test_<paper>_claims.py``. Group ``mechanisms``: every member of
``scripts/crowdpriv/mechanisms/`` and its codes and registry, the snapping sampler
(``release.py``), the block-streamed path (``streaming.py``'s ``perturb_in_blocks``), the
floating-point support tests (``audit.py``'s bisection, ``floating_point.py``) and the
release façade that writes the ledgers (``api.py``'s perturb and synthesize), tested by
``tests/test_mechanisms.py`` (the contract over the registry, the laws, the guarantees, the
ledgers) with the module's own tests and a member's exact tests ``tests/test_mech_<module>.py``
(leading underscore dropped: ``test_mech_base.py`` for ``_base.py``); plus the hand-written law mutants of
``tests/mutation/law_mutants.py`` (a wrong keep probability, budget distribution, noise scale,
sensitivity: changes the operators below do not make), every one of which must be killed.

Operators, applied one at a time to the source text (the rest of the file stays byte-identical):

- comparison: ``<``↔``<=``, ``>``↔``>=``, ``<``↔``>``, ``<=``↔``>=``, ``==``↔``!=``,
  ``in``↔``not in``, ``is``↔``is not``;
- numeric constant: ``0``→``1``, ``1``→``0``, another integer n→n+1, a float x→x*1.5 (and 0.0→1.0);
- boolean: ``and``↔``or``, ``not x``→``x``, ``True``↔``False``;
- arithmetic: ``+``↔``-``, ``*``↔``/``.

Docstrings and the format specs of f-strings are not mutated. A line carrying
``# pragma: no mutate`` is skipped: use it only for an equivalent mutant (or an example input
whose every value is as valid, e.g. the audit's example object: data, not logic), and say why
after it.

Each mutant runs in a private copy of ``scripts/`` (so several run at once and the working tree
is never touched) with ``pytest -x``; a failing test or a timeout kills it (the time limit:
3× what the mutant's tests and their wider fixtures took in a plain run of the tests before any
mutant, plus 10 s, at most ``--timeout``). Only the tests that run the mutated statement are
run: first those that have already killed a mutant of the same line, then of the same file
(most kills first; the order changes how long a killed mutant takes, not whether it is killed),
then the rest fastest first. Before
any mutant, the target's tests run once with a line tracer (``tests/mutation/trace_lines.py``,
``sys.settrace``) that records which lines of the mutated modules each test runs (its setup and
the module- or session-wide fixtures it uses included). A mutant whose statement runs at import time (module or class level, a
``def`` line, or a line run while the package is imported) gets every test of its target; a
mutant whose statement no test runs survives without a run (a test that does not run a line
cannot see it changed). The traced run also checks that every test passes without a mutant.
``--all-tests`` runs every test of the target against each mutant instead (the old, slow way).

The score is killed / mutants, per group and overall. The report goes to
``results/mutation/report.{json,md}`` with the wall and CPU time; the exit status is 1 when the
score is below ``--min-score`` or a law mutant survives.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRAGMA = "# pragma: no mutate"
#: pytest options of every run, the traced one and the mutants'
PYTEST_ARGS = ["-p", "no:cacheprovider", "-o", "addopts=", "-m", "not e2e",
               "-W", "ignore::RuntimeWarning"]

COMPARE_SWAPS = {
    "<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="],
    "==": ["!="], "!=": ["=="], "in": ["not in"], "not in": ["in"], "is": ["is not"],
    "is not": ["is"],
}
BINOP_SWAPS = {"+": "-", "-": "+", "*": "/", "/": "*"}
BOOL_SWAPS = {"and": "or", "or": "and"}


@dataclass(frozen=True)
class Mutant:
    """One change of one span of a file: ``source[start:end]`` becomes ``replacement``."""

    file: str
    line: int
    col: int
    start: int
    end: int
    original: str
    replacement: str
    operator: str

    def apply(self, source: str) -> str:
        return source[: self.start] + self.replacement + source[self.end :]


def _line_offsets(source: str) -> list[int]:
    offsets, total = [0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        offsets.append(total)
    return offsets


class _Positions:
    """Character offsets of AST positions (which count UTF-8 bytes within a line)."""

    def __init__(self, source: str):
        self.lines = source.splitlines(keepends=True)
        self.starts = _line_offsets(source)

    def offset(self, line: int, col_bytes: int) -> int:
        text = self.lines[line - 1].encode("utf-8")[:col_bytes].decode("utf-8")
        return self.starts[line - 1] + len(text)


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                ids.add(id(body[0].value))
    return ids


def _format_spec_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            ids.update(id(n) for n in ast.walk(node.format_spec))
    return ids


#: Operator patterns searched for in the text between two operands (which may hold spaces,
#: parentheses and line breaks; f-string expressions included, which tokenize does not split).
COMPARE_RE = re.compile(r"not\s+in\b|is\s+not\b|<=|>=|==|!=|<|>|\bin\b|\bis\b")
BOOL_RE = re.compile(r"\b(?:and|or)\b")
BINOP_RE = re.compile(r"(?<![*/])[-+*/](?![*/=])")


def _between(source: str, start: int, end: int, pattern: re.Pattern):
    """The first match of ``pattern`` in ``source[start:end]`` outside comments, as a span."""
    text = source[start:end]
    text = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), text)
    match = pattern.search(text)
    return None if match is None else (start + match.start(), start + match.end())


def _node_span(node: ast.AST, pos: _Positions) -> tuple[int, int]:
    return (pos.offset(node.lineno, node.col_offset),
            pos.offset(node.end_lineno, node.end_col_offset))


def _number_mutations(value) -> list[str]:
    if isinstance(value, int):
        return ["1"] if value == 0 else ["0"] if value == 1 else [repr(value + 1)]
    if value == 0.0:
        return ["1.0"]
    return [repr(value * 1.5)]


def find_mutants(source: str, file: str, *, pragma: bool = True) -> list[Mutant]:
    """Every mutant of ``source`` (see the module docstring for the operators); with
    ``pragma=False`` also those on the lines marked ``# pragma: no mutate``."""
    tree = ast.parse(source)
    pos = _Positions(source)
    skip_lines = {i + 1 for i, line in enumerate(pos.lines) if pragma and PRAGMA in line}
    skip_nodes = _docstring_nodes(tree) | _format_spec_nodes(tree)
    found: list[Mutant] = []

    def add(start, end, replacement, operator):
        line = source.count("\n", 0, start) + 1
        if line in skip_lines:
            return
        col = start - pos.starts[line - 1]
        found.append(Mutant(file, line, col, start, end, source[start:end], replacement,
                            operator))

    def operator_between(left: ast.AST, right: ast.AST, pattern: re.Pattern):
        return _between(source, _node_span(left, pos)[1], _node_span(right, pos)[0], pattern)

    for node in ast.walk(tree):
        if id(node) in skip_nodes:
            continue
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for left, right in zip(operands, operands[1:]):
                span = operator_between(left, right, COMPARE_RE)
                if span is None:
                    continue
                text = " ".join(source[span[0]:span[1]].split())
                for new in COMPARE_SWAPS.get(text, []):
                    add(*span, new, "comparison")
        elif isinstance(node, ast.BoolOp):
            for left, right in zip(node.values, node.values[1:]):
                span = operator_between(left, right, BOOL_RE)
                if span is not None:
                    add(*span, BOOL_SWAPS[source[span[0]:span[1]]], "boolean")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, end = _node_span(node, pos)
            inner_start, inner_end = _node_span(node.operand, pos)
            add(start, end, source[inner_start:inner_end], "boolean")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                                   ast.Div)):
            span = operator_between(node.left, node.right, BINOP_RE)
            if span is not None:
                add(*span, BINOP_SWAPS[source[span[0]:span[1]]], "arithmetic")
        elif isinstance(node, ast.Constant):
            start, end = _node_span(node, pos)
            if isinstance(node.value, bool):
                add(start, end, str(not node.value), "boolean")
            elif isinstance(node.value, (int, float)):
                for new in _number_mutations(node.value):
                    add(start, end, new, "constant")
    unique = {(m.start, m.end, m.replacement): m for m in found}
    return sorted(unique.values(), key=lambda m: (m.start, m.replacement))


def default_targets() -> dict[Path, list[Path]]:
    """Claims modules -> the tests that exercise them."""
    engine = [ROOT / "scripts/crowdpriv/claims.py", ROOT / "scripts/crowdpriv/significance.py"]
    papers = sorted((ROOT / "scripts/crowdpriv").glob("*/_claims.py"))
    paper_tests = {p: ROOT / f"tests/test_{p.parent.name}_claims.py" for p in papers}
    all_tests = [ROOT / "tests/test_claims_engine.py",
                 *[t for t in paper_tests.values() if t.is_file()]]
    targets = {f: all_tests for f in engine if f.is_file()}
    for module, test in paper_tests.items():
        targets[module] = [ROOT / "tests/test_claims_engine.py", *([test] if test.is_file() else [])]
    return targets


#: Group ``mechanisms``: file -> (its tests, the functions/classes mutated or None for all).
#: The contract itself (mechanisms/contract.py) is the test and is not mutated.
def mechanism_targets() -> dict[Path, tuple[list[Path], tuple[str, ...] | None]]:
    mech = ROOT / "scripts/crowdpriv/mechanisms"
    base = [ROOT / "tests/test_mechanisms.py"]
    own = {"priscrowd.py": ["tests/test_priscrowd.py"], "basic.py": ["tests/test_priscrowd.py"],
           "mf.py": ["tests/test_ldp_sparse.py"], "lp.py": ["tests/test_ldp_sparse.py"],
           "rr.py": ["tests/test_ldp_sparse.py"], "two_layer.py": ["tests/test_ldp_sparse.py"],
           "_codes.py": ["tests/test_ldp_sparse.py"], "pptd.py": ["tests/test_pptd.py"],
           "lp_snapped.py": ["tests/test_audit.py"], "_registry.py": ["tests/test_extending.py"],
           "rr_exact.py": ["tests/test_float_safe.py"],
           "mf_snapped.py": ["tests/test_float_safe.py"],
           "pptd_laplace.py": ["tests/test_float_safe.py"],
           "basic_snapped.py": ["tests/test_float_safe.py"]}
    targets = {}
    for path in sorted(mech.glob("*.py")):
        if path.name in ("__init__.py", "contract.py"):
            continue
        # a member's own exact tests, when it has them: tests/test_mech_<module>.py
        exact = [t for t in [ROOT / f"tests/test_mech_{path.stem.lstrip('_')}.py"] if t.is_file()]
        targets[path] = (base + [ROOT / t for t in own.get(path.name, [])] + exact, None)
    targets[ROOT / "scripts/crowdpriv/release.py"] = (
        base + [ROOT / "tests/test_audit.py", ROOT / "tests/test_float_safe.py",
                ROOT / "tests/test_release.py"], None)
    # the floating-point support tests (issue 25): the proof's bisection and the samplers' runs
    targets[ROOT / "scripts/crowdpriv/audit.py"] = (
        [ROOT / "tests/test_audit.py"], ("float_keys", "keys_to_floats", "first_draw_at_least",
                                         "reachable", "support_share",
                                         "laplace_float64_support"))
    targets[ROOT / "scripts/crowdpriv/floating_point.py"] = (
        [ROOT / "tests/test_audit.py", ROOT / "tests/test_float_safe.py",
         ROOT / "tests/test_floating_point.py"], None)
    targets[ROOT / "scripts/crowdpriv/streaming.py"] = (
        base + [ROOT / "tests/test_streaming.py"], ("perturb_in_blocks", "_code_block",
                                                   "worker_blocks"))
    targets[ROOT / "scripts/crowdpriv/api.py"] = (
        base + [ROOT / "tests/test_api.py"], ("perturb", "release_mechanism", "audit_cases_for",
                                             "_audit_caveats", "perturb_mechanisms",
                                             "synthesize"))
    return targets


def law_mutants() -> list[tuple[Mutant, str]]:
    """The hand-written law mutants (tests/mutation/law_mutants.py) as (mutant, why)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from law_mutants import LAW_MUTANTS

    out = []
    for file, old, new, why in LAW_MUTANTS:
        source = (ROOT / file).read_text()
        count = source.count(old)
        if count != 1:
            raise SystemExit(f"law mutant of {file} ({why}): its text occurs {count} times, "
                             f"not once: {old!r}")
        start = source.index(old)
        line = source.count("\n", 0, start) + 1
        out.append((Mutant(file, line, 0, start, start + len(old), old, new, "law"), why))
    return out


def _within(source: str, names) -> list[tuple[int, int]]:
    """Character spans of the top-level functions/classes called ``names``."""
    tree = ast.parse(source)
    pos = _Positions(source)
    spans = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            spans.append(_node_span(node, pos))
    return spans


class Statements:
    """Where each statement of a module sits, to tell which lines a mutant's statement runs on:
    a simple statement's lines, or a compound statement's header (``if``/``while`` test,
    ``for`` iterable, ``def`` line with its decorators and defaults, ``except`` clause)."""

    def __init__(self, source: str):
        tree = ast.parse(source)
        self.pos = _Positions(source)
        self.source = source
        self.items: list[tuple[int, int, frozenset[int], bool]] = []

        def visit(node, in_function: bool):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.stmt, ast.excepthandler)):
                    first = min([child.lineno] + [d.lineno for d in
                                                  getattr(child, "decorator_list", [])])
                    end = _node_span(child, self.pos)[1]
                    body = getattr(child, "body", None)
                    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                        last = max(first, body[0].lineno - 1)
                    else:
                        last = child.end_lineno
                    self.items.append((self.pos.starts[first - 1], end,
                                       frozenset(range(first, last + 1)), in_function))
                    inner = in_function or isinstance(child, (ast.FunctionDef,
                                                              ast.AsyncFunctionDef))
                    visit(child, inner)
                else:
                    visit(child, in_function)

        visit(tree, False)

    def region(self, start: int, end: int) -> tuple[set[int], bool]:
        """The lines on which the statement(s) holding ``source[start:end]`` run, and whether
        that code runs at import time (module or class level, a ``def`` line)."""
        holding = [it for it in self.items if it[0] <= start < it[1]]
        first_line = self.source.count("\n", 0, start) + 1
        last_line = self.source.count("\n", 0, max(start, end - 1)) + 1
        lines = set(range(first_line, last_line + 1))
        if not holding:
            return lines, True
        innermost = min(holding, key=lambda it: it[1] - it[0])
        return lines | innermost[2], not innermost[3]


class Coverage:
    """Which tests run which lines of the targets (one traced run of the tests, see
    ``tests/mutation/trace_lines.py``), and how long each test took."""

    def __init__(self, data: dict):
        self.tests = data["tests"]
        self.at_import = {f: set(lines) for f, lines in data["<import>"].items()}
        self.by_line: dict[str, dict[int, set[str]]] = {}
        for nodeid, rec in self.tests.items():
            for file, lines in rec["lines"].items():
                index = self.by_line.setdefault(file, {})
                for line in lines:
                    index.setdefault(line, set()).add(nodeid)
        self.statements: dict[str, Statements] = {}

    def failed(self) -> list[str]:
        return [n for n, rec in self.tests.items() if rec["outcome"] != "passed"]

    def select(self, mutant: Mutant, tests: list[Path]) -> list[str]:
        """The tests (node ids, fastest first, a file's tests together) of ``tests`` that run
        the mutated statement: all of them when it runs at import time; none when no test
        runs it."""
        files = {str(t.relative_to(ROOT)) for t in tests}
        mine = [n for n in self.tests if n.split("::")[0] in files]
        if mutant.file not in self.statements:
            self.statements[mutant.file] = Statements((ROOT / mutant.file).read_text())
        lines, at_import = self.statements[mutant.file].region(mutant.start, mutant.end)
        if at_import or lines & self.at_import.get(mutant.file, set()):
            chosen = set(mine)
        else:
            index = self.by_line.get(mutant.file, {})
            chosen = set().union(*(index.get(line, set()) for line in lines)) & set(mine)
        ordered = sorted(chosen, key=lambda n: (self.tests[n]["seconds"], n))
        first_seen: dict[str, int] = {}
        for n in ordered:
            first_seen.setdefault(n.split("::")[0], len(first_seen))
        return sorted(ordered, key=lambda n: first_seen[n.split("::")[0]])


def _plugin_run(test_files: list[Path], target_files: list[Path], jobs: int,
                lines: bool) -> dict:
    """Run ``test_files`` once under ``tests/mutation/trace_lines.py`` (``jobs`` processes, a
    file's tests in one): with ``lines``, every line of ``target_files`` each test runs is
    recorded; without, only each test's time and outcome (a plain run)."""
    groups: list[list[Path]] = [[] for _ in range(max(1, jobs))]
    for i, t in enumerate(sorted(test_files, key=lambda t: -t.stat().st_size)):
        groups[i % len(groups)].append(t)
    out_dir = Path(tempfile.mkdtemp(prefix="crowdpriv-trace-"))
    procs = []
    for i, group in enumerate(g for g in groups if g):
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(ROOT / "scripts"),
                                              str(ROOT / "tests")]),
               "CROWDPRIV_TRACE_ROOT": str(ROOT), "CROWDPRIV_TRACE_OUT": str(out_dir / f"{i}.json"),
               "CROWDPRIV_TRACE_LINES": "1" if lines else "0",
               "CROWDPRIV_TRACE_FILES": os.pathsep.join(str(f.relative_to(ROOT))
                                                        for f in target_files)}
        args = [sys.executable, "-m", "pytest", "-q", "-p", "trace_lines", *PYTEST_ARGS,
                *map(str, group)]
        procs.append(subprocess.Popen(args, env=env, cwd=ROOT, stdout=subprocess.DEVNULL))
    merged: dict = {"tests": {}, "<import>": {}}
    try:
        for i, proc in enumerate(procs):
            proc.wait()
            data = json.loads((out_dir / f"{i}.json").read_text())
            merged["tests"].update(data["tests"])
            for file, lines_run in data["<import>"].items():
                merged["<import>"][file] = sorted(set(merged["<import>"].get(file, [])) |
                                                  set(lines_run))
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    return merged


def trace(test_files: list[Path], target_files: list[Path], jobs: int) -> Coverage:
    """Run ``test_files`` twice: once plain, for each test's time (``plain_seconds``,
    ``plain_fixture_seconds``: what a mutant's time limit is scaled from), then with every line
    of ``target_files`` that each test runs recorded."""
    plain = _plugin_run(test_files, target_files, jobs, lines=False)["tests"]
    merged = _plugin_run(test_files, target_files, jobs, lines=True)
    for nodeid, rec in merged["tests"].items():
        if nodeid in plain:
            rec["plain_seconds"] = plain[nodeid]["seconds"]
            rec["plain_fixture_seconds"] = plain[nodeid].get("fixture_seconds", 0.0)
    return Coverage(merged)


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed | survived | timeout
    seconds: float
    group: str = ""
    tests: int = -1  # tests selected (0: no test runs the mutated line; -1: whole files)
    killer: str = ""  # the node id of the test that failed first (killed only)


SERVER = """
import os, sys, json, signal, time
sys.path.insert(0, {tests!r})
import numpy, scipy.stats, pandas, pytest, hypothesis  # the slow imports, once per server
import gc, yaml
gc.collect()
gc.freeze()  # what is imported once is not traversed again by each child's collections


class FirstFailure:  # writes the node id of the first test that fails to a pipe

    def __init__(self, fd):
        self.fd = fd

    def pytest_runtest_logreport(self, report):
        if report.failed and self.fd is not None:
            os.write(self.fd, report.nodeid.encode())
            os.close(self.fd)
            self.fd = None


for line in sys.stdin:
    job = json.loads(line)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.chdir({root!r})
        code = pytest.main(job["args"], plugins=[FirstFailure(write_end)])
        os._exit(int(code))
    os.close(write_end)
    deadline = time.monotonic() + job["timeout"]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            outcome = "survived" if os.waitstatus_to_exitcode(status) == 0 else "killed"
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            outcome = "timeout"
            break
        time.sleep(0.02)
    killer = os.read(read_end, 65536).decode() if outcome == "killed" else ""
    os.close(read_end)
    print(outcome, killer, sep="\t", flush=True)
"""


class Workspace:
    """A private copy of ``scripts/`` in which one mutant at a time is written, and a server
    process that has imported numpy, scipy, pandas and pytest once and forks a child per
    mutant (the child imports crowdpriv afresh from the copy).

    Bytecode is cached in the workspace's own folder (``PYTHONPYCACHEPREFIX``, never in the
    working tree), so a child compiles only the mutated module: each write of that module (the
    mutant, then the original back) gets a modification time of its own, so a cached
    compilation of another version of it is never taken for the current one."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="crowdpriv-mutation-"))
        shutil.copytree(ROOT / "scripts", self.dir / "scripts",
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        self.stamp = itertools.count(1_000_000_000)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONHASHSEED="0", PYTHONPYCACHEPREFIX=str(self.dir / "pycache"),
                   PYTHONPATH=f"{self.dir / 'scripts'}{os.pathsep}{ROOT / 'tests'}")
        code = SERVER.format(tests=str(ROOT / "tests"), root=str(ROOT))
        self.server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
                                       start_new_session=True)  # its own process group

    def run(self, mutant: Mutant, tests: list[str], timeout: float,
            original: str | None = None) -> Result:
        """Run ``tests`` (test files or node ids) against ``mutant`` of ``original`` (the
        module's text when the mutants were found), stopping at the first failure."""
        target = self.dir / "scripts" / Path(mutant.file).relative_to("scripts")
        if original is None:
            original = (ROOT / mutant.file).read_text()
        self._write(target, mutant.apply(original))
        # plain asserts: a failing assert still fails the test, without rewriting (and
        # re-reading) every test module in each child
        args = ["-x", "-q", "--assert=plain", *PYTEST_ARGS, "-o",
                f"pythonpath={self.dir / 'scripts'}", *tests]
        t0 = time.monotonic()
        try:
            self.server.stdin.write(json.dumps({"args": args, "timeout": timeout}) + "\n")
            self.server.stdin.flush()
            outcome, _, killer = self.server.stdout.readline().rstrip("\n").partition("\t")
        finally:
            self._write(target, original)
        return Result(mutant, outcome or "killed", time.monotonic() - t0, killer=killer)

    def _write(self, path: Path, text: str):
        path.write_text(text)
        stamp = next(self.stamp)  # whole seconds: what a .pyc records of its source
        os.utime(path, (stamp, stamp))

    def close(self, now: bool = False):
        """Stop the server (``now``: with the test run it may be in, by its process group)."""
        try:
            if now:
                raise TimeoutError
            self.server.stdin.close()
            self.server.wait(timeout=30)
        except Exception:  # noqa: BLE001 - best effort at the end of a run
            os.killpg(self.server.pid, signal.SIGKILL)
            self.server.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass
class Work:
    mutant: Mutant
    tests: list[Path]
    group: str


def generated(targets, group: str) -> tuple[list[Work], dict[str, int]]:
    """Every generated mutant of ``targets`` ({file: tests} or {file: (tests, names)}), and per
    file how many more sit on lines marked ``# pragma: no mutate`` (equivalent mutants)."""
    work, pragma = [], {}
    for file, spec in targets.items():
        tests, names = spec if isinstance(spec, tuple) else (spec, None)
        rel = str(file.relative_to(ROOT))
        source = file.read_text()
        mutants = find_mutants(source, rel)
        every = find_mutants(source, rel, pragma=False)
        if names:
            spans = _within(source, names)
            mutants = [m for m in mutants if any(a <= m.start < b for a, b in spans)]
            every = [m for m in every if any(a <= m.start < b for a, b in spans)]
        work += [Work(m, tests, group) for m in mutants]
        pragma[rel] = len(every) - len(mutants)
    return work, pragma


#: A mutant's time limit: this many times what its selected tests took in the plain run
#: before any mutant (the traced time where a test has no plain time), plus TIMEOUT_FLOOR
#: seconds (a child's start-up and collection, and load), at most ``--timeout``.
TIMEOUT_FACTOR = 3.0
TIMEOUT_FLOOR = 10.0


def mutant_timeout(coverage: Coverage | None, tests: list[str], limit: float) -> float:
    """How long ``tests`` may run against a mutant before it counts as killed by a timeout (a
    mutant that loops forever): scaled to what they took without a mutant, so a loop is
    caught in seconds rather than at ``limit``, and a slower but finishing run is not."""
    if coverage is None:
        return limit
    chosen = [coverage.tests[n] for n in tests if n in coverage.tests]
    # each test's own time and its wider fixtures' set-up (however the run orders the tests)
    took = sum(t.get("plain_seconds", t["seconds"])
               + t.get("plain_fixture_seconds", t.get("fixture_seconds", 0.0)) for t in chosen)
    return min(limit, TIMEOUT_FACTOR * took + TIMEOUT_FLOOR)


class Killers:
    """The tests that have killed mutants so far in this run, by file and by line: a mutant's
    selected tests are run with those first (the likeliest to fail, and ``-x`` stops at the
    first failure), then the rest in ``Coverage.select``'s order. The order changes how long a
    killed mutant takes, never whether it is killed: every selected test still runs until one
    fails."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_line: dict[tuple[str, int], dict[str, int]] = {}
        self.by_file: dict[str, dict[str, int]] = {}

    def record(self, mutant: Mutant, nodeid: str):
        if not nodeid:
            return
        with self.lock:
            for counts in (self.by_line.setdefault((mutant.file, mutant.line), {}),
                           self.by_file.setdefault(mutant.file, {})):
                counts[nodeid] = counts.get(nodeid, 0) + 1

    def order(self, mutant: Mutant, tests: list[str]) -> list[str]:
        with self.lock:
            line = dict(self.by_line.get((mutant.file, mutant.line), {}))
            file = dict(self.by_file.get(mutant.file, {}))
        rank = {n: i for i, n in enumerate(tests)}
        first = sorted((n for n in tests if n in file),
                       key=lambda n: (-line.get(n, 0), -file[n], rank[n]))
        chosen = set(first)
        return first + [n for n in tests if n not in chosen]


def run_all(work: list[Work], jobs: int, timeout: float, select: bool = True) -> list[Result]:
    """Run every mutant of ``work`` against its tests: with ``select``, only those of its tests
    that run the mutated statement (see ``Coverage.select``), fastest first; else all of them."""
    # the modules as they were when their mutants were found: an edit during the run changes
    # neither the mutants nor the copy they are written into (and fails the run at its end)
    sources = {f: (ROOT / f).read_text() for f in {w.mutant.file for w in work}}
    coverage = None
    if select and work:
        t0 = time.monotonic()
        tests = sorted({t for w in work for t in w.tests})
        coverage = trace(tests, sorted({ROOT / w.mutant.file for w in work}), jobs)
        failed = coverage.failed()
        if failed:
            raise SystemExit("the tests fail without any mutant: " + ", ".join(failed[:10]))
        print(f"traced {len(coverage.tests)} tests in {time.monotonic() - t0:.0f} s", flush=True)
    spaces = [Workspace() for _ in range(max(1, jobs))]
    free = list(spaces)
    killers = Killers()
    results: list[Result] = []
    interrupted = False
    try:
        def one(item: Work) -> Result:
            if coverage is None:
                chosen = [str(t) for t in item.tests]
            else:
                chosen = coverage.select(item.mutant, item.tests)
                if not chosen:
                    return Result(item.mutant, "survived", 0.0, item.group, 0)
                chosen = killers.order(item.mutant, chosen)
            space = free.pop()
            try:
                res = space.run(item.mutant, chosen, mutant_timeout(coverage, chosen, timeout),
                                sources[item.mutant.file])
            finally:
                free.append(space)
            killers.record(item.mutant, res.killer)
            res.group, res.tests = item.group, len(chosen) if coverage else -1
            return res

        pool = ThreadPoolExecutor(max_workers=len(spaces))
        try:
            for i, res in enumerate(pool.map(one, work), 1):
                results.append(res)
                if res.outcome == "survived":
                    m = res.mutant
                    why = " (no test runs it)" if res.tests == 0 else ""
                    print(f"[{i}/{len(work)}] SURVIVED {m.file}:{m.line}:{m.col} "
                          f"{m.original!r} -> {m.replacement!r} ({m.operator}){why}", flush=True)
                elif i % 25 == 0:
                    print(f"[{i}/{len(work)}] ...", flush=True)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: report what has run
            interrupted = True
            print(f"interrupted after {len(results)} of {len(work)} mutants", flush=True)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
    finally:
        for space in spaces:
            space.close(now=interrupted)
    return results


def _line_text(m: Mutant) -> str:
    return (ROOT / m.file).read_text().splitlines()[m.line - 1]


def _key(file, col, original, replacement, text):
    """A mutant by its line's text, not its number (tests or pragmas added move lines)."""
    return file, col, original, replacement, text.strip()


def _cpu_seconds() -> float:
    """CPU time of this process and of every process it has waited for (the mutation servers
    and, through them, their children; the traced runs)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _tally(rows: list[Result]) -> dict[str, int]:
    return {"mutants": len(rows), "killed": sum(r.outcome == "killed" for r in rows),
            "timeout": sum(r.outcome == "timeout" for r in rows),
            "survived": sum(r.outcome == "survived" for r in rows),
            "not_run": sum(r.tests == 0 for r in rows)}


def report(results: list[Result], out_dir: Path, elapsed: float, cpu: float = 0.0,
           pragma: dict[str, dict[str, int]] | None = None, jobs: int = 1) -> float:
    """Write ``report.{md,json}`` to ``out_dir``; ``pragma``: {group: {file: equivalent
    mutants skipped}}. Returns the score (killed, by a failing test or a timeout, / mutants)."""
    pragma = pragma or {}
    out_dir.mkdir(parents=True, exist_ok=True)
    groups = {g: _tally([r for r in results if r.group == g])
              for g in dict.fromkeys(r.group for r in results)}
    for g, row in groups.items():
        row["equivalent"] = sum(pragma.get(g, {}).values())
    by_file = {f: _tally([r for r in results if r.mutant.file == f])
               for f in dict.fromkeys(r.mutant.file for r in results)}
    for f, row in by_file.items():
        row["equivalent"] = sum(files.get(f, 0) for g, files in pragma.items() if g != "laws")
    killed = sum(r.outcome in ("killed", "timeout") for r in results)
    score = killed / len(results) if results else 1.0
    laws = [r for r in results if r.mutant.operator == "law"]

    def score_of(row):
        return (row["killed"] + row["timeout"]) / row["mutants"] if row["mutants"] else 1.0

    lines = ["# Mutation score", "",
             f"Score: **{score:.1%}** ({killed} of {len(results)} mutants killed, "
             f"{sum(r.outcome == 'timeout' for r in results)} by timeout) in {elapsed:.0f} s "
             f"wall time, {cpu:.0f} s CPU time ({jobs} jobs).",
             f"Hand-written law mutants: {sum(r.outcome != 'survived' for r in laws)} of "
             f"{len(laws)} killed.",
             "Equivalent: the mutants on lines marked `# pragma: no mutate` (not run, not "
             "counted in the score). Not run: survivors whose mutated statement no test runs.",
             "", "| group | mutants | killed | timeout | survived | of which not run | "
             "equivalent | score |", "|---|---|---|---|---|---|---|---|"]
    for g, row in groups.items():
        lines.append(f"| {g} | {row['mutants']} | {row['killed']} | {row['timeout']} | "
                     f"{row['survived']} | {row['not_run']} | {row['equivalent']} | "
                     f"{score_of(row):.1%} |")
    lines += ["", "| file | mutants | killed | timeout | survived | equivalent | score |",
              "|---|---|---|---|---|---|---|"]
    for file, row in by_file.items():
        lines.append(f"| `{file}` | {row['mutants']} | {row['killed']} | {row['timeout']} | "
                     f"{row['survived']} | {row['equivalent']} | {score_of(row):.1%} |")
    survivors = [r for r in results if r.outcome == "survived"]
    lines += ["", f"## Surviving mutants ({len(survivors)})", ""]
    sources = {}
    for r in survivors:
        m = r.mutant
        text = sources.setdefault(m.file, (ROOT / m.file).read_text().splitlines())
        lines.append(f"- {r.group}: `{m.file}:{m.line}:{m.col}` `{m.original}` → "
                     f"`{m.replacement}` ({m.operator}{', not run' if r.tests == 0 else ''}): "
                     f"`{text[m.line - 1].strip()}`")
    (out_dir / "report.md").write_text("\n".join(lines) + "\n")
    (out_dir / "report.json").write_text(json.dumps(
        {"score": score, "killed": killed, "mutants": len(results), "groups": groups,
         "laws": {"mutants": len(laws), "killed": sum(r.outcome != "survived" for r in laws)},
         "by_file": by_file, "seconds": elapsed, "cpu_seconds": cpu, "jobs": jobs,
         "results": [dict(asdict(r.mutant), outcome=r.outcome, seconds=r.seconds,
                          group=r.group, tests=r.tests, killer=r.killer,
                          text=_line_text(r.mutant))
                     for r in results]},
        indent=1))
    print("\n".join(lines))
    return score


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="*", type=Path, help="modules to mutate")
    parser.add_argument("--tests", nargs="*", type=Path, help="tests to run for --files")
    parser.add_argument("--group", choices=["all", "claims", "mechanisms", "laws"],
                        default="all", help="laws: only the hand-written law mutants")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--min-score", type=float, default=0.90)
    parser.add_argument("--all-tests", action="store_true",
                        help="run every test of a target against each of its mutants (slow), "
                             "not only those that run the mutated statement")
    parser.add_argument("--survivors-of", type=Path, metavar="REPORT_JSON",
                        help="run only the mutants that survived in this earlier report (after "
                             "adding tests; the sources must be unchanged around them)")
    parser.add_argument("--only", nargs="*", type=Path, metavar="FILE",
                        help="run only the mutants of these files of the chosen group (with "
                             "the group's tests and selection of functions)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "mutation")
    args = parser.parse_args(argv)
    work: list[Work] = []
    pragma: dict[str, dict[str, int]] = {}
    if args.files:
        tests = [t.resolve() for t in (args.tests or [ROOT / "tests/test_claims_engine.py"])]
        work, pragma["files"] = generated({f.resolve(): tests for f in args.files}, "files")
    else:
        if args.group in ("all", "claims"):
            more, pragma["claims"] = generated(default_targets(), "claims")
            work += more
        if args.group in ("all", "mechanisms", "laws"):
            mech = mechanism_targets()
            if args.group != "laws":
                more, pragma["mechanisms"] = generated(mech, "mechanisms")
                work += more
            work += [Work(m, mech[ROOT / m.file][0], "laws") for m, _ in law_mutants()]
    if args.only:
        only = {str(f.resolve().relative_to(ROOT)) for f in args.only}
        work = [w for w in work if w.mutant.file in only]
    if args.survivors_of:
        old = json.loads(args.survivors_of.read_text())["results"]
        keep = {_key(r["file"], r["col"], r["original"], r["replacement"], r["text"])
                for r in old if r["outcome"] == "survived"}
        work = [w for w in work if _key(w.mutant.file, w.mutant.col, w.mutant.original,
                                        w.mutant.replacement, _line_text(w.mutant)) in keep]
    originals = {f: f.read_bytes() for f in {ROOT / w.mutant.file for w in work} |
                 {t for w in work for t in w.tests}}
    t0, cpu0 = time.monotonic(), _cpu_seconds()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    results = run_all(work, args.jobs, args.timeout, select=not args.all_tests)
    if len(results) < len(work):
        print(f"the report covers the {len(results)} mutants run of {len(work)}")
    changed = [str(f) for f, data in originals.items() if f.read_bytes() != data]
    if changed:
        raise SystemExit(f"the working tree changed during the run: {changed}")
    score = report(results, args.out, time.monotonic() - t0, _cpu_seconds() - cpu0, pragma,
                   args.jobs)
    laws_survived = [r for r in results if r.mutant.operator == "law" and r.outcome == "survived"]
    return 0 if score >= args.min_score and not laws_survived else 1


if __name__ == "__main__":
    sys.exit(main())
