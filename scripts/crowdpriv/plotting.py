"""Shared figure helpers: one style (``scripts/matplotlibrc``) and PNG+SVG output."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["use_style", "save_figure"]

_RC = Path(__file__).resolve().parents[1] / "matplotlibrc"


def use_style() -> None:
    """Apply the pipeline's matplotlibrc (colour-blind-safe palette, Agg backend)."""
    if _RC.is_file():
        matplotlib.rc_file(_RC)


def save_figure(fig: plt.Figure, *paths: str | Path) -> None:
    """Save ``fig`` to every path (PNG and/or SVG by extension), reproducibly, then close it."""
    for path in paths:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        metadata = {"Date": None} if str(path).endswith(".svg") else {"Software": None}
        fig.savefig(path, metadata=metadata)
    plt.close(fig)
