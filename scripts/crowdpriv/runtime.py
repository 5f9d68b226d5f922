"""Small I/O helpers shared by the adapter scripts (no Snakemake import).

Adapters call :func:`log_to` first so that warnings and errors land in the rule's log, and write
tables with :func:`write_csv`, whose fixed float format makes reruns byte-identical.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["FLOAT_FORMAT", "log_to", "markdown_table", "write_csv", "write_markdown"]

#: Ten significant digits: stable across platforms, ample for every reported quantity.
FLOAT_FORMAT = "%.10g"


def log_to(log_path: str | Path) -> logging.Logger:
    """Send stderr and the ``crowdpriv`` logger to ``log_path`` (the rule's ``log:``)."""
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    handle = open(log_path, "w", buffering=1)  # noqa: SIM115 - lives as long as the job
    sys.stderr = handle
    logger = logging.getLogger("crowdpriv")
    logger.handlers[:] = [logging.StreamHandler(handle)]
    logger.setLevel(logging.INFO)
    logging.captureWarnings(True)
    return logger


def write_csv(df: pd.DataFrame, path: str | Path) -> None:
    """Write ``df`` as CSV without index, floats with :data:`FLOAT_FORMAT`."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")


def markdown_table(df: pd.DataFrame, *, digits: int = 4, thousands: bool = False) -> str:
    """The one GitHub Markdown table renderer of the pipeline (no extra dependency).

    Floats are shown to ``digits`` significant digits, integer-valued floats as integers (with
    thousands separators when ``thousands``), NaN as an empty cell; ``|`` is escaped.
    """

    def cell(value: object) -> str:
        if isinstance(value, (float, np.floating)):
            value = float(value)
            if value != value:  # NaN
                return ""
            if value.is_integer() and abs(value) < 1e15:
                return f"{int(value):,}" if thousands else str(int(value))
            return f"{value:.{digits}g}"
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def write_markdown(df: pd.DataFrame, path: str | Path, *, title: str = "", notes: str = "") -> None:
    """Write ``df`` as a Markdown table (:func:`markdown_table`) with optional title and notes."""
    lines = [f"# {title}", ""] if title else []
    lines.append(markdown_table(df, thousands=True))
    if notes:
        lines += ["", notes]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n")
