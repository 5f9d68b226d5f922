"""Shared figure helpers: one style (``scripts/matplotlibrc``), PNG+SVG output, and the checks
every figure passes before it is written (:func:`figure_problems`).

The checks are what a reader notices first: a plotted series that no legend names, a label
coloured differently in two panels, a ±1 sd band that nothing explains, an axis without a label,
tick labels that overlap, and ``4×10⁻¹``-style tick labels. :func:`save_figure` refuses to write
a figure with any of them, so every run of the pipeline (and the end-to-end tests in CI) checks
every figure it renders.

Artists that are not data series (zero lines, the paper's values when the title explains them)
carry ``gid="reference"`` and are exempt from the legend check.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

__all__ = ["use_style", "save_figure", "plain_log_ticks", "figure_problems", "FigureProblems", "REFERENCE"]

_RC = Path(__file__).resolve().parents[1] / "matplotlibrc"

#: gid of an artist that is not a data series (explained by the title or an axis label)
REFERENCE = "reference"

#: words that explain a shaded band somewhere on the figure
_BAND_WORDS = ("sd", "std", "±")


class FigureProblems(ValueError):
    """A figure failed :func:`figure_problems`; the message lists every problem."""


def use_style() -> None:
    """Apply the pipeline's matplotlibrc (colour-blind-safe palette, Agg backend)."""
    if _RC.is_file():
        matplotlib.rc_file(_RC)


def _unlabelled(label: str) -> bool:
    return label.startswith("_child") or label.startswith("_container")


def _series(ax):
    """(label, colour, is_band) of every data artist of ``ax`` (reference artists excluded)."""
    out = []
    for line in ax.lines:
        if line.get_gid() == REFERENCE or line.get_label() == "_nolegend_":
            continue  # error-bar internals carry _nolegend_; their container holds the label
        if line.get_transform() != ax.transData:  # axhline/axvline: a reference by construction
            continue
        out.append((line.get_label(), to_hex(line.get_color()), False))
    for coll in ax.collections:
        if coll.get_gid() == REFERENCE or coll.get_label() == "_nolegend_":
            continue
        band = type(coll).__name__ in ("FillBetweenPolyCollection", "PolyCollection")
        colours = coll.get_facecolor() if len(coll.get_facecolor()) else coll.get_edgecolor()
        colour = to_hex(colours[0]) if len(colours) else "none"
        out.append((coll.get_label(), colour, band))
    for cont in ax.containers:
        if cont.get_label() == "_nolegend_":  # e.g. the error bars of a bar chart
            continue
        name = type(cont).__name__
        if name == "BarContainer":
            colour = to_hex(cont.patches[0].get_facecolor()) if cont.patches else "none"
        elif name == "ErrorbarContainer":
            colour = to_hex(cont.lines[0].get_color()) if cont.lines[0] is not None else "none"
        else:
            continue
        out.append((cont.get_label(), colour, False))
    return out


def _figure_texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible()]


def _legend_labels(fig) -> set[str]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return {t.get_text() for leg in legends for t in leg.get_texts()}


def _visible_tick_labels(axis, renderer):
    lo, hi = sorted(axis.get_view_interval())
    labels = []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        loc = tick.get_loc()
        if loc is None or not (lo - 1e-12 * max(1.0, abs(lo)) <= loc <= hi + 1e-12 * max(1.0, abs(hi))):
            continue
        for text in (tick.label1, tick.label2):
            if text.get_visible() and text.get_text().strip():
                labels.append(text)
    return [(t.get_text(), t.get_window_extent(renderer)) for t in labels]


def figure_problems(fig) -> list[str]:
    """Every readability problem of ``fig`` (empty list: the figure passes).

    - a data series without a label, or whose label is in no legend of the figure;
    - one label drawn in different colours in different panels;
    - a shaded band (±1 sd) while no text of the figure says what it is;
    - an axes with data but no y label (unless it shares its y axis with one that has one);
    - overlapping tick labels on one axis, or tick labels in ``a×10^k`` notation.
    """
    problems: list[str] = []
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend_labels = _legend_labels(fig)
    colours: dict[str, set[str]] = {}
    has_band = False
    for index, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison:
            continue
        name = f"panel {index + 1} ({ax.get_title() or 'untitled'})"
        series = _series(ax)
        for label, colour, band in series:
            if band:
                has_band = True
                continue
            if _unlabelled(label):
                problems.append(f"{name}: a plotted series has no label (not in any legend)")
            elif label not in legend_labels:
                problems.append(f"{name}: series {label!r} is in no legend")
            else:
                colours.setdefault(label, set()).add(colour)
        if series:
            siblings = ax.get_shared_y_axes().get_siblings(ax)
            if not any(sib.get_ylabel().strip() for sib in siblings):
                problems.append(f"{name}: no y-axis label")
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            ticks = _visible_tick_labels(axis, renderer)
            for text, _ in ticks:
                if "\\times" in text or "×" in text:
                    problems.append(f"{name}: {axis_name} tick label {text!r} in a×10^k notation")
            for (t1, b1), (t2, b2) in combinations(ticks, 2):
                if b1.overlaps(b2) and b1.intersection(b1, b2).width * b1.intersection(b1, b2).height > 1.0:
                    problems.append(f"{name}: {axis_name} tick labels {t1!r} and {t2!r} overlap")
                    break
    for label, seen in colours.items():
        if len(seen) > 1:
            problems.append(f"series {label!r} has different colours in different panels: "
                            f"{sorted(seen)}")
    if has_band and not any(word in text for text in _figure_texts(fig) for word in _BAND_WORDS):
        problems.append("shaded bands are drawn but no text of the figure says what they are "
                        "(e.g. 'band: ±1 sd over R')")
    return problems


def _plain(value, _pos=None) -> str:
    return f"{value:g}"


def plain_log_ticks(fig) -> None:
    """Label every log axis of ``fig`` with plain numbers (``0.4``, ``20``), never ``4×10⁻¹``:
    major ticks always; minor ticks at 2 and 5 only when the axis spans under two decades."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() not in ("log", "symlog"):
                continue
            axis.set_major_formatter(FuncFormatter(_plain))
            lo, hi = sorted(abs(v) for v in axis.get_view_interval())
            narrow = axis.get_scale() == "log" and lo > 0 and hi / lo < 100
            if narrow:
                axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
                axis.set_minor_formatter(FuncFormatter(_plain))
            else:
                axis.set_minor_formatter(NullFormatter())


def save_figure(fig: plt.Figure, *paths: str | Path, check: bool = True) -> None:
    """Save ``fig`` to every path (PNG and/or SVG by extension), reproducibly, then close it.

    Log axes get plain-number tick labels (:func:`plain_log_ticks`). With ``check`` (the default) the figure must pass :func:`figure_problems` first; otherwise
    nothing is written and :class:`FigureProblems` names the output and every problem.
    """
    plain_log_ticks(fig)
    if check:
        problems = figure_problems(fig)
        if problems:
            plt.close(fig)
            raise FigureProblems(f"{paths[0] if paths else 'figure'}: "
                                 + "; ".join(dict.fromkeys(problems)))
    for path in paths:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        metadata = {"Date": None} if str(path).endswith(".svg") else {"Software": None}
        fig.savefig(path, metadata=metadata)
    plt.close(fig)
