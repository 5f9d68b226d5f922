"""results/summary.md and results/index.csv are rendered from the registry and the CSVs."""

from __future__ import annotations

import pandas as pd
import pytest

from crowdpriv.summary import (
    FigureEntry,
    PaperSection,
    build_index,
    build_sections,
    claim_totals,
    render_summary,
    side_by_side,
)


def _claims(statuses, categories=None, figures=None):
    n = len(statuses)
    return pd.DataFrame({
        "claim_id": [f"a.c{i}" for i in range(n)],
        "claim": [f"claim {i}" for i in range(n)],
        "figure": figures or ["Fig. 2"] * n,
        "category": categories or ["paper"] * n,
        "reading": ["r"] * n,
        "status": statuses,
        "basis": ["b"] * n,
        "evidence": [f"value {i}" for i in range(n)],
        "data": [""] * n,
    })


def _section(statuses, table_value=1.5, **kw):
    table = pd.DataFrame(
        {"measure": ["ISE"], "dataset": ["population"], "method": ["PrisCrowd"],
         "mean": [table_value], "std": [0.1], "R": [3], "paper": [0.479]}
    )
    return PaperSection(
        title="Paper A",
        claims=_claims(statuses, **kw),
        figures=[FigureEntry("Fig. 2", "MAE vs ε", ["fig2.png"]), FigureEntry("Fig. 3", "x", ["f3"])],
        tables=[("Table 1", side_by_side(table, ["dataset", "method"]))],
    )


def test_totals_and_figure_lines():
    text = render_summary([_section(["holds", "fails", "holds", "not testable", "inconclusive"])])
    assert "**Claims of the papers: 2 holds, 1 fails, 1 inconclusive, 1 not testable** (of 5)." in text
    assert ("- **Fig. 2** MAE vs ε: 5 claim(s) of the paper: 2 holds, 1 fails, 1 inconclusive, "
            "1 not testable") in text
    assert "- **Fig. 3** x: no claim of the paper is attached" in text
    assert "| population | PrisCrowd | 1.5 ± 0.1 | 0.479 |" in text


def test_errata_are_counted_apart_and_claims_attach_to_every_figure_they_name():
    text = render_summary([_section(
        ["holds", "fails", "holds"], categories=["paper", "erratum", "paper"],
        figures=["Fig. 2", "Fig. 2", "Fig. 2; Fig. 3"])])
    assert "**Claims of the papers: 2 holds** (of 2)." in text
    assert "**Errata checks (the papers' printed numbers against their own formulas): 1 fails**" in text
    assert "- **Fig. 2** MAE vs ε: 2 claim(s) of the paper: 2 holds; 1 errata check(s): 1 fails." in text
    assert "- **Fig. 3** x: 1 claim(s) of the paper: 1 holds." in text
    assert "### Errata checks" in text
    assert "| Paper A | 2 | 0 | 0 | 0 | 1 |" in text


def test_surrogate_scope_is_shown_with_the_status():
    section = _section(["holds"])
    section.claims.loc[0, "data"] = "surrogate only: indoor_surrogate"
    assert "| holds (surrogate only: indoor_surrogate) |" in render_summary([section])


def test_summary_follows_the_csv_values():
    before = render_summary([_section(["holds"], table_value=1.5)])
    after = render_summary([_section(["fails"], table_value=2.25)])
    assert "1 holds** (of 1)" in before and "1 fails** (of 1)" in after
    assert "2.25 ± 0.1" in after and "2.25" not in before


def test_unknown_status_or_category_is_an_error():
    with pytest.raises(ValueError, match="claim status must be one of"):
        claim_totals(pd.DataFrame({"status": ["holds", "maybe"]}))
    with pytest.raises(ValueError, match="claim category must be one of"):
        render_summary([_section(["holds"], categories=["opinion"])])


def test_side_by_side_with_one_repetition_shows_r_not_a_made_up_spread():
    table = pd.DataFrame({"measure": ["ISE"], "p": [0.1], "method": ["A"], "mean": [2.0],
                          "std": [float("nan")], "R": [1], "paper": [3.0]})
    assert side_by_side(table, ["p", "method"]).iloc[0]["ISE ours"] == "2 (R = 1)"


