"""The one aggregator of per-repetition results: mean, spread and R per point.

Every figure and table of the three papers is a summary of a long per-repetition table. They
all go through :func:`summarise`, so "mean", "std" and "R" mean the same thing everywhere:

``mean``
    the mean over the repetitions that have a value;
``std``
    the sample standard deviation (ddof = 1) over those repetitions. With R = 1 no spread can be
    measured: ``std`` is NaN (an empty CSV cell; figures draw no band), never a made-up 0;
``R``
    the number of repetitions with a value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["summarise", "in_order"]


def summarise(
    df: pd.DataFrame,
    by: Sequence[str],
    value: str = "value",
    *,
    means: Sequence[str] = (),
    sort: bool = False,
) -> pd.DataFrame:
    """Mean, std (ddof = 1, NaN when R = 1) and R of ``value`` per group of ``by``.

    Parameters
    ----------
    df : DataFrame
        Long per-repetition table.
    by : sequence of str
        Columns that identify a point (everything but the repetition).
    value : str
        The column summarised.
    means : sequence of str
        Further columns of which only the mean is carried, as ``<column>_mean``.
    sort : bool
        Sort the groups (default: keep their order of first appearance, i.e. the config's).
    """
    by = list(by)
    missing = [c for c in [*by, value, *means] if c not in df.columns]
    if missing:
        raise ValueError(f"cannot summarise: the table lacks column(s) {missing}")
    g = df.groupby(by, sort=sort, dropna=False)
    out = g[value].agg(mean="mean", std="std", R="count").reset_index()
    for col in means:
        out[f"{col}_mean"] = g[col].mean().to_numpy()
    return out


def in_order(table: pd.DataFrame, column: str, order) -> pd.DataFrame:
    """``table`` with its rows stably sorted by the position of ``column``'s value in ``order``
    (the config's order, e.g. the paper's dataset order); values not in ``order`` come last, in
    their current order. Figures and tables follow the config, not the alphabet."""
    if column not in table or table.empty:
        return table
    rank = {v: i for i, v in enumerate(dict.fromkeys(order))}
    key = table[column].map(lambda v: rank.get(v, len(rank)))
    return table.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)
