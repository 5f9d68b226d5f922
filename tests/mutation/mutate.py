"""Mutation testing of the claims code: does changing any threshold or comparison fail a test?

Run it with ``make mutation`` (it is not part of ``make test``), or directly::

    python tests/mutation/mutate.py                      # the claims code and its tests
    python tests/mutation/mutate.py --files scripts/crowdpriv/claims.py --tests tests/test_claims_engine.py
    python tests/mutation/mutate.py --jobs 2 --min-score 0.9

Targets (default): ``scripts/crowdpriv/claims.py``, ``scripts/crowdpriv/significance.py`` and
every ``scripts/crowdpriv/<paper>/_claims.py``. Each target is tested by
``tests/test_claims_engine.py`` and, for a paper's module, ``tests/test_<paper>_claims.py``
(the shared modules by every claims test).

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


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed | survived | timeout
    seconds: float


class Workspace:
    """A private copy of ``scripts/`` in which one mutant at a time is written."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="crowdpriv-mutation-"))
        shutil.copytree(ROOT / "scripts", self.dir / "scripts",
                        ignore=shutil.ignore_patterns("__pycache__"))

    def run(self, mutant: Mutant, tests: list[Path], timeout: float) -> Result:
        target = self.dir / "scripts" / Path(mutant.file).relative_to("scripts")
        original = (ROOT / mutant.file).read_text()
        target.write_text(mutant.apply(original))
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "-o", f"pythonpath={self.dir / 'scripts'}", "-o", "addopts=",
               "-W", "ignore::RuntimeWarning", *map(str, tests)]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, timeout=timeout)
            outcome = "survived" if proc.returncode == 0 else "killed"
        except subprocess.TimeoutExpired:
            outcome = "timeout"
        finally:
            target.write_text(original)
        return Result(mutant, outcome, time.monotonic() - t0)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def run_all(targets: dict[Path, list[Path]], jobs: int, timeout: float) -> list[Result]:
    work = []
    for file, tests in targets.items():
        rel = str(file.relative_to(ROOT))
        work += [(m, tests) for m in find_mutants(file.read_text(), rel)]
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
    lines = ["# Mutation score of the claims code", "",
             f"Score: **{score:.1%}** ({killed} of {len(results)} mutants killed, "
             f"{sum(r.outcome == 'timeout' for r in results)} by timeout) in {elapsed:.0f} s.",
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
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--min-score", type=float, default=0.90)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "mutation")
    args = parser.parse_args(argv)
    if args.files:
        tests = [t.resolve() for t in (args.tests or [ROOT / "tests/test_claims_engine.py"])]
        targets = {f.resolve(): tests for f in args.files}
    else:
        targets = default_targets()
    originals = {f: f.read_bytes() for f in targets}
    t0 = time.monotonic()
    results = run_all(targets, args.jobs, args.timeout)
    changed = [str(f) for f, data in originals.items() if f.read_bytes() != data]
    if changed:
        raise SystemExit(f"the working tree changed during the run: {changed}")
    score = report(results, args.out, time.monotonic() - t0)
    return 0 if score >= args.min_score else 1


if __name__ == "__main__":
    sys.exit(main())
