"""results/summary.md is rendered from the CSVs: totals, side-by-side tables, per-figure lines."""

from __future__ import annotations

import pandas as pd
import pytest

from crowdpriv.summary import (
    FigureEntry,
    PaperSection,
    claim_totals,
    render_summary,
    side_by_side,
)


def _section(statuses, table_value=1.5):
    claims = pd.DataFrame(
        {
            "claim": [f"claim {i}" for i in range(len(statuses))],
            "figure": ["Fig. 2"] * len(statuses),
            "status": statuses,
            "evidence": [f"value {i}" for i in range(len(statuses))],
        }
    )
    table = pd.DataFrame(
        {"measure": ["ISE"], "dataset": ["population"], "method": ["PrisCrowd"],
         "mean": [table_value], "std": [0.1], "paper": [0.479]}
    )
    return PaperSection(
        title="Paper A",
        claims=claims,
        figures=[FigureEntry("Fig. 2", "MAE vs ε", ["fig2.png"]), FigureEntry("Fig. 3", "x", ["f3"])],
        tables=[("Table 1", side_by_side(table, ["dataset", "method"]))],
    )


def test_totals_and_figure_lines():
    text = render_summary([_section(["holds", "fails", "holds", "not testable"])])
    assert "**Claims: 2 hold, 1 fail, 1 not testable** (of 4)." in text
    assert "- **Fig. 2** MAE vs ε: 4 claim(s) of the paper: 2 holds, 1 fails, 1 not testable" in text
    assert "- **Fig. 3** x: no qualitative claim of the paper is attached" in text
    assert "| population | PrisCrowd | 1.5 ± 0.1 | 0.479 |" in text


def test_summary_follows_the_csv_values():
    before = render_summary([_section(["holds"], table_value=1.5)])
    after = render_summary([_section(["fails"], table_value=2.25)])
    assert "1 hold, 0 fail" in before and "0 hold, 1 fail" in after
    assert "2.25 ± 0.1" in after and "2.25" not in before


def test_unknown_status_is_an_error():
    with pytest.raises(ValueError, match="claim status must be one of"):
        claim_totals(pd.DataFrame({"status": ["holds", "maybe"]}))
