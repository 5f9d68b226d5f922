"""Small I/O helpers shared by the adapter scripts (no Snakemake import).

Adapters call :func:`log_to` first so that warnings and errors land in the rule's log, and write
tables with :func:`write_csv`, whose fixed float format makes reruns byte-identical.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pandas as pd

__all__ = ["FLOAT_FORMAT", "log_to", "write_csv", "write_markdown"]

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


def write_markdown(df: pd.DataFrame, path: str | Path, *, title: str = "", notes: str = "") -> None:
    """Write ``df`` as a GitHub Markdown table (no extra dependency), with optional title/notes."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            if value != value:  # NaN
                return ""
            return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:.4g}"
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = []
    if title:
        lines += [f"# {title}", ""]
    lines.append("| " + " | ".join(map(str, df.columns)) + " |")
    lines.append("|" + "---|" * len(df.columns))
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    if notes:
        lines += ["", notes]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n")
