"""The pipeline's one-page summary (``results/summary.md``), built from the result CSVs only.

Every number in the summary is read from a CSV the pipeline wrote; nothing is typed in. For each
paper it lists every table and figure with a line on how it compares to the original (from the
paper's claims attached to that figure), the numeric tables with the paper's values beside ours,
and every claim with its status and evidence. Totals of claims holding / failing / not testable
head the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .runtime import markdown_table

__all__ = [
    "FigureEntry",
    "PaperSection",
    "claim_totals",
    "render_summary",
    "markdown_table",
    "side_by_side",
]

STATUSES = ("holds", "fails", "not testable")


@dataclass
class FigureEntry:
    """One table or figure of a paper: its label in the paper and where our version lives."""

    label: str
    title: str
    files: list[str]


@dataclass
class PaperSection:
    """Everything the summary shows for one paper."""

    title: str
    claims: pd.DataFrame
    figures: list[FigureEntry]
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)


def claim_totals(claims: pd.DataFrame) -> dict[str, int]:
    """Count claims per status; any status outside holds/fails/not testable is an error."""
    unknown = sorted(set(claims["status"]) - set(STATUSES))
    if unknown:
        raise ValueError(f"claim status must be one of {STATUSES}, got {unknown}")
    counts = claims["status"].value_counts()
    return {status: int(counts.get(status, 0)) for status in STATUSES}


def _figure_line(entry: FigureEntry, claims: pd.DataFrame) -> str:
    if "figure" in claims.columns:
        attached = claims.loc[claims["figure"].astype(str) == entry.label]
    else:
        attached = claims.iloc[0:0]
    files = ", ".join(f"`{f}`" for f in entry.files)
    if attached.empty:
        verdict = "no qualitative claim of the paper is attached; compare it with the original directly"
    else:
        totals = claim_totals(attached)
        parts = [f"{n} {s}" for s, n in totals.items() if n]
        verdict = f"{len(attached)} claim(s) of the paper: " + ", ".join(parts)
    return f"- **{entry.label}** {entry.title}: {verdict}. Ours: {files}"


def render_summary(sections: list[PaperSection], *, preamble: str = "") -> str:
    """Render the summary Markdown for ``sections`` (one per paper)."""
    all_claims = pd.concat([s.claims.assign(paper=s.title) for s in sections], ignore_index=True)
    totals = claim_totals(all_claims)
    out = ["# crowdpriv: reproduction summary", ""]
    if preamble:
        out += [preamble, ""]
    out += [
        f"**Claims: {totals['holds']} hold, {totals['fails']} fail, "
        f"{totals['not testable']} not testable** (of {len(all_claims)}).",
        "",
        markdown_table(
            pd.DataFrame(
                [{"paper": s.title, **claim_totals(s.claims)} for s in sections]
            )
        ),
        "",
    ]
    for section in sections:
        out += [f"## {section.title}", "", "### Tables and figures", ""]
        out += [_figure_line(entry, section.claims) for entry in section.figures]
        out.append("")
        for caption, table in section.tables:
            out += [f"### {caption}", "", markdown_table(table), ""]
        out += ["### Claims", ""]
        columns = [c for c in ("figure", "claim", "status", "evidence") if c in section.claims]
        out += [markdown_table(section.claims[columns]), ""]
    return "\n".join(out).rstrip() + "\n"


def side_by_side(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Pivot a long ours-vs-paper table (``measure``, keys, ``mean``, ``std``, ``paper``) wide.

    One row per ``keys``; per measure the columns ``<measure> ours`` (mean ± std) and
    ``<measure> paper``.
    """
    rows = {}
    for record in table.to_dict("records"):
        key = tuple(record[k] for k in keys)
        row = rows.setdefault(key, dict(zip(keys, key)))
        measure = record["measure"]
        row[f"{measure} ours"] = f"{record['mean']:.4g} ± {record['std']:.2g}"
        row[f"{measure} paper"] = record.get("paper", float("nan"))
    return pd.DataFrame(list(rows.values()))
