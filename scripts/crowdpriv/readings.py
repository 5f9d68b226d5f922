"""Readings: the papers' ambiguities as named config variants, and every claim under each.

A *reading* is one defensible way of turning a paper's silent or self-contradictory text into
settings. Each paper's config block has a ``readings`` block::

    readings:
      default: {name: as_printed, why: "..."}
      alternatives:
        mf_ridge:
          axis: MF loss                     # the ambiguity this reading varies
          why: "Sec. V cites Chaudhuri et al.'s regularised loss ..."
          set: {mechanisms: {mf_ridge: 1.0}}  # override of the paper's own block
          data: {}                          # override of ``datasets.<name>`` (surrogates)
          methods: [MF]                     # only these methods re-run (others are unchanged)

A reading varies one axis from the default. Its override may only name keys that exist (a typo
is an error naming the key), and only the result tables whose settings it touches are
recomputed; the others are the default's, unchanged (:func:`affected_tables`). The verdict
matrix (:func:`verdict_matrix`) puts every claim's status under every reading side by side and
says, per claim, whether it is robust or on which axes it depends.

Nothing here reads the clock or draws a random number: the matrix is a function of the claims
tables only, so it is byte-stable.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .runtime import FLOAT_FORMAT, markdown_table, write_csv

__all__ = [
    "DEFAULT",
    "MATRIX_COLUMNS",
    "Reading",
    "affected_tables",
    "apply_override",
    "as_written",
    "derivable",
    "derived_notes",
    "has_rerun",
    "merge_tables",
    "tables_under",
    "parse_readings",
    "reading_config",
    "rerun_keys",
    "robustness",
    "robustness_summary",
    "touched_keys",
    "verdict_matrix",
    "wide_table",
    "write_matrix",
]

#: Column name of the default reading in the matrix (the reading's own name is shown beside it).
DEFAULT = "default"
#: Columns of ``results/<paper>/readings.csv``.
MATRIX_COLUMNS = ("claim", "figure", "category", "reading", "axis", "status", "evidence")
#: Statuses that decide something (``not testable`` cells say nothing about robustness).
_DECIDED = ("holds", "fails", "inconclusive")


@dataclass(frozen=True)
class Reading:
    """One named reading of a paper: an override of its config block and why it is defensible.

    ``override`` is relative to the paper's block, ``data`` to the top-level ``datasets`` block
    (for the surrogate data a paper's claims rest on); ``methods``, when given, limits the
    re-run to those mechanisms (the others' rows are identical by construction: every method
    draws from its own seed stream).
    """

    name: str
    axis: str
    why: str
    override: Mapping = field(default_factory=dict)
    data: Mapping = field(default_factory=dict)
    methods: tuple[str, ...] | None = None

    @property
    def is_default(self) -> bool:
        return not self.override and not self.data


def parse_readings(block: Mapping, *, where: str) -> list[Reading]:
    """The default reading first, then the alternatives in config order.

    ``where`` is the config key path of ``block`` (``ldp_sparse.readings``), used in errors.
    """
    if "default" not in block:
        raise ValueError(f"{where}.default is missing (name and why of the default reading)")
    default = block["default"]
    out = [Reading(DEFAULT, "none (the default)", str(default["why"]))]
    for name, spec in (block.get("alternatives") or {}).items():
        if name == DEFAULT:
            raise ValueError(f"{where}.alternatives: {DEFAULT!r} is reserved for the default")
        if not spec.get("set") and not spec.get("data"):
            raise ValueError(f"{where}.alternatives.{name}: sets nothing (give set or data)")
        methods = spec.get("methods")
        out.append(Reading(str(name), str(spec["axis"]), str(spec["why"]),
                           dict(spec.get("set") or {}), dict(spec.get("data") or {}),
                           None if methods is None else tuple(methods)))
    return out


def apply_override(block: Mapping, override: Mapping, *, where: str) -> dict:
    """A deep copy of ``block`` with ``override`` merged in, key by key.

    Every key of the override must exist in ``block`` (a reading cannot invent a setting; a
    typo would otherwise silently leave the default in place); nested mappings merge, anything
    else replaces. ``where`` prefixes the key path in errors.
    """
    out = copy.deepcopy(dict(block))
    for key, value in override.items():
        path = f"{where}.{key}"
        if key not in out:
            raise ValueError(f"{path}: no such setting to override (known: {sorted(out)})")
        if isinstance(value, Mapping) and isinstance(out[key], Mapping):
            out[key] = apply_override(out[key], value, where=path)
        else:
            out[key] = copy.deepcopy(value)
    return out


def reading_config(config: Mapping, paper: str, reading: Reading) -> dict:
    """The whole config as this reading of ``paper`` sees it (paper block and datasets merged)."""
    out = dict(config)
    where = f"{paper}.readings.alternatives.{reading.name}"
    out[paper] = apply_override(config[paper], reading.override, where=f"{where}.set")
    if reading.data:
        out["datasets"] = apply_override(config["datasets"], reading.data, where=f"{where}.data")
    return out


def as_written(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as the pipeline would read it back from its CSV (the fixed float format), so a
    re-run table and a table read from disk compare exactly."""
    return pd.read_csv(io.StringIO(df.to_csv(index=False, float_format=FLOAT_FORMAT)))


def merge_tables(default_tables: Mapping[str, pd.DataFrame], rerun: Mapping[str, pd.DataFrame],
                 absent: Mapping[str, str], methods: Sequence[str] | None = None) -> dict:
    """The claims' tables under a reading: each re-run table replaces the default's (only the
    re-run methods' rows, when the reading names ``methods`` and the table has a ``method``
    column); tables in ``absent`` are left out; the rest are the default's."""
    out = {}
    for name, table in default_tables.items():
        if name in absent:
            continue
        new = rerun.get(name)
        if new is None:
            out[name] = table
        elif methods is not None and "method" in table.columns:
            kept = table.loc[~table["method"].isin(list(methods))]
            out[name] = pd.concat([kept, new], ignore_index=True)
        else:
            out[name] = new
    return out


def tables_under(paper, reading: Reading, default_tables: Mapping[str, pd.DataFrame],
                 rerun_folder: str | Path | None) -> tuple[dict, dict]:
    """The claims' tables of ``paper`` (its module) under ``reading``: the tables its re-run
    job wrote into ``rerun_folder`` replace the default's (:func:`merge_tables`), then the
    paper's ``derive_tables`` applies the settings whose every value the default run computed
    (:func:`derivable`). ``rerun_folder`` None: a reading without a re-run job
    (:func:`has_rerun`), nothing replaced. Returns the tables and the ones left out
    (name -> reason)."""
    absent, rerun = {}, {}
    if rerun_folder is not None:
        folder = Path(rerun_folder)
        absent_table = pd.read_csv(folder / "absent.csv")
        absent = dict(zip(absent_table["table"], absent_table["reason"]))
        rerun = {name: pd.read_csv(folder / f"{name}.csv") for name in default_tables
                 if (folder / f"{name}.csv").is_file()}
    methods = None if reading.methods is None else tuple(reading.methods)
    tables = merge_tables(default_tables, rerun, absent, methods)
    if hasattr(paper, "derive_tables"):
        tables = paper.derive_tables(tables, reading.override, methods)
    return tables, absent


def touched_keys(override: Mapping, prefix: str = "") -> list[str]:
    """Dotted paths of every leaf an override sets (``mechanisms.mf_ridge``)."""
    keys = []
    for key, value in override.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            keys += touched_keys(value, f"{path}.")
        else:
            keys.append(path)
    return keys


def affected_tables(reading: Reading, table_keys: Mapping[str, Sequence[str]]) -> list[str]:
    """The result tables whose settings the reading touches, in ``table_keys`` order.

    ``table_keys`` maps a table to the config keys it reads, relative to the paper's block
    (``mechanisms``, ``fig2``) or, prefixed ``datasets.``, to the datasets block. A table is
    affected when a touched key equals one of them or lies below it.
    """
    touched = touched_keys(reading.override) + [
        f"datasets.{k}" for k in touched_keys(reading.data)
    ]
    out = []
    for table, keys in table_keys.items():
        if any(t == k or t.startswith(f"{k}.") for t in touched for k in keys):
            out.append(table)
    return out


def derivable(reading: Reading, derived_keys: Mapping[str, Sequence[str] | None]) -> bool:
    """Whether the reading's tables follow from the default run's own columns, with no re-run.

    ``derived_keys`` maps a config key (relative to the paper's block) whose every value the
    default run already computes as extra columns (e.g. LDP-sparse's Theorem 5 bound under
    each reading of q_i) to the methods whose rows carry them (None: every row). A reading is
    derivable when it sets only such keys, no data, and (where the key names methods) re-runs
    only those methods; the paper's ``derive_tables`` then selects the columns.
    """
    touched = touched_keys(reading.override)
    if reading.data or not touched:
        return False
    for key in touched:
        if key not in derived_keys:
            return False
        methods = derived_keys[key]
        if methods is not None and (reading.methods is None
                                    or not set(reading.methods) <= set(methods)):
            return False
    return True


def has_rerun(paper, reading: Reading) -> bool:
    """Whether ``reading`` of ``paper`` (its module) has a re-run job: not when its tables
    follow from the default run's own columns (:func:`derivable` over the paper's
    ``DERIVED_KEYS``), which the readings matrix selects itself (:func:`derived_notes`). The
    rules (which jobs exist) and the matrix job (which folders to read) both ask here."""
    derived = getattr(paper, "DERIVED_KEYS", None)
    return derived is None or not derivable(reading, derived)


def derived_notes(reading: Reading, table_keys: Mapping[str, Sequence[str]]) -> list[str]:
    """What a reading without a re-run job (:func:`has_rerun`) did: one note per table it
    reaches, each taken from the default run's columns."""
    return [f"{name}: from the default run's columns (no re-run)"
            for name in affected_tables(reading, table_keys)]


def rerun_keys(reading: Reading, table_keys: Mapping[str, Sequence[str]],
               derived_keys: Mapping[str, Sequence[str] | None] | None = None,
               not_rerun: Sequence[str] = ()) -> list[str]:
    """The keys of the paper's block a reading's re-run job reads (its params, so that editing
    a key no table it re-runs reads re-runs no reading).

    Those of the tables the reading re-runs (affected, not in ``not_rerun``; none when its
    tables follow from the default's columns, :func:`derivable`), and the top-level keys its
    override sets (:func:`apply_override` merges the override into them).
    """
    if derived_keys is not None and derivable(reading, derived_keys):
        tables = []
    else:
        tables = [t for t in affected_tables(reading, table_keys) if t not in not_rerun]
    keys = [key for table in tables for key in table_keys[table]]
    keys += [key.split(".")[0] for key in touched_keys(reading.override)]
    return list(dict.fromkeys(keys))


def robustness(statuses: Mapping[str, str], axes: Mapping[str, str]) -> str:
    """One phrase per claim: robust (same decided status under every reading that tests it)
    or which axes change it.

    ``statuses`` maps reading name to status (the default under :data:`DEFAULT`); ``axes``
    maps reading name to its axis.
    """
    decided = {r: s for r, s in statuses.items() if s in _DECIDED}
    if not decided:
        return "not testable under any reading"
    default = statuses.get(DEFAULT)
    if len(set(decided.values())) == 1:
        status = next(iter(decided.values()))
        untested = len(statuses) - len(decided)
        if default not in _DECIDED:
            return f"{status} only under: {', '.join(decided)} (the others cannot test it)"
        tail = f" ({untested} reading(s) cannot test it)" if untested else ""
        return f"robust: {status} under every reading{tail}"
    if default not in _DECIDED:
        changed = sorted({axes[r] for r in decided})
    else:
        changed = sorted({axes[r] for r, s in decided.items() if s != default})
    return "depends on: " + "; ".join(changed)


def verdict_matrix(claims: Mapping[str, pd.DataFrame], readings: Sequence[Reading]
                   ) -> pd.DataFrame:
    """Long table of every claim's status under every reading (:data:`MATRIX_COLUMNS`).

    ``claims`` maps reading name to that reading's claims table (``claims.csv`` columns); the
    default's must be present and every reading's table must list the same claims.
    """
    if DEFAULT not in claims:
        raise ValueError("the default reading's claims are missing")
    base = claims[DEFAULT].set_index("claim_id")
    rows = []
    for reading in readings:
        table = claims.get(reading.name)
        if table is None:
            raise ValueError(f"no claims table for reading {reading.name!r}")
        table = table.set_index("claim_id")
        if list(table.index) != list(base.index):
            missing = sorted(set(base.index) ^ set(table.index))
            raise ValueError(f"reading {reading.name!r} lists other claims than the default: "
                             f"{missing}")
        for claim_id, row in table.iterrows():
            rows.append({
                "claim": claim_id, "figure": base.at[claim_id, "figure"],
                "category": base.at[claim_id, "category"], "reading": reading.name,
                "axis": reading.axis, "status": row["status"], "evidence": row["evidence"],
            })
    return pd.DataFrame(rows, columns=list(MATRIX_COLUMNS))


def _short(status: str) -> str:
    return {"not testable": "n/t", "inconclusive": "inconcl."}.get(status, status)


def wide_table(matrix: pd.DataFrame) -> pd.DataFrame:
    """Claims as rows, readings as columns (one status word per cell), robustness last.

    Built from a ``readings.csv`` alone: reading order and axes are those of the table.
    """
    names = list(dict.fromkeys(matrix["reading"]))
    axes = dict(zip(matrix["reading"], matrix["axis"]))
    order = list(dict.fromkeys(matrix["claim"]))
    wide = matrix.pivot(index="claim", columns="reading", values="status")
    wide = wide.reindex(index=order, columns=names)
    figure = matrix.drop_duplicates("claim").set_index("claim")["figure"]
    table = pd.DataFrame({"claim": order, "figure": figure.reindex(order).to_numpy()})
    for name in names:
        table[name] = [_short(s) for s in wide[name]]
    table["robustness"] = [robustness(dict(wide.loc[c]), axes) for c in order]
    return table


def matrix_markdown(matrix: pd.DataFrame, readings: Sequence[Reading], *, title: str,
                    notes: str = "") -> str:
    """:func:`wide_table` as Markdown, with every reading's axis and justification below."""
    legend = "\n".join(f"- **{r.name}** ({r.axis}): {r.why}" for r in readings)
    lines = [f"# {title}", "", markdown_table(wide_table(matrix)), "",
             "Cells: holds, fails, inconcl. (inconclusive), n/t (not testable). Readings:", "",
             legend]
    if notes:
        lines += ["", notes]
    return "\n".join(lines) + "\n"


def write_matrix(matrix: pd.DataFrame, readings: Sequence[Reading], csv_path: str | Path,
                 md_path: str | Path, *, title: str, notes: str = "") -> None:
    """``readings.csv`` (long) and ``readings.md`` (claims x readings)."""
    write_csv(matrix, csv_path)
    from .files import write_text

    write_text(md_path, matrix_markdown(matrix, readings, title=title, notes=notes))


def robustness_summary(matrix: pd.DataFrame) -> dict[str, list]:
    """Claims grouped for the write-up: ``holds everywhere``, ``fails everywhere``,
    ``depends`` (with the phrase), ``other`` (inconclusive/untestable everywhere); each item
    is ``(claim, phrase)``. Built from a ``readings.csv`` alone."""
    axes = dict(zip(matrix["reading"], matrix["axis"]))
    groups: dict[str, list] = {"holds everywhere": [], "fails everywhere": [], "depends": [],
                               "other": []}
    for claim, sub in matrix.groupby("claim", sort=False):
        statuses = dict(zip(sub["reading"], sub["status"]))
        phrase = robustness(statuses, axes)
        if phrase.startswith("robust: holds") or phrase.startswith("holds only"):
            groups["holds everywhere"].append((claim, phrase))
        elif phrase.startswith("robust: fails") or phrase.startswith("fails only"):
            groups["fails everywhere"].append((claim, phrase))
        elif phrase.startswith("depends"):
            groups["depends"].append((claim, phrase))
        else:
            groups["other"].append((claim, phrase))
    return groups
