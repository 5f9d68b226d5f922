"""The pipeline's one-page summary (``results/summary.md``) and index (``results/index.csv``).

Both are built from the paper registry (``register_paper`` in each ``workflow/rules/<paper>.smk``)
and the result CSVs only; nothing is typed in, so a fourth paper appears here by registering
itself. For each paper the summary lists every table and figure with the verdicts of the claims
read from it, the numeric tables with the paper's values beside ours, and every claim with its
status on one line; the statistical basis and evidence of each are in the paper's own claims
file, which the summary links (``results/<paper>/claims.md``; the privacy checks':
``results/privacy_audit/<paper>_claims.csv``), so that the page stays short enough to read. The
papers' claims are counted apart from the checks of the papers' own consistency (category
``erratum``) and from privacy checks (``privacy``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from .claims import CATEGORIES, statuses_of
from .runtime import markdown_table

__all__ = [
    "FigureEntry",
    "PaperSection",
    "build_index",
    "build_sections",
    "claim_totals",
    "render_summary",
    "markdown_table",
    "side_by_side",
]

#: Columns of the dataset-statistics table shown for a paper that registers ``stats_paper``.
STATS_COLUMNS = ["dataset", "workers", "paper_workers", "tasks", "paper_tasks", "claims",
                 "paper_claims"]
#: How each category is named in the totals.
CATEGORY_TITLES = {
    "paper": "Claims of the papers",
    "erratum": "Errata checks (the papers' printed numbers against their own formulas)",
    "privacy": "Privacy checks",
    "ours": "Claims of the inference benchmark (ours, not a paper's)",
}


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
    #: A sentence under a table's caption (what its columns are), by caption.
    notes: dict[str, str] = field(default_factory=dict)
    #: The paper's claims x readings matrix (``readings.csv``), when its readings run.
    readings: pd.DataFrame | None = None
    #: Where each category's evidence is (category -> repository-relative paths).
    evidence: dict[str, list[str]] = field(default_factory=dict)
    #: The paper's readings file (``results/<paper>/readings.md``), when its readings run.
    readings_file: str | None = None


def claim_totals(claims: pd.DataFrame, category: str = "paper") -> dict[str, int]:
    """Count claims per status of the ``category``'s vocabulary
    (:func:`crowdpriv.claims.statuses_of`: privacy claims in the audit's words); a status
    outside it is an error."""
    allowed = statuses_of(category)
    unknown = sorted(set(claims["status"]) - set(allowed))
    if unknown:
        raise ValueError(f"{category} claim status must be one of {allowed}, got {unknown}")
    counts = claims["status"].value_counts()
    return {status: int(counts.get(status, 0)) for status in allowed}


def _of_category(claims: pd.DataFrame, category) -> pd.DataFrame:
    """The claims of ``category`` (one name, or a tuple of names)."""
    unknown = sorted(set(claims["category"]) - set(CATEGORIES))
    if unknown:
        raise ValueError(f"claim category must be one of {CATEGORIES}, got {unknown}")
    wanted = (category,) if isinstance(category, str) else tuple(category)
    return claims.loc[claims["category"].isin(wanted)]


def _counts_text(totals: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in totals.items() if n) or "none"


def _attached(claims: pd.DataFrame, label: str) -> pd.DataFrame:
    labels = claims["figure"].astype(str).str.split("; ")
    return claims.loc[labels.map(lambda names: label in names)]


def _figure_line(entry: FigureEntry, claims: pd.DataFrame) -> str:
    attached = _attached(claims, entry.label)
    files = ", ".join(f"`{f}`" for f in entry.files)
    parts = []
    for category in CATEGORIES:
        sub = _of_category(attached, category)
        if len(sub):
            noun = {"paper": "claim(s) of the paper", "erratum": "errata check(s)",
                    "privacy": "privacy check(s)", "ours": "claim(s) of ours"}[category]
            parts.append(f"{len(sub)} {noun}: {_counts_text(claim_totals(sub, category))}")
    verdict = "; ".join(parts) or (
        "no claim of the paper is attached; compare it with the original directly")
    return f"- **{entry.label}** {entry.title}: {verdict}. Ours: {files}"


def _claims_table(claims: pd.DataFrame) -> str:
    """One line per claim: the figure it is read from, the claim, its status."""
    shown = claims.assign(
        status=[s if not d else f"{s} ({d})" for s, d in
                zip(claims["status"], claims["data"].fillna("").astype(str))]
    )
    return markdown_table(shown[["figure", "claim", "status"]])


def _link(path: str) -> str:
    """A Markdown link from results/summary.md to a repository-relative ``path``."""
    target = path[len("results/"):] if path.startswith("results/") else f"../{path}"
    return f"[`{path}`]({target})"


def render_summary(sections: Sequence[PaperSection], *, preamble: str = "") -> str:
    """Render the summary Markdown for ``sections`` (one per registered paper)."""
    all_claims = pd.concat([s.claims for s in sections], ignore_index=True)
    out = ["# crowdpriv: reproduction summary", ""]
    if preamble:
        out += [preamble, ""]
    for category in CATEGORIES:
        sub = _of_category(all_claims, category)
        if len(sub):
            out.append(f"**{CATEGORY_TITLES[category]}: "
                       f"{_counts_text(claim_totals(sub, category))}** "
                       f"(of {len(sub)}).")
            out.append("")
    rows = []
    for s in sections:
        rows.append({"paper": s.title,
                     **claim_totals(_of_category(s.claims, ("paper", "ours"))),
                     "errata checks failing": int(
                         (_of_category(s.claims, "erratum")["status"] == "fails").sum())})
    out += [markdown_table(pd.DataFrame(rows)), ""]
    for section in sections:
        out += [f"## {section.title}", "", "### Tables and figures", ""]
        out += [_figure_line(entry, section.claims) for entry in section.figures]
        out.append("")
        for caption, table in section.tables:
            out += [f"### {caption}", ""]
            if section.notes.get(caption):
                out += [section.notes[caption], ""]
            out += [markdown_table(table), ""]
        for category, heading in (("paper", "Claims"), ("ours", "Claims (ours)"),
                                  ("erratum", "Errata checks"), ("privacy", "Privacy checks")):
            sub = _of_category(section.claims, category)
            if len(sub):
                where = section.evidence.get(category)
                out += [f"### {heading}", ""]
                if where:
                    links = ", ".join(_link(path) for path in where)
                    out += [f"Statistical basis and evidence of each: {links}.", ""]
                out += [_claims_table(sub), ""]
        if section.readings is not None and len(section.readings):
            out += _readings_lines(section.readings, section.readings_file)
    return "\n".join(out).rstrip() + "\n"


def _readings_lines(matrix: pd.DataFrame, path: str | None = None) -> list[str]:
    """The paper's claims under every reading: which hold or fail under all, which depend on
    a reading (and on which axis), then the matrix itself."""
    from .readings import robustness_summary, wide_table

    names = list(dict.fromkeys(matrix["reading"]))
    groups = robustness_summary(matrix)
    where = _link(path) if path else "readings.md"
    out = ["### Readings", "",
           f"Every claim under each of the {len(names) - 1} alternative readings of this "
           f"paper beside the default ({where} explains each):", ""]
    for title, key in (("Hold under every reading that can test them", "holds everywhere"),
                       ("Fail under every reading that can test them", "fails everywhere"),
                       ("Depend on the reading", "depends")):
        items = groups[key]
        text = "; ".join(f"`{claim}`" + (f" ({phrase[len('depends on: '):]})"
                                         if key == "depends" else "")
                         for claim, phrase in items) or "none"
        out += [f"- **{title}** ({len(items)}): {text}"]
    other = groups["other"]
    if other:
        out += [f"- **Undecided under every reading** ({len(other)}): "
                + "; ".join(f"`{c}` ({p})" for c, p in other)]
    wide = wide_table(matrix)
    depends = wide.loc[wide["claim"].isin([claim for claim, _ in groups["depends"]])]
    if len(depends):
        out += ["", "The claims that depend on the reading, under each (every claim: "
                f"{where}):", "", markdown_table(depends)]
    out.append("")
    return out


def side_by_side(table: pd.DataFrame, keys: list[str], *, ours: str = "mean",
                 ratio: str = "ratio_to_paper") -> pd.DataFrame:
    """Pivot a long ours-vs-paper table (``measure``, keys, ``mean``, ``std``, ``paper``) wide.

    One row per ``keys``; per measure the columns ``<measure> ours`` (column ``ours`` ± the
    std scaled like it, or with R when R = 1 leaves no spread), ``<measure> paper`` and, when
    the table has the column ``ratio``, ``<measure> ours/paper``. ``ours="per_object"`` shows
    PrisCrowd Table 1 per object, the quantity its figure draws.
    """
    rows = {}
    for record in table.to_dict("records"):
        key = tuple(record[k] for k in keys)
        row = rows.setdefault(key, dict(zip(keys, key)))
        measure = record["measure"]
        value = record[ours]
        std = record["std"] * (value / record["mean"] if ours != "mean" and record["mean"]
                               else 1.0)
        shown = f"{value:.4g}"
        shown += f" ± {std:.2g}" if pd.notna(std) else f" (R = {int(record['R'])})"
        row[f"{measure} ours"] = shown
        row[f"{measure} paper"] = record.get("paper", float("nan"))
        if ratio in record:
            row[f"{measure} ours/paper"] = record[ratio]
    return pd.DataFrame(list(rows.values()))


def drop_empty_columns(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without the columns no row fills (all NaN or empty text), and without an
    ``R`` column that is 0 in every row (rows with no simulation, e.g. worked examples)."""
    empty = [c for c in table.columns
             if table[c].isna().all() or table[c].astype(str).str.strip().eq("").all()]
    if "R" in table and pd.to_numeric(table["R"], errors="coerce").fillna(0).eq(0).all():
        empty.append("R")
    return table.drop(columns=empty)


def _summary_table(spec: Mapping, read_csv: Callable[[str], pd.DataFrame]) -> pd.DataFrame:
    table = read_csv(spec["csv"])
    for column, value in (spec.get("where") or {}).items():
        table = table.loc[table[column] == value]
    if spec.get("keys"):
        table = side_by_side(table, list(spec["keys"]), ours=spec.get("ours", "mean"),
                             ratio=spec.get("ratio", "ratio_to_paper"))
    if spec.get("columns"):
        table = table[list(spec["columns"])]
    return drop_empty_columns(table)


def _read_claims(path: str, read_csv: Callable[[str], pd.DataFrame]) -> pd.DataFrame:
    claims = read_csv(path)
    claims["data"] = claims["data"].astype(object).where(claims["data"].notna(), "")
    return claims


def _markdown_of(path: str) -> str:
    """The Markdown twin of a claims CSV (the claims rules write both)."""
    return path[: -len(".csv")] + ".md" if path.endswith(".csv") else path


def build_sections(
    papers: Sequence[Mapping],
    *,
    stats: pd.DataFrame | None = None,
    read_csv: Callable[[str], pd.DataFrame] = pd.read_csv,
) -> list[PaperSection]:
    """One :class:`PaperSection` per registered paper, read from its registered files."""
    sections = []
    for paper in papers:
        tables = []
        if paper.get("stats_paper"):
            if stats is None:
                raise ValueError(f"paper {paper['key']} uses datasets but no statistics were given")
            own = stats.loc[stats["paper"] == paper["stats_paper"]]
            if len(own):
                tables.append(("Datasets (ours beside the paper)",
                               own[[c for c in STATS_COLUMNS if c in own.columns]]))
        tables += [(spec["caption"], _summary_table(spec, read_csv))
                   for spec in paper.get("summary_tables", [])]
        matrix = next((read_csv(p) for p in paper.get("readings", []) if p.endswith(".csv")),
                      None)
        claims = pd.concat([_read_claims(path, read_csv) for path in
                            [paper["claims"], *paper.get("privacy_claims", [])]],
                           ignore_index=True)
        evidence = {"paper": [_markdown_of(paper["claims"])],
                    "ours": [_markdown_of(paper["claims"])],
                    "erratum": [_markdown_of(paper["claims"])],
                    "privacy": list(paper.get("privacy_claims", []))}
        sections.append(PaperSection(
            title=paper["title"],
            claims=claims,
            figures=[FigureEntry(f["label"], f["what"], list(f["files"]))
                     for f in paper["figures"]],
            tables=tables,
            notes={spec["caption"]: spec["note"] for spec in paper.get("summary_tables", [])
                   if spec.get("note")},
            readings=matrix,
            evidence=evidence,
            readings_file=next((p for p in paper.get("readings", []) if p.endswith(".md")),
                               None),
        ))
    return sections


def build_index(papers: Sequence[Mapping]) -> pd.DataFrame:
    """Every registered artefact: paper, kind, label, what, path (``results/index.csv``)."""
    rows = []
    for paper in papers:
        key = paper["key"]
        for fig in paper["figures"]:
            rows += [dict(paper=key, kind="figure", label=fig["label"], what=fig["what"], path=f)
                     for f in fig["files"]]
        rows += [dict(paper=key, kind="table", label=t["caption"], what="", path=t["csv"])
                 for t in paper.get("summary_tables", [])]
        rows.append(dict(paper=key, kind="claims", label="claims", what="", path=paper["claims"]))
        for kind in ("readings", "privacy_claims", "releases"):
            rows += [dict(paper=key, kind=kind, label=kind, what="", path=p)
                     for p in paper.get(kind, [])]
    return pd.DataFrame(rows, columns=["paper", "kind", "label", "what", "path"])
