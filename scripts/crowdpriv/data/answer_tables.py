"""Answer/truth tables of Zheng et al.'s truth-inference benchmark (product, dog, emotion).

Zheng, Li, Li, Shan, Cheng, "Truth Inference in Crowdsourcing: Is the Problem Solved?", PVLDB
10(5):541-552, 2017, publish each dataset as ``answer.csv`` (``question,worker,answer``) and
``truth.csv`` (``question,truth``). :func:`read_answer_table` reads such a pair strictly into the
pipeline's long format (``task``, ``worker``, ``value`` and ``task``, ``truth``); nothing is
dropped or remapped. What kind of answers a dataset holds (categorical with K labels, or
continuous) is declared in its config block and returned by :func:`answer_type_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..validate import (
    DataError,
    _line,
    check_ids,
    check_labels,
    check_range,
    check_unique,
    parse_finite,
    read_csv_strict,
)

__all__ = ["ANSWER_KINDS", "AnswerType", "answer_type_of", "read_answer_table"]

#: The kinds of answers a dataset may declare (config ``datasets.<name>.answer_type``).
ANSWER_KINDS = ("categorical", "continuous")
#: Exact headers of the benchmark's files.
ANSWER_COLUMNS = ["question", "worker", "answer"]
TRUTH_COLUMNS = ["question", "truth"]


@dataclass(frozen=True)
class AnswerType:
    """What a dataset's answers are: ``kind`` (:data:`ANSWER_KINDS`), ``domain_size`` K of a
    categorical dataset (labels ``0..K-1``), and ``value_range`` ``(low, high)`` a continuous
    dataset's answers and truths lie in (``None``: any finite number). ``key`` is the config
    block it was declared in (``datasets.product``), named by every error."""

    kind: str
    domain_size: int | None = None
    value_range: tuple[float, float] | None = None
    key: str = "datasets.<name>"

    def __post_init__(self):
        if self.kind not in ANSWER_KINDS:
            raise ValueError(f"{self.key}.answer_type must be one of {ANSWER_KINDS}, got "
                             f"{self.kind!r}")
        if self.kind == "categorical":
            size = self.domain_size
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 2:
                raise ValueError(f"{self.key}.domain_size must be an integer >= 2 for a "
                                 f"categorical dataset, got {size!r}")
            if self.value_range is not None:
                raise ValueError(f"{self.key}.value_range applies to continuous answers only; "
                                 f"a categorical dataset's labels are 0..domain_size-1")
        else:
            if self.domain_size is not None:
                raise ValueError(f"{self.key}.domain_size applies to categorical answers only, "
                                 f"got {self.domain_size!r} for a continuous dataset")
            if self.value_range is not None:
                low, high = (float(v) for v in self.value_range)
                if not (np.isfinite(low) and np.isfinite(high) and low < high):
                    raise ValueError(f"{self.key}.value_range must be finite [low, high] with "
                                     f"low < high, got {list(self.value_range)!r}")
                object.__setattr__(self, "value_range", (low, high))
        if self.domain_size is not None:
            object.__setattr__(self, "domain_size", int(self.domain_size))

    def to_dict(self) -> dict:
        """Plain dict (a rule parameter): ``AnswerType(**d)`` rebuilds it."""
        out = asdict(self)
        out["value_range"] = None if self.value_range is None else list(self.value_range)
        return out


def answer_type_of(config: Mapping, dataset: str) -> AnswerType:
    """The declared answer type of ``dataset`` (config ``datasets.<dataset>``).

    Parameters
    ----------
    config
        The pipeline's config (a mapping with a ``datasets`` block).
    dataset
        A dataset name, e.g. ``"product"``.

    Returns
    -------
    AnswerType
        ``kind`` ``"categorical"`` (with ``domain_size`` K) or ``"continuous"`` (with an
        optional ``value_range``).

    Raises
    ------
    ValueError
        ``dataset`` has no block, or its block declares no ``answer_type`` (the datasets of the
        three papers leave it to the paper's config, e.g. ``ldp_sparse.real_domain_size``).
    """
    blocks = config.get("datasets") or {}
    if dataset not in blocks:
        raise ValueError(f"dataset {dataset!r} has no block under datasets in config "
                         f"(known: {sorted(blocks)})")
    block = blocks[dataset] or {}
    if "answer_type" not in block:
        declared = sorted(name for name, b in blocks.items() if "answer_type" in (b or {}))
        raise ValueError(f"datasets.{dataset} declares no answer_type (datasets that do: "
                         f"{declared})")
    value_range = block.get("value_range")
    return AnswerType(kind=block["answer_type"], domain_size=block.get("domain_size"),
                      value_range=None if value_range is None else tuple(value_range),
                      key=f"datasets.{dataset}")


def _read_exact(path: str | Path, columns: list[str], what: str) -> pd.DataFrame:
    """A strict CSV read (:func:`crowdpriv.validate.read_csv_strict`) whose header must be
    exactly ``columns`` (no extra column is silently ignored)."""
    df = read_csv_strict(path, columns, what)
    if list(df.columns) != columns:
        raise DataError(path, f"the {what} header is {list(df.columns)}, expected exactly "
                        f"{columns}", line=1, value=",".join(map(str, df.columns)),
                        remedy=f"Give the header {','.join(columns)} and nothing else")
    return df


def _check_values(values: np.ndarray, path: str | Path, column: str, spec: AnswerType) -> None:
    if spec.kind == "categorical":
        check_labels(values, path, column, spec.domain_size, f"{spec.key}.domain_size")
    elif spec.value_range is not None:
        check_range(values, path, column, *spec.value_range, key=f"{spec.key}.value_range")


def read_answer_table(answers_path: str | Path, truth_path: str | Path, spec: AnswerType
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read one benchmark dataset (Zheng et al. 2017's ``answer.csv`` and ``truth.csv``).

    Parameters
    ----------
    answers_path
        CSV with header exactly ``question,worker,answer``: one answer per (task, worker).
    truth_path
        CSV with header exactly ``question,truth``: one truth per task, for every answered task.
    spec
        The dataset's :class:`AnswerType` (:func:`answer_type_of`): categorical answers and
        truths must be integer labels ``0..K-1``, continuous ones lie in ``value_range`` if
        given.

    Returns
    -------
    claims, truth
        ``claims`` (``task``, ``worker``, ``value``) sorted by task and worker; ``truth``
        (``task``, ``truth``) sorted by task. Ids are kept as strings; a ``-0`` answer becomes
        ``0``.

    Raises
    ------
    crowdpriv.validate.DataError
        Naming file, line (the header is line 1), column and value: a missing, empty or
        malformed file, another header, a blank or space-padded id, a non-finite answer or
        truth, a label outside ``0..K-1`` or a non-integer one, a value outside
        ``value_range``, a duplicate (task, worker) answer, a duplicate truth row, a truth for a
        task nobody answered, or an answered task without truth.
    """
    answers = _read_exact(answers_path, ANSWER_COLUMNS, "answers")
    check_ids(answers, answers_path, ["question", "worker"])
    values = parse_finite(answers, answers_path, "answer")
    _check_values(values, answers_path, "answer", spec)
    check_unique(answers, answers_path, ["question", "worker"],
                 remedy="Keep one answer per (question, worker): decide which and delete the "
                 "others")

    truth = _read_exact(truth_path, TRUTH_COLUMNS, "truth")
    check_ids(truth, truth_path, ["question"])
    truths = parse_finite(truth, truth_path, "truth")
    _check_values(truths, truth_path, "truth", spec)
    check_unique(truth, truth_path, ["question"], remedy="Keep one truth row per question")

    # pandas' isin hashes; np.isin on object arrays compares pairwise (seconds on product)
    answered, known = answers["question"], truth["question"]
    stray = np.flatnonzero(~known.isin(answered).to_numpy())
    if stray.size:
        raise DataError(truth_path, f"truth for a question nobody answered in {answers_path} "
                        f"({stray.size} row(s) in all)", line=_line(stray[0]),
                        column="question", value=known.iloc[stray[0]],
                        remedy="Delete the row, or add the question's answers")
    lacking = np.flatnonzero(~answered.isin(known).to_numpy())
    if lacking.size:
        tasks = answered.iloc[lacking].nunique()
        raise DataError(answers_path, f"question has answers but no truth row in {truth_path} "
                        f"({tasks} question(s) in all)", line=_line(lacking[0]),
                        column="question", value=answered.iloc[lacking[0]],
                        remedy=f"Add a truth row for it to {truth_path}, or delete its answers")

    claims = pd.DataFrame({"task": answers["question"], "worker": answers["worker"],
                           "value": values + 0.0})  # + 0.0 turns -0.0 into 0.0
    gold = pd.DataFrame({"task": truth["question"], "truth": truths + 0.0})
    return (claims.sort_values(["task", "worker"], kind="stable", ignore_index=True),
            gold.sort_values("task", kind="stable", ignore_index=True))