def test_sections_and_index_come_from_the_registry(tmp_path):
    claims = tmp_path / "claims.csv"
    _claims(["holds"]).to_csv(claims, index=False)
    table = tmp_path / "t.csv"
    pd.DataFrame({"experiment": ["paper_example", "fig2"], "bound": [1.0, 2.0]}).to_csv(
        table, index=False)
    stats = pd.DataFrame({"dataset": ["web", "pop"], "paper": ["A", "B"], "workers": [1, 2],
                          "paper_workers": [1, 2], "tasks": [3, 4]})
    papers = [dict(key="a", title="Paper A", stats_paper="A", claims=str(claims),
                   figures=[dict(label="Fig. 2", what="w", files=["f.png"])],
                   summary_tables=[dict(caption="Bounds", csv=str(table),
                                        where={"experiment": "paper_example"})],
                   readings=[], privacy_claims=[], releases=["r.csv"])]
    (section,) = build_sections(papers, stats=stats)
    assert [c for c, _ in section.tables] == ["Datasets (ours beside the paper)", "Bounds"]
    assert section.tables[0][1]["dataset"].tolist() == ["web"]
    assert section.tables[1][1]["bound"].tolist() == [1.0]
    index = build_index(papers)
    assert index[["kind", "path"]].values.tolist() == [
        ["figure", "f.png"], ["table", str(table)], ["claims", str(claims)], ["releases", "r.csv"]]
    with pytest.raises(ValueError, match="uses datasets"):
        build_sections(papers, stats=None)



def test_claims_are_one_line_each_with_the_evidence_linked():
    section = _section(["holds", "fails"])
    section.evidence = {"paper": ["results/a/claims.md"]}
    text = render_summary([section])
    assert "| figure | claim | status |" in text and "| Fig. 2 | claim 1 | fails |" in text
    assert "value 1" not in text and "| b |" not in text  # evidence and basis: linked
    assert "Statistical basis and evidence of each: [`results/a/claims.md`](a/claims.md)." in text


def test_a_table_note_is_shown_under_its_caption():
    section = _section(["holds"])
    section.notes = {"Table 1": "Both columns are per-object values."}
    text = render_summary([section])
    assert "### Table 1\n\nBoth columns are per-object values.\n\n| dataset |" in text


def test_table_1_per_object_with_its_spread_scaled():
    table = pd.DataFrame({"measure": ["ISE"], "dataset": ["population"], "method": ["P"],
                          "mean": [66.0], "std": [1.2], "R": [10], "paper": [0.479],
                          "ratio_to_paper": [137.8], "per_object": [0.24],
                          "per_object_ratio_to_paper": [0.501]})
    wide = side_by_side(table, ["dataset", "method"], ours="per_object",
                        ratio="per_object_ratio_to_paper")
    assert wide.iloc[0].to_dict() == {"dataset": "population", "method": "P",
                                      "ISE ours": "0.24 ± 0.0044", "ISE paper": 0.479,
                                      "ISE ours/paper": 0.501}
    assert side_by_side(table, ["dataset", "method"]).iloc[0]["ISE ours"] == "66 ± 1.2"


def test_readings_show_the_matrix_of_the_claims_that_depend_on_them():
    from crowdpriv.summary import _readings_lines

    rows = []
    for claim, statuses in (("a.robust", ("holds", "holds")), ("a.depends", ("holds", "fails"))):
        for (reading, axis), status in zip((("default", ""), ("alt", "axis x")), statuses):
            rows.append(dict(claim=claim, figure="Fig. 2", category="paper", reading=reading,
                             axis=axis, status=status, evidence=""))
    text = "\n".join(_readings_lines(pd.DataFrame(rows), "results/a/readings.md"))
    assert "| a.depends | Fig. 2 | holds | fails | depends on: axis x |" in text
    assert "| a.robust |" not in text and "`a.robust`" in text  # listed, not tabled
    assert "[`results/a/readings.md`](a/readings.md)" in text

#: Terms results/summary.md (and the claims files it links) use that need explaining.
JARGON = ("claim of the paper", "errata check", "privacy check", "holds", "fails",
          "inconclusive", "not testable", "exact", "margin", "sign test", "intersection–union",
          "Bonferroni", "TOST", "judged", "surrogate", "reading", "robust", "MAE change",
          "own-mean sender", "ε-cell LDP", "ISE", "SISE", "per object", "Basic(Strong",
          "candidates tested", "CRH", "exact ε", "not auditable", "ledger", "ours/paper")


def test_every_term_of_the_summary_is_in_the_glossary(root):
    text = (root / "docs" / "claims.md").read_text()
    glossary = text[text.index("## Glossary"):].split("\n## ", 1)[0]
    defined = [line.split("|")[1] for line in glossary.splitlines() if line.startswith("| ")]
    missing = [term for term in JARGON if not any(term in row for row in defined)]
    assert not missing, missing
