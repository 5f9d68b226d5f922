"""The figure checks (crowdpriv.plotting.figure_problems) that every saved figure passes, each
with a case that holds and a case that fails, and the helpers figures share (labels, order)."""

import numpy as np
import pandas as pd
import pytest

from crowdpriv.aggregate import in_order
from crowdpriv.labels import dataset_label, set_dataset_labels
from crowdpriv.plotting import FigureProblems, figure_problems, plain_log_ticks, save_figure, use_style

use_style()
import matplotlib.pyplot as plt  # noqa: E402


def _clean_figure():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [1, 4, 9], label="ours")
    ax.axhline(0, color="0.5")  # a reference line needs no legend entry
    ax.set_ylabel("value")
    ax.legend()
    return fig, ax


def test_clean_figure_passes():
    fig, _ = _clean_figure()
    assert figure_problems(fig) == []
    plt.close(fig)


def test_unlabelled_series_fails():
    fig, ax = _clean_figure()
    ax.plot([1, 2, 3], [2, 3, 4])
    assert any("no label" in p for p in figure_problems(fig))
    plt.close(fig)


def test_labelled_series_missing_from_every_legend_fails():
    fig, (a, b) = plt.subplots(1, 2)
    a.plot([1, 2], [1, 2], label="ours")
    b.plot([1, 2], [1, 2], label="paper")
    for ax in (a, b):
        ax.set_ylabel("y")
    a.legend()
    problems = figure_problems(fig)
    assert any("'paper' is in no legend" in p for p in problems)
    b.legend()
    assert figure_problems(fig) == []
    plt.close(fig)


def test_same_label_in_two_colours_fails():
    fig, (a, b) = plt.subplots(1, 2, sharey=True)
    a.plot([1, 2], [1, 2], label="web", color="tab:blue")
    b.plot([1, 2], [1, 2], label="web", color="tab:green")
    a.set_ylabel("y")
    a.legend()
    assert any("different colours" in p for p in figure_problems(fig))
    b.lines[0].set_color("tab:blue")
    assert figure_problems(fig) == []  # the shared y axis carries the label
    plt.close(fig)


def test_unexplained_band_fails_and_explained_band_passes():
    fig, ax = _clean_figure()
    ax.fill_between([1, 2, 3], [0, 3, 8], [2, 5, 10], alpha=0.2)
    assert any("shaded bands" in p for p in figure_problems(fig))
    ax.set_title("band: ±1 sd over R")
    assert figure_problems(fig) == []
    plt.close(fig)


def test_missing_y_label_fails():
    fig, ax = _clean_figure()
    ax.set_ylabel("")
    assert any("no y-axis label" in p for p in figure_problems(fig))
    plt.close(fig)


def test_overlapping_tick_labels_fail():
    fig, ax = _clean_figure()
    ax.set_xticks(np.linspace(1, 3, 16), [f"long label {i}" for i in range(16)])
    assert any("overlap" in p for p in figure_problems(fig))
    ax.set_xticks([1, 2, 3], ["a", "b", "c"])
    assert figure_problems(fig) == []
    plt.close(fig)


def test_touching_tick_labels_fail_and_thinning_keeps_the_ticks():
    from crowdpriv.plotting import thin_numeric_tick_labels

    fig, ax = _clean_figure()
    ax.set_xlim(0, 5)
    ax.set_xticks([0.1, 0.5, 1, 2, 3, 4, 5], ["0.1", "0.5", "1", "2", "3", "4", "5"])
    fig.set_size_inches(3, 3)
    assert any("'0.1' and '0.5' overlap or touch" in p for p in figure_problems(fig))
    thin_numeric_tick_labels(fig)
    assert figure_problems(fig) == []
    assert list(ax.get_xticks()) == [0.1, 0.5, 1, 2, 3, 4, 5]  # every tick stays
    assert [t.get_text() for t in ax.get_xticklabels()][:3] == ["0.1", "", "1"]
    plt.close(fig)


def test_save_figure_thins_crowded_numeric_ticks_but_not_category_labels(tmp_path):
    from matplotlib.ticker import MultipleLocator

    fig, ax = _clean_figure()
    fig.set_size_inches(2.5, 2.5)
    ax.xaxis.set_major_locator(MultipleLocator(0.05))  # 41 numeric labels on a narrow axis
    assert any("overlap" in p for p in figure_problems(fig))
    save_figure(fig, tmp_path / "numeric.png")  # thinned, then checked: written
    assert (tmp_path / "numeric.png").exists()
    fig, ax = _clean_figure()
    fig.set_size_inches(2.5, 2.5)
    ax.set_xticks(np.linspace(1, 3, 12), [f"category {i}" for i in range(12)])
    with pytest.raises(FigureProblems, match="overlap"):
        save_figure(fig, tmp_path / "categories.png")  # names are never dropped


def test_scientific_mantissa_ticks_fail_and_plain_log_ticks_fix_them():
    fig, ax = _clean_figure()
    ax.set_xscale("log")
    ax.set_xlim(0.35, 3.5)  # under one decade: matplotlib labels minor ticks as a×10^k
    problems = figure_problems(fig)
    assert any("a×10^k" in p for p in problems)
    plain_log_ticks(fig)
    assert figure_problems(fig) == []
    plt.close(fig)


