"""The shape of the numeric core: no import cycle, private modules stay private, one owner per
default (the mechanisms' settings), and the registry is what the config and CLI offer."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

SCRIPTS = ROOT / "scripts"
PACKAGE = SCRIPTS / "crowdpriv"


def _module(path: Path) -> str:
    parts = list(path.relative_to(SCRIPTS).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Every crowdpriv module ``path`` imports, at any level (functions included), with the
    packages a dotted import initialises, except the importing module's own ancestors."""
    name = _module(path)
    base = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                root = ".".join(parts[:len(parts) - node.level + 1])
                target = root + ("." + node.module if node.module else "")
            else:
                target = node.module or ""
            targets = [target] + [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            for i in range(2, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in modules and prefix != name and not name.startswith(prefix + "."):
                    found.add(prefix)
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    paths = {_module(p): p for p in package.rglob("*.py")}
    return {name: _imports(path, set(paths)) for name, path in paths.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_the_core():
    assert cycles(import_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    """The check can fail: two modules that import each other (inside functions too)."""
    graph = {"crowdpriv.api": {"crowdpriv.audits"}, "crowdpriv.audits": {"crowdpriv.api"},
             "crowdpriv.release": set()}
    assert cycles(graph) == [["crowdpriv.api", "crowdpriv.audits"]]


def _private_imports_across_packages(graph):
    """(importer, private module) where a library module imports another package's
    ``_private`` module."""
    bad = []
    for importer, targets in graph.items():
        for target in targets:
            parts = target.split(".")
            private = [i for i, p in enumerate(parts) if p.startswith("_")]
            if not private:
                continue
            owner = ".".join(parts[:private[0]])  # the package the private module belongs to
            if not (importer == owner or importer.startswith(owner + ".")):
                bad.append((importer, target))
    return sorted(bad)


def test_private_modules_are_imported_only_inside_their_package():
    assert _private_imports_across_packages(import_graph()) == []
    # and the check can fail
    assert _private_imports_across_packages(
        {"crowdpriv.api": {"crowdpriv.priscrowd._experiments"}}) == [
        ("crowdpriv.api", "crowdpriv.priscrowd._experiments")]


def _snakemake_imports(path: Path) -> list[tuple[int, bool]]:
    """(line, at the module's top level) of each import of snakemake in ``path``."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        if any(n == "snakemake" or n.startswith("snakemake.") for n in names):
            found.append((node.lineno, id(node) in top))
    return found


def test_the_core_imports_no_snakemake_but_the_job_servers_snakefile_side(tmp_path):
    """The numeric core imports no snakemake (STYLE.md). The one exception is the pipeline's
    plumbing in ``crowdpriv.jobserver``: the request that Snakemake's own process sends
    (``script_without_launcher``) uses Snakemake's functions, imported inside those functions
    only, so ``import crowdpriv.jobserver`` needs no Snakemake."""
    offenders = {path.relative_to(SCRIPTS).as_posix(): lines
                 for path in sorted(PACKAGE.rglob("*.py"))
                 if (lines := _snakemake_imports(path))}
    assert set(offenders) <= {"crowdpriv/jobserver.py"}, offenders
    assert offenders["crowdpriv/jobserver.py"]
    assert not any(top for _, top in offenders["crowdpriv/jobserver.py"])
    # and the check can fail
    sample = tmp_path / "sample.py"
    sample.write_text("import numpy\nfrom snakemake.io import Namedlist\n")
    assert _snakemake_imports(sample) == [(2, True)]


# --- one owner per default ------------------------------------------------------------------


def _schema():
    return yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())


def _config():
    return yaml.safe_load((ROOT / "config/config.yaml").read_text())


def test_priscrowd_defaults_live_in_the_mechanisms_settings():
    """Algorithm 1's and Basic's defaults: the settings dataclasses own them; Params, the
    schema's defaults and the config equal them (the config sets the paper's values)."""
    from crowdpriv import mechanisms
    from crowdpriv.priscrowd import Params

    alg1 = mechanisms.get("priscrowd").Settings()
    schema = _schema()["properties"]["priscrowd"]["properties"]
    config = _config()["priscrowd"]
    params = Params()
    for f in dataclasses.fields(alg1):
        if f.name == "weights":
            continue
        value = getattr(alg1, f.name)
        assert getattr(params, f.name) == value, f.name
        if "default" in schema.get(f.name, {}):
            assert schema[f.name]["default"] == value, f"schema default of priscrowd.{f.name}"
        if f.name in config:
            assert config[f.name] == value, f"config/config.yaml priscrowd.{f.name}"
    basic = mechanisms.get("basic").Settings()
    assert params.basic_sensitivity == basic.sensitivity == config["basic_sensitivity"]


def test_ldp_sparse_mechanism_defaults_live_in_the_mechanisms_settings():
    """Each config key of ``ldp_sparse.mechanisms`` (and ``d``) feeds one setting of one
    member (CONFIG_SETTINGS); the schema's default and config/config.yaml equal its default."""
    from crowdpriv import mechanisms
    from crowdpriv.ldp_sparse import CONFIG_SETTINGS

    props = _schema()["properties"]["ldp_sparse"]["properties"]
    config = _config()["ldp_sparse"]
    for mech_id, keys in CONFIG_SETTINGS.items():
        settings = mechanisms.get(mech_id).Settings()
        for key, name in keys.items():
            default = getattr(settings, name)
            schema_entry = props[key] if key == "d" else props["mechanisms"]["properties"][key]
            assert schema_entry.get("default") == default, f"schema default of {key}"
            value = config[key] if key == "d" else config["mechanisms"][key]
            assert value == default, f"config/config.yaml ldp_sparse {key}"


def test_schema_release_enum_is_the_registry():
    from crowdpriv.api import perturb_mechanisms

    props = _schema()["properties"]["ldp_sparse"]["properties"]["release"]["properties"]
    enum = props["mechanisms"]["items"]["enum"]
    from crowdpriv import mechanisms

    categorical = [m for m in perturb_mechanisms()
                   if mechanisms.get(m).answer_type == "categorical"]
    assert sorted(enum) == sorted(categorical)


def test_cli_flags_and_defaults_come_from_the_settings():
    """Every setting of a releasable member is a flag of ``crowdpriv perturb`` whose help shows
    the dataclass's default; the CLI writes no default of its own."""
    from crowdpriv import mechanisms
    from crowdpriv.cli import _parser

    parser = _parser(mechanisms)
    sub = next(a for a in parser._actions if a.dest == "command").choices
    for command, members in (("perturb", ["two-layer", "mf", "pptd"]),
                             ("synthesize", ["priscrowd"])):
        actions = {a.dest: a for a in sub[command]._actions}
        for mech_id in members:
            for f in dataclasses.fields(mechanisms.get(mech_id).Settings):
                action = actions[f"setting_{f.name}"]
                assert action.default is None, f"{command} --{f.name} sets its own default"
                assert repr(f.default) in action.help, f"{command} --{f.name} help"


@pytest.mark.parametrize("dead", ["two_layer_epsilons", "check_finite_array", "ise_sise",
                                  "TRADEOFF_FIGURES", "_SQRT_2PI", "perturb_answers"])
def test_dead_code_stays_removed(dead):
    import re

    word = re.compile(rf"(?<!\w){re.escape(dead)}\b")
    hits = [p for p in PACKAGE.rglob("*.py") if word.search(p.read_text())]
    assert hits == []


def test_every_adapter_ends_with_finish_job():
    """Each adapter script that starts a job (``start_job``) ends with ``finish_job()`` as its
    last top-level statement: the job leaves without the interpreter's finalization
    (crowdpriv.runtime.finish_job) only once everything is written."""
    adapters = [p for p in sorted(SCRIPTS.glob("*.py")) if "start_job(" in p.read_text()]
    assert len(adapters) >= 30
    for path in adapters:
        last = ast.parse(path.read_text()).body[-1]
        assert (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
                and getattr(last.value.func, "id", None) == "finish_job"), path.name


def test_every_adapter_first_hands_its_job_to_the_job_server():
    """Each adapter that starts a job calls ``run_in_server(snakemake)`` before any other
    statement but the import of it (and its docstring): a launcher imports nothing heavy
    before the job server forks the job (crowdpriv.jobserver), and in the fork the script runs
    from its first line."""
    adapters = [p for p in sorted(SCRIPTS.glob("*.py")) if "start_job(" in p.read_text()]
    assert len(adapters) >= 30
    for path in adapters:
        body = ast.parse(path.read_text()).body
        if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        first, second = body[:2]
        assert (isinstance(first, ast.ImportFrom) and first.module == "crowdpriv.jobserver"
                and [a.name for a in first.names] == ["run_in_server"]), path.name
        assert (isinstance(second, ast.Expr) and isinstance(second.value, ast.Call)
                and getattr(second.value.func, "id", None) == "run_in_server"
                and [getattr(a, "id", None) for a in second.value.args] == ["snakemake"]
                ), path.name


#: Writes that are not a result: the ported KDEm copy in a scratch folder of
#: benchmarks/priscrowd_phase1.py (never a user's or a result file).
_SCRATCH_WRITES = {("benchmarks/priscrowd_phase1.py", "write_text")}


def _unstaged_writes(path: Path) -> list[str]:
    """Calls of ``to_csv`` / ``write_text`` / ``savefig`` in ``path`` whose target is not a
    name an enclosing ``with atomic_path(...) as name`` bound (``to_csv`` with no target
    renders a string in memory)."""
    tree = ast.parse(path.read_text())
    staged: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "atomic_path"
                        and isinstance(item.optional_vars, ast.Name)):
                    staged.add(item.optional_vars.id)

    def staged_target(node) -> bool:
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Path" and node.args:
            node = node.args[0]  # Path(tmp)
        return isinstance(node, ast.Name) and node.id in staged

    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method = node.func.attr
        if method == "to_csv":
            target = node.args[0] if node.args else None
            if target is None or isinstance(target, ast.Constant) and target.value is None:
                continue  # a string in memory
            if not staged_target(target):
                found.append(f"{method} at line {node.lineno}")
        elif method == "savefig" and not (node.args and staged_target(node.args[0])):
            found.append(f"{method} at line {node.lineno}")
        elif method == "write_text" and not staged_target(node.func.value):
            found.append(f"{method} at line {node.lineno}")
    return found


def test_every_file_is_written_whole_or_not_at_all():
    """Results, benchmark outputs and a user's outputs are written to a temporary file beside
    the target and renamed onto it (crowdpriv.files: atomic_path, write_text, CsvWriter), so a
    failed or interrupted run never leaves a half-written file: no ``to_csv``, ``write_text``
    or ``savefig`` straight onto a target, in the package, the adapters or the benchmarks."""
    sources = [p for p in sorted([*SCRIPTS.rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")])
               if p.name != "files.py"]
    assert len(sources) > 60
    bad = {}
    for path in sources:
        rel = str(path.relative_to(ROOT))
        hits = [h for h in _unstaged_writes(path)
                if (rel, h.split()[0]) not in _SCRATCH_WRITES]
        if hits:
            bad[rel] = hits
    assert bad == {}
