"""Categorical crowd-labelling datasets used by LDP-sparse (Sun et al. 2018): AdultContent, Web.

Both become claims with ``object`` = task, ``source`` = worker, ``value`` = label in 0..4.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..validate import resolve_duplicates

__all__ = ["read_adultcontent", "read_web_mat"]


def _read_tab_file(path: str | Path, n_fields: int) -> list[list[str]]:
    rows = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != n_fields:
                raise ValueError(
                    f"{path}:{lineno}: malformed line, expected {n_fields} tab-separated fields, "
                    f"got {len(fields)}: {line[:80]!r}"
                )
            rows.append(fields)
    return rows


def read_adultcontent(
    labels_path: str | Path,
    gold_path: str | Path,
    categories_path: str | Path,
    *,
    duplicate_policy: str = "last",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read Ipeirotis' AdultContent2 (``labels.txt``, ``gold.txt``, ``categories.txt``).

    Labels map to 0..4 in the order of ``categories.txt`` (G, P, R, X, B). URLs are kept exactly
    (case-sensitive), which gives 11,040 tasks and 89,799 (worker, task) answers; Sun et al.'s
    89,796 is what case-insensitive de-duplication gives. A worker who labelled a task more than
    once keeps one answer: the ``"last"`` or ``"first"`` in file order (``duplicate_policy``).
    Gold is joined where the URL matches a labelled task exactly.
    """
    if duplicate_policy not in ("first", "last"):
        raise ValueError(f"duplicate_policy must be 'first' or 'last', got {duplicate_policy!r}")
    categories = [c.strip() for c in Path(categories_path).read_text().split() if c.strip()]
    code = {c: i for i, c in enumerate(categories)}
    labels = pd.DataFrame(_read_tab_file(labels_path, 3), columns=["worker", "task", "label"])
    gold = pd.DataFrame(_read_tab_file(gold_path, 2), columns=["task", "label"])
    for name, df in (("labels", labels), ("gold", gold)):
        unknown = sorted(set(df["label"]) - set(code))
        if unknown:
            raise ValueError(f"{name} file has label(s) {unknown} not in categories {categories}")
    claims = pd.DataFrame(
        {
            "task": labels["task"],
            "worker": labels["worker"],
            "value": labels["label"].map(code).astype(float),
        }
    )
    claims = resolve_duplicates(claims, ["task", "worker"], keep=duplicate_policy,
                                policy="datasets.adultcontent.duplicate_policy")
    truth = pd.DataFrame({"task": gold["task"], "truth": gold["label"].map(code).astype(float)})
    truth = resolve_duplicates(truth, ["task"], keep="last", policy="the gold file's last label")
    truth = truth.loc[truth["task"].isin(set(claims["task"]))]
    return (
        claims.sort_values(["task", "worker"], kind="stable").reset_index(drop=True),
        truth.sort_values("task", kind="stable").reset_index(drop=True),
    )


def read_web_mat(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read Zhou et al.'s ``web_processed_data.mat`` (struct ``Model``).

    ``Model.L`` is a task × worker matrix with 0 for no label and 1..5 for labels; labels and gold
    are shifted to 0..4. Tasks are named ``t<index>`` and workers ``w<index>`` (1-based, as in the
    file). Gold NaNs (12 tasks) are dropped.
    """
    from scipy.io import loadmat
    from scipy.sparse import coo_matrix, issparse

    try:
        model = loadmat(path)["Model"][0, 0]
    except (KeyError, ValueError, TypeError, IndexError, NotImplementedError) as err:
        raise ValueError(f"{path}: not a MAT file with a 'Model' struct ({err})") from err
    label_matrix = model["L"]
    coo = coo_matrix(label_matrix) if issparse(label_matrix) else coo_matrix(np.asarray(label_matrix))
    keep = coo.data != 0
    tasks, workers, labels = coo.row[keep], coo.col[keep], coo.data[keep].astype(float)
    if labels.size and (labels.min() < 1 or labels.max() > 5):
        raise ValueError(f"{path}: labels outside 1..5 (min {labels.min()}, max {labels.max()})")
    width_t, width_w = len(str(label_matrix.shape[0])), len(str(label_matrix.shape[1]))
    claims = pd.DataFrame(
        {
            "task": [f"t{t + 1:0{width_t}d}" for t in tasks],
            "worker": [f"w{w + 1:0{width_w}d}" for w in workers],
            "value": labels - 1.0,
        }
    )
    gold = np.asarray(model["true_labels"], dtype=float).ravel()
    has_gold = ~np.isnan(gold)
    truth = pd.DataFrame(
        {
            "task": [f"t{t + 1:0{width_t}d}" for t in np.flatnonzero(has_gold)],
            "truth": gold[has_gold] - 1.0,
        }
    )
    return (
        claims.sort_values(["task", "worker"], kind="stable").reset_index(drop=True),
        truth,
    )
