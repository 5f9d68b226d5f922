"""HTML pages of the pipeline's tables for Snakemake's report (no extra dependency).

Snakemake's report shows HTML files inline but offers CSV and Markdown only as downloads, so
every table the summary registers is also written as a small self-contained HTML page.
:func:`markdown_to_html` covers the Markdown the pipeline itself writes (headings, paragraphs,
bullet lists, pipe tables, ``code``, **bold**, *italic*, links); :func:`csv_page` renders a CSV
with the one number format per column of :func:`crowdpriv.runtime.markdown_table`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from .runtime import markdown_table

__all__ = ["markdown_to_html", "csv_page", "markdown_page", "page"]

# scoped to the page's wrapper, so the summary can be embedded in the report's home page
_STYLE = """
div.crowdpriv { font-family: system-ui, sans-serif; font-size: 14px; margin: 1em; color: #222; }
div.crowdpriv table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 13px; }
div.crowdpriv th, div.crowdpriv td { border: 1px solid #ccc; padding: 3px 6px;
  text-align: left; vertical-align: top; }
div.crowdpriv th { background: #f2f2f2; }
div.crowdpriv td.num { text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }
div.crowdpriv code { background: #f5f5f5; padding: 0 2px; }
div.crowdpriv code::before, div.crowdpriv code::after { content: none; }
"""

_NUMBER = re.compile(r"^[-+]?(?:[\d,]+\.?\d*|\.\d+)(?:e[-+]?\d+)?$|^-?inf$")


def _inline(text: str) -> str:
    """Escape ``text`` and render the inline Markdown the pipeline writes."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) >= 2:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        part = html.escape(part, quote=False)
        part = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", part)
        part = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", part)
        part = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', part)
        out.append(part)
    return "".join(out)


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _table(lines: list[str]) -> str:
    head = _cells(lines[0])
    rows = [_cells(line) for line in lines[2:]]
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{_inline(h)}</th>" for h in head)
           + "</tr></thead>", "<tbody>"]
    for row in rows:
        cells = []
        for value in row:
            cls = ' class="num"' if _NUMBER.match(value.replace(" ", "")) else ""
            cells.append(f"<td{cls}>{_inline(value)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def markdown_to_html(text: str) -> str:
    """HTML body of the Markdown subset the pipeline writes (see the module docstring)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading:
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
            i += 1
        elif line.lstrip().startswith("|") and i + 1 < len(lines) and re.match(
                r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            block = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_table(block))
        elif re.match(r"^\s*[-*]\s+", line):
            items = []
            while i < len(lines) and re.match(r"^\s*[-*]\s+", lines[i]):
                item = re.sub(r"^\s*[-*]\s+", "", lines[i])
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                    item += " " + lines[i].strip()
                    i += 1
                items.append(f"<li>{_inline(item)}</li>")
            out.append("<ul>\n" + "\n".join(items) + "\n</ul>")
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not re.match(
                    r"^(#{1,6}\s|\s*\||\s*[-*]\s+)", lines[i]):
                para.append(lines[i].strip())
                i += 1
            out.append(f"<p>{_inline(' '.join(para))}</p>")
    return "\n".join(out)


def page(title: str, body: str) -> str:
    """A self-contained HTML document."""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n"
            f"<body><div class=\"crowdpriv\">\n{body}\n</div></body></html>\n")


def markdown_page(md_path: str | Path, *, title: str | None = None) -> str:
    """The HTML page of a Markdown file the pipeline wrote."""
    text = Path(md_path).read_text()
    return page(title or Path(md_path).name, markdown_to_html(text))


def csv_page(csv_path: str | Path, *, title: str | None = None) -> str:
    """The HTML page of a result CSV: its path as heading, the table, one format per column."""
    table = pd.read_csv(csv_path)
    heading = title or str(csv_path)
    body = f"<h1>{_inline(heading)}</h1>\n<p>From <code>{html.escape(str(csv_path))}</code>" \
           f" ({len(table)} rows).</p>\n" + _table(markdown_table(table, thousands=True)
                                                   .splitlines())
    return page(heading, body)
