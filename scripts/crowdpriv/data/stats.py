"""Dataset statistics (PrisCrowd Table 1 of the PDF extract; LDP-sparse Table II; Zheng et al.
2017 Table 5 for the truth-inference benchmark, when its numbers are filled in config).

Sparsity follows LDP-sparse Sec. VI-B: for each source (worker), the fraction of the dataset's
objects (tasks) it did not answer; the table reports its minimum, maximum and average.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = ["dataset_statistics", "value_summary", "compare_with_paper", "PAPER_DATASET",
           "EXPLANATIONS"]

#: Which row of ``paper_values/dataset_stats.csv`` each of our datasets is compared with.
PAPER_DATASET = {
    "population": ("PrisCrowd", "population"),
    "stock_surrogate": ("PrisCrowd", "stock"),
    "indoor_surrogate": ("PrisCrowd", "indoor"),
    "web": ("LDP-sparse", "web"),
    "adultcontent": ("LDP-sparse", "adultcontent"),
}

#: Why a dataset's numbers can differ from the paper's (appended to the computed differences).
EXPLANATIONS = {
    "population": (
        "The full raw popTuples.txt is not available; claims come from bykau's derived "
        "pop_data.csv (last claim per source and city-year by time span), filtered as the paper "
        "says. The original code's year parsing (time_span[5:9]) and raw revision order cannot "
        "be replayed without the raw file (see shared/datasets/population/SOURCE.md)."
    ),
    "stock_surrogate": (
        "SURROGATE: real gold values (random_truth, the configured days) observed by simulated "
        "sources; the real 55-source claims are not available. Objects = non-empty gold "
        "(symbol, attribute, day) values of the configured days; claims depend on simulated "
        "coverage, so the paper's claim count (not printed) is not comparable."
    ),
    "indoor_surrogate": (
        "SURROGATE: simulated users and segments with the paper's counts (no public copy of "
        "the indoor floorplan data exists); claims and sparsity are simulated."
    ),
    "web": (
        "Different version: this is Zhou et al.'s full web-search set (2,665 tasks x 177 "
        "workers); Sun et al. used a 34-worker, 177-task, 770-answer version that we cannot find. "
        "Their 177 tasks coincide with this set's 177 workers."
    ),
    "adultcontent": (
        "Answers are de-duplicated per exact (worker, URL) pair (89,799); Sun et al.'s 89,796 is "
        "what case-insensitive de-duplication of pairs gives (see claims_casefold), while their "
        "11,040 tasks count URLs case-sensitively. Only 333 gold URLs occur among labelled tasks."
    ),
}


def dataset_statistics(claims: pd.DataFrame, truth: pd.DataFrame) -> dict:
    """Return counts and sparsity of one dataset's claims and truth tables.

    Returns
    -------
    dict with ``workers``, ``tasks``, ``claims``, ``tasks_with_truth``, ``sparsity_min``,
    ``sparsity_max``, ``sparsity_avg`` (per-worker fraction of tasks not answered).
    """
    n_tasks = claims["task"].nunique()
    answered = claims.groupby("worker")["task"].nunique().to_numpy()
    sparsity = 1.0 - answered / n_tasks if n_tasks else np.array([np.nan])
    return {
        "workers": int(claims["worker"].nunique()),
        "tasks": int(n_tasks),
        "claims": int(len(claims)),
        "tasks_with_truth": int(truth["task"].isin(set(claims["task"])).sum()),
        "sparsity_min": float(sparsity.min()),
        "sparsity_max": float(sparsity.max()),
        "sparsity_avg": float(sparsity.mean()),
    }


def value_summary(claims: pd.DataFrame, spec=None) -> dict:
    """The range of a dataset's answers and, for a declared answer type, its kind and labels.

    Parameters
    ----------
    claims
        Tidy claims (``value`` column).
    spec
        The dataset's :class:`crowdpriv.data.AnswerType`, or None (undeclared).

    Returns
    -------
    dict with ``value_min``, ``value_max``; with ``spec`` also ``answer_type``, ``domain_size``
    (categorical) and ``label_counts`` (``"0: 19834; 1: 5111"``, every label 0..K-1, one
    bincount pass).
    """
    values = claims["value"].to_numpy(dtype=float)
    out = {"value_min": float(values.min()) if values.size else np.nan,
           "value_max": float(values.max()) if values.size else np.nan}
    if spec is None:
        return out
    out["answer_type"] = spec.kind
    if spec.kind == "categorical":
        counts = np.bincount(values.astype(np.int64), minlength=spec.domain_size)
        out["domain_size"] = int(spec.domain_size)
        out["label_counts"] = "; ".join(f"{label}: {count}" for label, count in enumerate(counts))
    return out


def _implied_avg_sparsity(row: dict) -> float | None:
    """Average sparsity implied by the paper's counts (each worker's answers are distinct)."""
    values = [row.get(f"paper_{c}") for c in ("claims", "workers", "tasks", "sparsity_avg")]
    if any(v is None or pd.isna(v) for v in values):
        return None
    claims, workers, tasks, _ = values
    return 1.0 - claims / (workers * tasks)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:.6g}"


def compare_with_paper(stats: pd.DataFrame, paper: pd.DataFrame,
                       published: Mapping[str, Mapping] | None = None) -> pd.DataFrame:
    """Put each dataset's statistics beside the paper's and note every mismatch.

    ``stats`` has one row per dataset (column ``dataset`` plus :func:`dataset_statistics` keys);
    ``paper`` is ``paper_values/dataset_stats.csv`` (its ``sources``/``objects`` columns are the
    papers' words for workers/tasks). ``published`` gives, for datasets whose paper has no row
    there, the config block ``datasets.<name>.published`` (``paper``, ``tasks``, ``claims``,
    ``workers``, ``note``; a None count is one nobody verified). Adds ``paper``, ``paper_*``
    columns, ``rel_diff_*`` for the counts, and ``note``: the computed differences followed by
    the dataset's explanation (empty where everything matches), or a published block's note
    where it has no count to compare.
    """
    keyed = paper.rename(columns={"sources": "workers", "objects": "tasks"}).set_index(
        ["paper", "dataset"])
    published = dict(published or {})
    mapping = dict(PAPER_DATASET)
    if published:
        extra = pd.DataFrame([
            {"paper": block["paper"], "dataset": name,
             **{col: np.nan if block.get(col) is None else float(block[col])
                for col in ("workers", "tasks", "claims")}}
            for name, block in published.items()]).set_index(["paper", "dataset"])
        keyed = pd.concat([keyed, extra])
        mapping.update({name: (block["paper"], name) for name, block in published.items()})
    columns = ["workers", "tasks", "claims", "sparsity_min", "sparsity_max", "sparsity_avg"]
    rows = []
    for record in stats.to_dict("records"):
        name = record["dataset"]
        key = mapping.get(name)
        row = dict(record)
        row["paper"] = key[0] if key else ""
        diffs = []
        for col in columns:
            value = keyed.at[key, col] if key and key in keyed.index else np.nan
            row[f"paper_{col}"] = value
            if col in ("workers", "tasks", "claims"):
                rel = (record[col] - value) / value if pd.notna(value) else np.nan
                row[f"rel_diff_{col}"] = rel
            if pd.notna(value) and not np.isclose(record[col], value, rtol=0, atol=5e-7):
                diffs.append(f"{col} {_fmt(record[col])} vs paper {_fmt(value)}")
        implied = _implied_avg_sparsity(row)
        if implied is not None and not np.isclose(implied, row["paper_sparsity_avg"], atol=5e-4):
            diffs.append(
                f"the paper's own counts imply average sparsity 1 - claims/(workers*tasks) = "
                f"{implied:.6f}, not its printed {row['paper_sparsity_avg']:.6f}"
            )
        explanation = EXPLANATIONS.get(name) or published.get(name, {}).get("note", "")
        unchecked = name in published and all(
            pd.isna(row[f"paper_{c}"]) for c in ("workers", "tasks", "claims"))
        row["note"] = (
            "; ".join(diffs) + ". " + explanation if diffs else explanation if unchecked else ""
        ).strip()
        rows.append(row)
    return pd.DataFrame(rows)
