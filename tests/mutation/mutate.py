"""Mutation testing of the claims code and of the mechanisms: does changing any threshold,
comparison or law fail a test?

Run it with ``make mutation`` (it is not part of ``make test``), or directly::

    python tests/mutation/mutate.py                      # everything below
    python tests/mutation/mutate.py --group mechanisms   # or: claims
    python tests/mutation/mutate.py --files scripts/crowdpriv/claims.py --tests tests/test_claims_engine.py
    python tests/mutation/mutate.py --jobs 2 --min-score 0.9

Targets (default, group ``claims``): ``scripts/crowdpriv/claims.py``,
``scripts/crowdpriv/significance.py`` and every ``scripts/crowdpriv/<paper>/_claims.py``, each
tested by ``tests/test_claims_engine.py`` and, for a paper's module,
``tests/test_<paper>_claims.py``. Group ``mechanisms``: every member of
``scripts/crowdpriv/mechanisms/`` and its codes and registry, the snapping sampler
(``release.py``), the block-streamed path (``streaming.py``'s ``perturb_in_blocks``), the
floating-point support tests (``audit.py``'s bisection, ``floating_point.py``) and the
release façade that writes the ledgers (``api.py``'s perturb and synthesize), tested by
``tests/test_mechanisms.py`` (the contract over the registry, the laws, the guarantees, the
ledgers) with the module's own tests; plus the hand-written law mutants of
``tests/mutation/law_mutants.py`` (a wrong keep probability, budget distribution, noise scale,
sensitivity: changes the operators below do not make), every one of which must be killed.

Operators, applied one at a time to the source text (the rest of the file stays byte-identical):

- comparison: ``<``↔``<=``, ``>``↔``>=``, ``<``↔``>``, ``<=``↔``>=``, ``==``↔``!=``,
  ``in``↔``not in``, ``is``↔``is not``;
- numeric constant: ``0``→``1``, ``1``→``0``, another integer n→n+1, a float x→x*1.5 (and 0.0→1.0);
- boolean: ``and``↔``or``, ``not x``→``x``, ``True``↔``False``;
- arithmetic: ``+``↔``-``, ``*``↔``/``.

Docstrings and the format specs of f-strings are not mutated. A line carrying
``# pragma: no mutate`` is skipped: use it only for an equivalent mutant, and say why after it.

Each mutant runs in a private copy of ``scripts/`` (so several run at once and the working tree
is never touched) with ``pytest -x``; a failing test or a timeout kills it. The score is
killed / mutants. The report goes to ``results/mutation/report.{json,md}``; the exit status is 1
when the score is below ``--min-score``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRAGMA = "# pragma: no mutate"

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


def find_mutants(source: str, file: str) -> list[Mutant]:
    """Every mutant of ``source`` (see the module docstring for the operators)."""
    tree = ast.parse(source)
    pos = _Positions(source)
    skip_lines = {i + 1 for i, line in enumerate(pos.lines) if PRAGMA in line}
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
        targets[path] = (base + [ROOT / t for t in own.get(path.name, [])], None)
    targets[ROOT / "scripts/crowdpriv/release.py"] = (
        base + [ROOT / "tests/test_audit.py", ROOT / "tests/test_float_safe.py"], None)
    # the floating-point support tests (issue 25): the proof's bisection and the samplers' runs
    targets[ROOT / "scripts/crowdpriv/audit.py"] = (
        [ROOT / "tests/test_audit.py"], ("float_keys", "keys_to_floats", "first_draw_at_least",
                                         "reachable", "support_share",
                                         "laplace_float64_support"))
    targets[ROOT / "scripts/crowdpriv/floating_point.py"] = (
        [ROOT / "tests/test_audit.py", ROOT / "tests/test_float_safe.py"], None)
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


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed | survived | timeout
    seconds: float


SERVER = """
import os, sys, json, signal, time
sys.path.insert(0, {tests!r})
import numpy, scipy.stats, pandas, pytest, hypothesis  # the slow imports, once per server
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.chdir({root!r})
        code = pytest.main(job["args"])
        os._exit(int(code))
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
    print(outcome, flush=True)
