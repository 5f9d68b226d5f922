"""results/README.md (crowdpriv.results_guide): every file described once, plurals right."""

from __future__ import annotations

import re

from crowdpriv.results_guide import describe, results_readme

PAPERS = [{
    "title": "Toy",
    "figures": [{"label": "Table 1", "what": "scores", "files": ["results/toy/table1.md"]}],
    "summary_tables": [], "claims": "results/toy/claims.csv", "readings": [],
    "privacy_claims": [],
    "releases": ["results/toy/release/a.csv", "results/toy/release/b.csv"],
}]
FILES = ["results/toy/table1.md", "results/toy/table1.png", "results/toy/table1.svg",
         "results/toy/claims.csv", "results/toy/release/a.csv",
         "results/toy/release/a.csv.privacy.json", "results/toy/release/a.budget.csv",
         "results/toy/release/b.csv", "results/toy/release/b.csv.privacy.json",
         "results/toy/release/b.budget.csv", "results/toy/readings/claims.csv",
         "results/ldp_sparse/mf_sensitivity.png"]


def test_every_file_once_with_a_meaning():
    text = results_readme(FILES, PAPERS, config_note="")
    listed = re.findall(r"^- `([^`]+)`", text, flags=re.MULTILINE)
    assert len(listed) == len(set(listed)), listed  # a folder is one line
    assert "- `results/toy/table1.png`: Toy, Table 1 (the table as a figure): scores" in text
    assert "(1 files)" not in text
    assert "- `results/toy/readings/` (1 file): every claim under every named reading" in text
    line = next(x for x in text.splitlines() if x.startswith("- `results/toy/release/`"))
    assert line.startswith("- `results/toy/release/` (6 files): ")
    assert "Toy: a private release with its ledger (2 files)" in line
    assert "the privacy ledger of the release beside it" in line and "(2 files)" in line
    assert "per object of the synthetic release of the same name" in line
    assert ": a figure" not in text
    assert describe("results/ldp_sparse/mf_sensitivity.png", {}).startswith("MF sensitivity")
