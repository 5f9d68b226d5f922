"""``results/README.md``: what every output file of a run is (written by rule ``report_pages``).

Registered artefacts (each paper's figures, tables, claims, readings, privacy checks and
releases; ``workflow/rules/common.smk``) are described from the registry; every other file is
matched against :data:`PATTERNS`. :func:`undocumented` lists files that match nothing, so a test
can insist that every file a run writes is described.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatch
from pathlib import Path

__all__ = ["PATTERNS", "describe", "undocumented", "results_readme"]

#: (glob relative to the repository root, description); the first match describes a file; a
#: ``*`` stays within one folder, a trailing ``/**`` matches any depth
PATTERNS: Sequence[tuple[str, str]] = (
    ("results/README.md", "this guide"),
    ("results/summary.md", "one page over every paper: claims counted by status, each table "
     "and figure with its verdicts, ours beside the paper's numbers"),
    ("results/index.csv", "every registered artefact (paper, kind, path), read by the tests"),
    ("results/run_config.yaml", "the complete config of the run that wrote these results "
     "(`make report` renders the report's captions from it)"),
    ("results/report.html", "Snakemake's HTML report (`make report`)"),
    ("results/report/summary.html", "the summary as an HTML page (the report's Summary)"),
    ("results/report/home.html", "the head of the summary, shown on the report's home page"),
    ("results/report/*/*.html", "a table of the run as an HTML page, shown inline in the report"),
    ("results/datasets/stats.*", "dataset statistics, ours beside the papers'"),
    ("results/*/claims.csv", "every claim of the paper: status, statistical basis, evidence"),
    ("results/*/claims.md", "the same claims as a Markdown table"),
    ("results/*/readings.csv", "every claim under every named reading (claim × reading)"),
    ("results/*/readings.md", "the readings matrix, each reading's justification and what its "
     "re-run measured"),
    ("results/*/readings/claims.csv", "every claim under every named reading, with status, "
     "basis and evidence (column under_reading)"),
    ("results/*/readings/*/rerun/*", "the tables one reading re-ran (absent.csv: tables it "
     "could not re-run; notes.csv: what it did)"),
    ("results/*/*.svg", "the figure as SVG (same content as the PNG)"),
    ("results/*/raw/*", "per-repetition results of one experiment (the figure CSVs summarise "
     "them)"),
    ("results/*/raw/*/*", "per-repetition results of one sweep point"),
    ("results/priscrowd/runs/*/*.csv", "per-dataset PrisCrowd run tables (weights, releases, "
     "scores, budget, case studies), summarised by the table and figure jobs"),
    ("results/priscrowd/runs/simulated/*/*.csv", "per-p simulated-data run tables (Table 2)"),
    ("results/*/release/*.budget.csv", "per object of the synthetic release of the same "
     "name: its claims, the claims released and Theorem 2's (ε, δ)"),
    ("results/*/release/*.csv", "a private release written through crowdpriv.api"),
    ("results/*/release/*.privacy.json", "the privacy ledger of the release beside it: what "
     "was spent, the theorem, what the guarantee does not cover, the seed"),
    ("results/*/release/*.md", "what the releases of this folder are"),
    ("results/privacy_audit/audit.*", "every audited mechanism: claimed ε, the audit's lower "
     "bound, the exact ε where a closed form exists"),
    ("results/privacy_audit/caveats.csv", "what each privacy guarantee does not cover"),
    ("results/privacy_audit/*_claims.csv", "a paper's privacy claims, judged by the audit"),
    ("results/privacy_audit/*.png", "audit figure of one paper"),
    ("results/privacy_audit/*.svg", "audit figure of one paper (SVG)"),
    ("results/*/*_timings.csv", "wall-clock medians (machine- and load-dependent, never judged)"),
    ("results/*/*_reps.csv", "per-repetition values behind a figure"),
    ("results/*/*.csv", "the data behind the figure or table of the same name"),
    ("results/ldp_sparse/mf_sensitivity.png", "MF sensitivity (not in the paper): MF's MAE "
     "change vs its factorisation parameter d and a ridge term λ on Fig. 3's sparsest point"),
    ("results/*/*.md", "a table of the paper as Markdown"),
    ("results/*/*.png", "a figure"),
    ("results/logs/**", "job logs (one per job)"),
    ("results/benchmarks/**", "Snakemake benchmark records of the jobs (time, memory), each "
     "job's CPU record (*.cpu.json) and the whole run's (snakemake_run.json)"),
)


def _registered(papers: Iterable[Mapping]) -> dict[str, str]:
    """path -> description of every registered artefact, and of the PNG drawn beside a
    registered table (``table1.md`` -> ``table1.png``: the same table as a figure)."""
    out: dict[str, str] = {}
    for paper in papers:
        title = paper["title"]
        for fig in paper["figures"]:
            for path in fig["files"]:
                kind = "figure" if path.endswith((".png", ".svg")) else "table"
                out.setdefault(path, f"{title}, {fig['label']} ({kind}): {fig['what']}")
                stem, ext = path.rsplit(".", 1)
                if ext == "md":
                    out.setdefault(f"{stem}.png", f"{title}, {fig['label']} (the table as a "
                                   f"figure): {fig['what']}")
        for table in paper["summary_tables"]:
            out.setdefault(table["csv"], f"{title}: the data of the summary's table "
                           f"\"{table['caption']}\"")
        out.setdefault(paper["claims"], f"{title}: every claim, with status and evidence")
        for path in paper["readings"]:
            out.setdefault(path, f"{title}: claims under every reading")
        for path in paper["privacy_claims"]:
            out.setdefault(path, f"{title}: privacy claims judged by the audit")
        for path in paper["releases"]:
            out.setdefault(path, f"{title}: a private release with its ledger")
    return out


def describe(path: str, registered: Mapping[str, str]) -> str | None:
    """Description of ``path`` (relative to the repository root), or None."""
    if path in registered:
        return registered[path]
    for pattern, text in PATTERNS:
        if pattern.endswith("/**"):
            if path.startswith(pattern[:-2]):
                return text
        elif fnmatch(path, pattern) and path.count("/") == pattern.count("/"):
            return text
    return None


def undocumented(paths: Iterable[str], papers: Iterable[Mapping]) -> list[str]:
    """The paths :func:`describe` has nothing for."""
    registered = _registered(papers)
    return [p for p in paths if describe(p, registered) is None]


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def results_readme(paths: Iterable[str], papers: Sequence[Mapping], *, config_note: str) -> str:
    """The Markdown of ``results/README.md`` for the files ``paths`` (repository-relative).

    A file directly in ``results/<folder>/`` gets its own line; the files of a deeper folder
    share one line per folder, with each meaning and how many files have it (a private
    release and its ledgers are one folder line, not one line per meaning)."""
    registered = _registered(papers)
    lines = ["# What is in `results/`", "",
             "Written by the pipeline (rule `report_pages`) at the end of the run; every file "
             "the run wrote is listed with what it is. Start with `summary.md`; open "
             "`report.html` after `make report`. " + config_note, ""]
    groups: dict[str, list[str]] = {}
    for path in sorted(set(paths)):
        parts = path.split("/")
        top = "/".join(parts[:2]) if len(parts) > 2 else "results"
        groups.setdefault(top, []).append(path)
    for top, files in groups.items():
        lines += [f"## `{top}/`", ""]
        if top in ("results/logs", "results/benchmarks"):
            lines += [f"- {_files(len(files))}: {describe(files[0], registered)}", ""]
            continue
        entries: dict[str, dict[str, int]] = {}
        for path in files:
            text = describe(path, registered) or "(not described)"
            shown = str(Path(path).parent) + "/" if path.count("/") > 2 else path
            meanings = entries.setdefault(shown, {})
            meanings[text] = meanings.get(text, 0) + 1
        for shown, meanings in sorted(entries.items()):
            if not shown.endswith("/"):
                lines.append(f"- `{shown}`: {next(iter(meanings))}")
            elif len(meanings) == 1:
                (text, count), = meanings.items()
                lines.append(f"- `{shown}` ({_files(count)}): {text}")
            else:
                total = sum(meanings.values())
                lines.append(f"- `{shown}` ({_files(total)}): " + "; ".join(
                    f"{text} ({_files(count)})" for text, count in meanings.items()))
        lines.append("")
    return "\n".join(lines)