def test_legend_over_data_fails_and_legend_outside_passes():
    fig, ax = plt.subplots()
    x = np.linspace(0, 1, 20)
    ax.plot(x, np.full_like(x, 0.9), label="high")  # runs under an upper-left legend
    ax.plot(x, x * 0.2, label="low")
    ax.set_ylim(0, 1)
    ax.set_ylabel("y")
    ax.legend(loc="upper left")
    assert any("legend covers 'high'" in p for p in figure_problems(fig))
    ax.get_legend().remove()
    fig.legend(loc="outside right center")
    fig.set_layout_engine("constrained")
    assert figure_problems(fig) == []
    plt.close(fig)


def test_a_line_crossing_the_legend_between_its_points_fails():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0], label="diagonal")  # two points, far from the legend's corner
    ax.set_ylabel("y")
    ax.legend(loc="center")
    assert any("legend covers" in p for p in figure_problems(fig))
    plt.close(fig)


def test_coinciding_series_drawn_alike_fail_and_distinct_styles_pass():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [1.0, 2.0, 3.0], label="RR", color="C0", marker="o")
    ax.plot([1, 2, 3], [1.0001, 2.0001, 3.0001], label="2-Layer", color="C1", marker="o")
    ax.set_ylabel("y")
    fig.legend(loc="outside right center")
    fig.set_layout_engine("constrained")
    assert any("'2-Layer' hides 'RR'" in p for p in figure_problems(fig))
    ax.lines[1].set_linestyle("--")
    ax.lines[1].set_marker("s")
    assert figure_problems(fig) == []
    ax.lines[1].set_ydata([1.5, 2.5, 3.5])  # apart on screen: any style is fine
    ax.lines[1].set_linestyle("-")
    ax.lines[1].set_marker("o")
    assert figure_problems(fig) == []
    plt.close(fig)


def test_save_figure_refuses_and_writes_nothing(tmp_path):
    fig, ax = _clean_figure()
    ax.plot([1, 2], [1, 2])
    with pytest.raises(FigureProblems, match="no label"):
        save_figure(fig, tmp_path / "f.png")
    assert not (tmp_path / "f.png").exists()
    fig, _ = _clean_figure()
    save_figure(fig, tmp_path / "f.png", tmp_path / "f.svg")
    assert (tmp_path / "f.png").stat().st_size > 0 and (tmp_path / "f.svg").exists()


def test_dataset_labels_mark_surrogates_and_configured_versions():
    set_dataset_labels({"web": "web (not the paper's version)"})
    try:
        assert dataset_label("web") == "web (not the paper's version)"
        assert dataset_label("stock_surrogate") == "stock (surrogate)"
        assert dataset_label("population") == "population"
    finally:
        set_dataset_labels({})


def test_in_order_follows_the_config_and_keeps_unknowns_last():
    t = pd.DataFrame({"dataset": ["indoor", "population", "zeta", "stock", "population"],
                      "v": [1, 2, 3, 4, 5]})
    out = in_order(t, "dataset", ["population", "stock", "indoor"])
    assert out["dataset"].tolist() == ["population", "population", "stock", "indoor", "zeta"]
    assert out["v"].tolist() == [2, 5, 4, 1, 3]  # stable within a dataset


def test_results_guide_describes_registered_and_pattern_files():
    from crowdpriv.results_guide import describe, results_readme, undocumented

    papers = [{"title": "Toy", "figures": [{"label": "Fig. 1", "what": "a curve",
                                            "files": ["results/toy/fig1.png"]}],
               "summary_tables": [], "claims": "results/toy/claims.csv", "readings": [],
               "privacy_claims": [], "releases": []}]
    files = ["results/toy/fig1.png", "results/toy/claims.csv", "results/logs/a/b/c.log",
             "results/toy/raw/fig1/point.csv", "results/summary.md", "results/odd/x/y/z.bin"]
    assert undocumented(files, papers) == ["results/odd/x/y/z.bin"]
    assert describe("results/toy/fig1.png", {}) == "a figure"
    text = results_readme(files[:-1], papers, config_note="")
    assert "Toy, Fig. 1 (figure): a curve" in text and "(not described)" not in text


def _panel_figure():
    fig, axes = plt.subplots(1, 2, figsize=(7, 3), layout="constrained")
    for ax in axes:
        ax.plot([0.1, 1, 5], [3, 2, 1], marker="o", label="ours")
        ax.set_ylabel("a long y-axis label that needs a margin")
        ax.set_xlabel("ε")
    axes[0].legend()
    fig.suptitle("a title over both panels")
    return fig


def test_save_figure_lays_out_once_and_matches_matplotlibs_own_tight_save(tmp_path):
    """save_figure keeps the layout of one layout draw and its tight box (no engine re-run at
    save time): the files have the size matplotlib's own constrained + tight save gives (to a
    pixel or two of text hinting), and the figure leaves with no layout engine."""
    from PIL import Image

    ours = _panel_figure()
    save_figure(ours, tmp_path / "ours.png", tmp_path / "ours.svg")
    assert ours.get_layout_engine() is None
    reference = _panel_figure()
    reference.savefig(tmp_path / "reference.png")  # savefig.bbox: tight, layout at save dpi
    plt.close(reference)
    ours_size = Image.open(tmp_path / "ours.png").size
    reference_size = Image.open(tmp_path / "reference.png").size
    assert all(abs(a - b) <= 3 for a, b in zip(ours_size, reference_size)), (ours_size,
                                                                             reference_size)
    assert (tmp_path / "ours.svg").read_text().count("a long y-axis label") == 2
