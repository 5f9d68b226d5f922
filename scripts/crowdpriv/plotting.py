"""Shared figure helpers: one style (``scripts/matplotlibrc``), PNG+SVG output, and the checks
every figure passes before it is written (:func:`figure_problems`).

The checks are what a reader notices first: a plotted series that no legend names, a label
coloured differently in two panels, a ±1 sd band that nothing explains, an axis without a label,
tick labels that overlap, ``4×10⁻¹``-style tick labels, a legend drawn over data, and two series
that coincide on screen drawn in the same line style and marker (one hides the other).
:func:`save_figure` refuses to write a figure with any of them, so every run of the pipeline
(and the end-to-end tests in CI) checks every figure it renders.

Artists that are not data series (zero lines, the paper's values when the title explains them)
carry ``gid="reference"`` and are exempt from the legend check.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from . import mechanisms  # noqa: E402

__all__ = ["use_style", "save_figure", "plain_log_ticks", "figure_problems", "FigureProblems",
           "REFERENCE", "METHOD_COLOURS", "figure_legend", "thin_numeric_tick_labels"]

_RC = Path(__file__).resolve().parents[1] / "matplotlibrc"

#: gid of an artist that is not a data series (explained by the title or an axis label)
REFERENCE = "reference"

#: words that explain a shaded band somewhere on the figure
_BAND_WORDS = ("sd", "std", "±")
#: two series closer than this (pixels, at every point) coincide on screen
_COINCIDE_PX = 1.5
#: Okabe-Ito colours of the methods, the same in every figure of every paper (LDP-sparse's
#: by the labels its registry members own)
METHOD_COLOURS = {
    mechanisms.LP.label: "#0072B2", mechanisms.RR.label: "#D55E00",
    mechanisms.MF.label: "#009E73", mechanisms.TwoLayer.label: "#CC79A7",
    "PrisCrowd": "#D55E00", "Uniform": "#009E73", "Basic(Strong)": "#CC79A7",
    "Basic(Normal)": "#0072B2", "Basic(Weak)": "#999999",
}


def figure_legend(fig, axes, *, last=None, **kw):
    """One legend for the whole figure from the series of ``axes``, each label once in the
    order drawn; labels for which ``last(label)`` holds (e.g. the paper's values) go after the
    others. ``kw`` goes to :meth:`matplotlib.figure.Figure.legend` (font size 8 unless given)."""
    handles = {}
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if last is not None:
        handles = dict(sorted(handles.items(), key=lambda item: bool(last(item[0]))))
    return fig.legend(handles.values(), handles.keys(), **{"fontsize": 8, **kw})


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


#: tick labels closer than this (pixels at the figure dpi, about a space) read as one ("0.10.5")
_TICK_GAP_PX = 4.0


def _too_close(b1, b2) -> bool:
    """Two tick-label boxes that overlap, or sit side by side less than _TICK_GAP_PX apart."""
    gap_x = max(b1.x0, b2.x0) - min(b1.x1, b2.x1)
    gap_y = max(b1.y0, b2.y0) - min(b1.y1, b2.y1)
    return gap_x < _TICK_GAP_PX and gap_y < 0 or gap_x < 0 and gap_y < _TICK_GAP_PX


def _display_points(artist, ax, step_px: float = 2.0) -> np.ndarray:
    """Display coordinates of a line (its segments sampled every ``step_px`` pixels) or of the
    markers of a scatter, for the legend-overlap check; empty for anything else."""
    if isinstance(artist, matplotlib.lines.Line2D):
        if not artist.get_visible() or artist.get_transform() != ax.transData:
            return np.zeros((0, 2))
        xy = np.column_stack([np.asarray(artist.get_xdata(), dtype=float),
                              np.asarray(artist.get_ydata(), dtype=float)])
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            return np.zeros((0, 2))
        pts = ax.transData.transform(xy)
        if artist.get_linestyle() in ("None", "", " ") or len(pts) < 2:
            return pts if artist.get_marker() not in ("None", None, "", " ") else np.zeros((0, 2))
        steps = np.maximum(1, (np.hypot(*np.diff(pts, axis=0).T) // step_px).astype(int))
        segment = np.repeat(np.arange(len(steps)), steps)
        within = np.arange(len(segment)) - np.repeat(np.cumsum(steps) - steps, steps) + 1
        fraction = (within / steps[segment])[:, None]
        return np.vstack([pts[:1], pts[segment] + (pts[segment + 1] - pts[segment]) * fraction])
    if isinstance(artist, matplotlib.collections.PathCollection) and artist.get_visible():
        offsets = np.asarray(artist.get_offsets(), dtype=float)
        offsets = offsets[np.isfinite(offsets).all(axis=1)] if len(offsets) else offsets
        return artist.get_offset_transform().transform(offsets) if len(offsets) else np.zeros((0, 2))
    return np.zeros((0, 2))


def _legend_overlaps(fig, renderer) -> list[str]:
    """Legends whose box covers a plotted point or line of any axes."""
    problems = []
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for index, ax in enumerate(fig.axes):
            if not ax.get_visible() or not ax.axison:
                continue
            inside_axes = ax.get_window_extent(renderer)
            if not box.overlaps(inside_axes):
                continue
            clip = box.intersection(box, inside_axes)
            for artist in list(ax.lines) + list(ax.collections):
                pts = _display_points(artist, ax)
                hit = ((pts[:, 0] > clip.x0) & (pts[:, 0] < clip.x1) & (pts[:, 1] > clip.y0)
                       & (pts[:, 1] < clip.y1)) if len(pts) else np.zeros(0, dtype=bool)
                if hit.any():
                    what = artist.get_label() if not artist.get_label().startswith("_") else \
                        "a plotted line"
                    problems.append(f"panel {index + 1} ({ax.get_title() or 'untitled'}): the "
                                    f"legend covers {what!r}")
                    break
    return problems


def _look(line) -> tuple:
    """What tells two coinciding lines apart besides colour: line style, marker, hollow."""
    marker = line.get_marker()
    if marker in ("None", None, "", " "):
        return line.get_linestyle(), None, None
    face = line.get_markerfacecolor()
    return line.get_linestyle(), marker, isinstance(face, str) and face.lower() == "none"


def _hidden_series(ax, name: str) -> list[str]:
    """Pairs of labelled lines of ``ax`` that coincide on screen at every point while drawn
    with the same line style and marker, so the one drawn last hides the other."""
    lines = [ln for ln in ax.lines if ln.get_visible() and ln.get_transform() == ax.transData
             and not ln.get_label().startswith("_") and len(ln.get_xdata())]
    problems = []
    for a, b in combinations(lines, 2):
        if a.get_label() == b.get_label() or _look(a) != _look(b):
            continue
        xa, ya = np.asarray(a.get_xdata(), float), np.asarray(a.get_ydata(), float)
        xb, yb = np.asarray(b.get_xdata(), float), np.asarray(b.get_ydata(), float)
        if xa.shape != xb.shape or not np.array_equal(xa, xb):
            continue
        pa = ax.transData.transform(np.column_stack([xa, ya]))
        pb = ax.transData.transform(np.column_stack([xb, yb]))
        ok = np.isfinite(pa).all(axis=1) & np.isfinite(pb).all(axis=1)
        if ok.any() and np.hypot(*(pa[ok] - pb[ok]).T).max() < _COINCIDE_PX:
            problems.append(f"{name}: {b.get_label()!r} hides {a.get_label()!r} (they coincide "
                            "on screen in the same line style and marker)")
    return problems


def _layout_draw(fig):
    """Draw ``fig`` for its layout only (text extents, tick labels, legend positions, the
    layout engine), with the renderer's ``draw_*`` calls disabled: every artist ends in the
    state a full ``fig.canvas.draw()`` leaves (rasterising changes no artist), without the
    cost of rasterising its text. Returns the canvas' renderer, for window extents."""
    renderer = fig.canvas.get_renderer()
    with renderer._draw_disabled():
        fig.draw(renderer)
    return renderer


def figure_problems(fig, renderer=None) -> list[str]:
    """Every readability problem of ``fig`` (empty list: the figure passes).

    ``renderer``: the renderer of a layout draw of ``fig`` in its final state (as
    :func:`save_figure` passes it, to lay the figure out once); by default ``fig`` is drawn
    here.

    - a data series without a label, or whose label is in no legend of the figure;
    - one label drawn in different colours in different panels;
    - a shaded band (±1 sd) while no text of the figure says what it is;
    - an axes with data but no y label (unless it shares its y axis with one that has one);
    - overlapping tick labels on one axis, or tick labels in ``a×10^k`` notation;
    - a legend whose box covers a plotted line or marker;
    - two labelled lines that coincide on screen drawn alike (:func:`_hidden_series`).
    """
    problems: list[str] = []
    if renderer is None:
        renderer = _layout_draw(fig)
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
        problems += _hidden_series(ax, name)
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
                if _too_close(b1, b2):
                    problems.append(f"{name}: {axis_name} tick labels {t1!r} and {t2!r} overlap "
                                    "or touch")
                    break
    problems += _legend_overlaps(fig, renderer)
    for label, seen in colours.items():
        if len(seen) > 1:
            problems.append(f"series {label!r} has different colours in different panels: "
                            f"{sorted(seen)}")
    if has_band and not any(word in text for text in _figure_texts(fig) for word in _BAND_WORDS):
        problems.append("shaded bands are drawn but no text of the figure says what they are "
                        "(e.g. 'band: ±1 sd over R')")
    return problems


def _thin(axis, renderer) -> bool:
    """Blank the major tick labels of ``axis`` that touch the last label kept; the figure must
    have been drawn. Ticks outside the view are dropped and the view is kept. Returns whether
    a label was blanked."""
    view = axis.get_view_interval()
    lo, hi = sorted(view)
    locs, labels, kept, changed = [], [], None, False
    for tick in axis.get_major_ticks():
        loc = tick.get_loc()
        if loc is None or not lo <= loc <= hi:
            continue
        text = tick.label1.get_text()
        if text.strip():
            box = tick.label1.get_window_extent(renderer)
            if kept is not None and _too_close(kept, box):
                text, changed = "", True
            else:
                kept = box
        locs.append(loc)
        labels.append(text)
    if changed:
        axis.set_ticks(locs, labels)
        axis.set_view_interval(*view, ignore=True)
    return changed


def _is_number(text: str) -> bool:
    try:
        float(text.replace("\u2212", "-").replace(",", ""))
    except ValueError:
        return False
    return True


def thin_numeric_tick_labels(fig, renderer=None) -> bool:
    """On every axis of ``fig`` whose tick labels are all numbers, keep every tick but blank
    the labels that would touch the last label kept (e.g. ε = 0.1 and 0.5 on a linear axis up
    to 5), so each label shown is readable; names of categories are left alone (the figure
    check reports those). Call when the layout is final (:func:`save_figure` does), with the
    renderer of a layout draw of that state or none (``fig`` is then drawn here). Returns
    whether a label was blanked (the layout is then stale)."""
    if renderer is None:
        renderer = _layout_draw(fig)
    changed = False
    for ax in fig.axes:
        if not (ax.get_visible() and ax.axison):
            continue
        for axis in (ax.xaxis, ax.yaxis):
            texts = [t.get_text() for t in axis.get_ticklabels() if t.get_text().strip()]
            if texts and all(_is_number(t) for t in texts):
                changed |= _thin(axis, renderer)
    return changed


def _plain(value, _pos=None) -> str:
    return f"{value:g}"


def plain_log_ticks(fig) -> None:
    """Label every log axis of ``fig`` with plain numbers (``0.4``, ``20``), never ``4×10⁻¹``:
    major ticks always; minor ticks at 2 and 5 only when the axis spans under three decades."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() not in ("log", "symlog"):
                continue
            axis.set_major_formatter(FuncFormatter(_plain))
            lo, hi = sorted(abs(v) for v in axis.get_view_interval())
            narrow = axis.get_scale() == "log" and lo > 0 and hi / lo < 1000
            if narrow:
                axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
                axis.set_minor_formatter(FuncFormatter(_plain))
            else:
                axis.set_minor_formatter(NullFormatter())


def save_figure(fig: plt.Figure, *paths: str | Path, check: bool = True) -> None:
    """Save ``fig`` to every path (PNG and/or SVG by extension), reproducibly, then close it.

    Log axes get plain-number tick labels (:func:`plain_log_ticks`) and numeric tick labels
    that would touch are thinned (:func:`thin_numeric_tick_labels`: a user's data must not
    fail a job over tick spacing). With ``check`` (the default) the figure must pass
    :func:`figure_problems` first; otherwise nothing is written and :class:`FigureProblems`
    names the output and every problem.

    The figure is laid out once (twice when thinning blanked a label) and every file is drawn
    from that layout: the layout engine's positions are then kept (the engine is switched off)
    and the tight bounding box (``savefig.bbox: tight``) is computed from the same layout, so
    each file costs one draw instead of a layout draw, a tight-box draw and a draw.
    """
    plain_log_ticks(fig)
    renderer = _layout_draw(fig)
    if thin_numeric_tick_labels(fig, renderer):
        renderer = _layout_draw(fig)
    if check:
        problems = figure_problems(fig, renderer)
        if problems:
            plt.close(fig)
            raise FigureProblems(f"{paths[0] if paths else 'figure'}: "
                                 + "; ".join(dict.fromkeys(problems)))
    from .files import atomic_path

    tight = matplotlib.rcParams["savefig.bbox"] == "tight"
    box = (fig.get_tightbbox(renderer).padded(matplotlib.rcParams["savefig.pad_inches"])
           if tight else None)
    with matplotlib.rc_context({"figure.autolayout": False,
                                "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)  # positions kept; no engine re-runs at save time
    for path in paths:
        metadata = {"Date": None} if str(path).endswith(".svg") else {"Software": None}
        with atomic_path(path) as tmp:  # written whole or not at all
            fig.savefig(tmp, metadata=metadata, format=Path(path).suffix.lstrip("."),
                        bbox_inches=box)  # None: savefig.bbox, which is then not tight
    plt.close(fig)
