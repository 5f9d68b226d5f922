"""Check Snakemake's self-contained HTML report: every embedded figure decodes and is not blank.

Snakemake's report embeds each result as a ``data_uri`` (base64) beside its path. This reads
them back without a browser, so the check runs anywhere the tests run.
"""

from __future__ import annotations

import base64
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

__all__ = ["embedded_results", "check_report_figures"]

_ENTRY = re.compile(r'"(results/[^"]+)": \{"name": ')
_DATA_URI = re.compile(r'"data_uri": "data:([^;"]+);charset=utf8;filename=[^;"]*;base64,([A-Za-z0-9+/=]*)"')


def embedded_results(html: str) -> dict[str, tuple[str, bytes]]:
    """Map each embedded result path to (mime type, decoded bytes)."""
    out = {}
    for match in _ENTRY.finditer(html):
        uri = _DATA_URI.search(html, match.end())
        if uri is None:
            raise ValueError(f"report entry {match.group(1)} has no embedded data")
        out[match.group(1)] = (uri.group(1), base64.b64decode(uri.group(2)))
    return out


def check_report_figures(report: str | Path) -> dict[str, tuple[int, int]]:
    """Decode every PNG and SVG embedded in ``report``; return path -> (width, height) in pixels.

    Raises ``ValueError`` naming the first figure that does not decode, is empty, or is a
    single flat colour (a blank plot).
    """
    import matplotlib.image as mpimg

    sizes = {}
    for path, (mime, data) in embedded_results(Path(report).read_text()).items():
        if mime == "image/png":
            try:
                pixels = mpimg.imread(io.BytesIO(data), format="png")
            except Exception as err:  # noqa: BLE001 - any decoding failure is a broken figure
                raise ValueError(f"{path}: embedded PNG does not decode ({err})") from err
            if pixels.size == 0 or float(np.ptp(pixels)) == 0.0:
                raise ValueError(f"{path}: embedded PNG is empty or blank")
            sizes[path] = (pixels.shape[1], pixels.shape[0])
        elif mime == "image/svg+xml":
            try:
                root = ET.fromstring(data)
            except ET.ParseError as err:
                raise ValueError(f"{path}: embedded SVG is not valid XML ({err})") from err
            if not root.tag.endswith("svg") or len(root) == 0:
                raise ValueError(f"{path}: embedded SVG has no content")
            sizes[path] = (0, 0)
    return sizes
