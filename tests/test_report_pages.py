"""The HTML pages the report shows for every table (crowdpriv.html) and the one number format
per column of every rendered table (crowdpriv.runtime.column_formatter)."""

import numpy as np
import pandas as pd

from crowdpriv.html import csv_page, markdown_to_html
from crowdpriv.runtime import column_formatter, markdown_table


def test_markdown_subset_renders_headings_tables_lists_and_inline_marks():
    text = ("# Title\n\nSome **bold** and `code|x` and *it*.\n\n- one\n- two [link](a.md)\n\n"
            "| a | b |\n|---|---|\n| x\\|y | 1,234 |\n")
    out = markdown_to_html(text)
    assert "<h1>Title</h1>" in out
    assert "<strong>bold</strong>" in out and "<code>code|x</code>" in out and "<em>it</em>" in out
    assert "<li>one</li>" in out and '<a href="a.md">link</a>' in out
    assert "<th>a</th>" in out and "<td>x|y</td>" in out and '<td class="num">1,234</td>' in out


def test_markdown_escapes_html():
    assert "&lt;script&gt;" in markdown_to_html("a <script> b")


def test_csv_page_is_a_table_with_one_format_per_column(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"n": [5621, 1977], "x": [76430.5, 0.5], "s": ["a", "b"]}).to_csv(path,
                                                                               index=False)
    page = csv_page(path, title="T")
    assert page.count("<tr>") == 3 and "5,621" in page and "1,977" in page
    assert "76,430" in page and ">0.5<" in page  # plain notation in both rows of x


def test_column_formatter_never_mixes_notations():
    integers = column_formatter([5621.0, 1977.0], thousands=True)
    assert [integers(v) for v in (5621.0, 1977.0)] == ["5,621", "1,977"]
    wide = column_formatter([1e-6, 2.0, np.nan])
    assert [wide(v) for v in (1e-6, 2.0, np.nan)] == ["1.000e-06", "2.000e+00", ""]
    plain = column_formatter([0.02007, 123.4, np.inf])
    assert [plain(v) for v in (0.02007, 123.4, np.inf)] == ["0.02007", "123.4", "inf"]
    table = markdown_table(pd.DataFrame({"v": [1.5, 76430.0]}), thousands=True)
    assert "| 1.5 |" in table and "| 76,430 |" in table