"""


class Workspace:
    """A private copy of ``scripts/`` in which one mutant at a time is written, and a server
    process that has imported numpy, scipy, pandas and pytest once and forks a child per
    mutant (the child imports crowdpriv afresh from the copy)."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="crowdpriv-mutation-"))
        shutil.copytree(ROOT / "scripts", self.dir / "scripts",
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPATH": f"{self.dir / 'scripts'}{os.pathsep}{ROOT / 'tests'}"}
        code = SERVER.format(tests=str(ROOT / "tests"), root=str(ROOT))
        self.server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    def run(self, mutant: Mutant, tests: list[Path], timeout: float) -> Result:
        target = self.dir / "scripts" / Path(mutant.file).relative_to("scripts")
        original = (ROOT / mutant.file).read_text()
        target.write_text(mutant.apply(original))
        args = ["-x", "-q", "-p", "no:cacheprovider", "-o", f"pythonpath={self.dir / 'scripts'}",
                "-o", "addopts=", "-m", "not e2e", "-W", "ignore::RuntimeWarning",
                *map(str, tests)]
        t0 = time.monotonic()
        try:
            self.server.stdin.write(json.dumps({"args": args, "timeout": timeout}) + "\n")
            self.server.stdin.flush()
            outcome = self.server.stdout.readline().strip() or "killed"
        finally:
            target.write_text(original)
        return Result(mutant, outcome, time.monotonic() - t0)

    def close(self):
        try:
            self.server.stdin.close()
            self.server.wait(timeout=30)
        except Exception:  # noqa: BLE001 - best effort at the end of a run
            self.server.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_all(targets, jobs: int, timeout: float, extra=()) -> list[Result]:
    """Run every generated mutant of ``targets`` ({file: tests} or {file: (tests, names)}) and
    the ``extra`` (mutant, tests) pairs."""
    work = []
    for file, spec in targets.items():
        tests, names = spec if isinstance(spec, tuple) else (spec, None)
        rel = str(file.relative_to(ROOT))
        source = file.read_text()
        mutants = find_mutants(source, rel)
        if names:
            spans = _within(source, names)
            mutants = [m for m in mutants if any(a <= m.start < b for a, b in spans)]
        work += [(m, tests) for m in mutants]
    work += list(extra)
    spaces = [Workspace() for _ in range(max(1, jobs))]
    free = list(spaces)
    results: list[Result] = []
    try:
        def one(item):
            space = free.pop()
            try:
                return space.run(item[0], item[1], timeout)
            finally:
                free.append(space)

        with ThreadPoolExecutor(max_workers=len(spaces)) as pool:
            for i, res in enumerate(pool.map(one, work), 1):
                results.append(res)
                if res.outcome == "survived":
                    m = res.mutant
                    print(f"[{i}/{len(work)}] SURVIVED {m.file}:{m.line}:{m.col} "
                          f"{m.original!r} -> {m.replacement!r} ({m.operator})", flush=True)
                elif i % 25 == 0:
                    print(f"[{i}/{len(work)}] ...", flush=True)
    finally:
        for space in spaces:
            space.close()
    return results


def report(results: list[Result], out_dir: Path, elapsed: float) -> float:
    out_dir.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, dict[str, int]] = {}
    for r in results:
        row = by_file.setdefault(r.mutant.file, {"mutants": 0, "killed": 0, "survived": 0,
                                                 "timeout": 0})
        row["mutants"] += 1
        row[r.outcome] += 1
    killed = sum(r.outcome in ("killed", "timeout") for r in results)
    score = killed / len(results) if results else 1.0
    laws = [r for r in results if r.mutant.operator == "law"]
    lines = ["# Mutation score", "",
             f"Score: **{score:.1%}** ({killed} of {len(results)} mutants killed, "
             f"{sum(r.outcome == 'timeout' for r in results)} by timeout) in {elapsed:.0f} s.",
             f"Hand-written law mutants: {sum(r.outcome != 'survived' for r in laws)} of "
             f"{len(laws)} killed.",
             "", "| file | mutants | killed | survived | timeout | score |",
             "|---|---|---|---|---|---|"]
    for file, row in by_file.items():
        k = row["killed"] + row["timeout"]
        lines.append(f"| `{file}` | {row['mutants']} | {row['killed']} | {row['survived']} | "
                     f"{row['timeout']} | {k / row['mutants']:.1%} |")
    survivors = [r.mutant for r in results if r.outcome == "survived"]
    lines += ["", f"## Surviving mutants ({len(survivors)})", ""]
    sources = {}
    for m in survivors:
        text = sources.setdefault(m.file, (ROOT / m.file).read_text().splitlines())
        lines.append(f"- `{m.file}:{m.line}:{m.col}` `{m.original}` → `{m.replacement}` "
                     f"({m.operator}): `{text[m.line - 1].strip()}`")
    (out_dir / "report.md").write_text("\n".join(lines) + "\n")
    (out_dir / "report.json").write_text(json.dumps(
        {"score": score, "killed": killed, "mutants": len(results), "by_file": by_file,
         "seconds": elapsed, "results": [dict(asdict(r.mutant), outcome=r.outcome,
                                              seconds=r.seconds) for r in results]},
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
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "mutation")
    args = parser.parse_args(argv)
    extra = []
    if args.files:
        tests = [t.resolve() for t in (args.tests or [ROOT / "tests/test_claims_engine.py"])]
        targets = {f.resolve(): tests for f in args.files}
    else:
        targets = {}
        if args.group in ("all", "claims"):
            targets.update(default_targets())
        if args.group in ("all", "mechanisms", "laws"):
            mech = mechanism_targets()
            if args.group != "laws":
                targets.update(mech)
            extra = [(m, mech[ROOT / m.file][0]) for m, _ in law_mutants()]
    originals = {f: f.read_bytes() for f in [*targets, *(ROOT / m.file for m, _ in extra)]}
    t0 = time.monotonic()
    results = run_all(targets, args.jobs, args.timeout, extra)
    changed = [str(f) for f, data in originals.items() if f.read_bytes() != data]
    if changed:
        raise SystemExit(f"the working tree changed during the run: {changed}")
    score = report(results, args.out, time.monotonic() - t0)
    laws_survived = [r for r in results if r.mutant.operator == "law" and r.outcome == "survived"]
    return 0 if score >= args.min_score and not laws_survived else 1


if __name__ == "__main__":
    sys.exit(main())
