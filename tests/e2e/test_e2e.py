"""One real end-to-end Snakemake run of the whole pipeline (rule all) on a tiny config.

Uses the local data mirror (../shared/datasets); writes into a temporary working directory via
``--directory`` so the repository's own data/ and results/ are untouched.
"""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIGS = [str(ROOT / "config/quick.yaml"), str(HERE / "config.yaml")]

#: Files every full run must produce (beyond what rule all itself requires).
EXPECTED = [
    "results/datasets/stats.csv",
    "results/datasets/stats.md",
    "results/summary.md",
    *(f"results/{paper}/claims.csv" for paper in ("ldp_sparse", "pptd", "priscrowd")),
]


def run_snakemake(workdir: Path, mirror: Path, *targets: str, extra: tuple = ()) -> None:
    cmd = [
        sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
        "--cores", "2", *targets, *extra, "--configfile", str(ROOT / "config/config.yaml"),
        *CONFIGS, "--config", f"mirror_dir={mirror}",
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.fail(f"snakemake failed ({' '.join(targets) or 'all'}):\n{result.stderr[-6000:]}")


@pytest.fixture(scope="module")
def full_run(tmp_path_factory, mirror) -> Path:
    workdir = tmp_path_factory.mktemp("e2e")
    run_snakemake(workdir, mirror)
    return workdir


def test_all_outputs_exist(full_run):
    missing = [p for p in EXPECTED if not (full_run / p).is_file()]
    assert not missing, missing


def test_dataset_statistics(full_run):
    stats = pd.read_csv(full_run / "results/datasets/stats.csv").set_index("dataset")
    assert stats.loc["adultcontent", ["sources", "objects", "claims"]].tolist() == [825, 11040, 89799]
    assert stats.loc["web", ["sources", "objects", "claims"]].tolist() == [177, 2665, 15567]
    assert stats.loc["indoor_surrogate", "sources"] == 40  # the tiny config's size
    assert stats.loc["adultcontent", "claims_casefold"] == 89796
    assert "SURROGATE" in stats.loc["stock_surrogate", "note"]


def test_rerun_is_byte_identical(full_run, tmp_path, mirror):
    """Same config, fresh directory: the stochastic datasets and the stats are byte-identical."""
    run_snakemake(tmp_path, mirror, "datasets")
    for rel in ["data/processed/stock_surrogate/claims.csv",
                "data/processed/indoor_surrogate/claims.csv", "results/datasets/stats.csv"]:
        assert filecmp.cmp(full_run / rel, tmp_path / rel, shallow=False), rel


def test_claims_tables_well_formed(full_run):
    for paper in ("ldp_sparse", "pptd", "priscrowd"):
        claims = pd.read_csv(full_run / f"results/{paper}/claims.csv")
        assert list(claims.columns[:4]) == ["claim", "figure", "status", "evidence"], paper
        assert set(claims["status"]) <= {"holds", "fails", "not testable"}, paper
        assert claims["evidence"].notna().all(), paper


def test_report_renders_every_figure(full_run):
    """`snakemake --report` embeds every figure of the summary, and each one decodes."""
    import re

    from crowdpriv.report_check import check_report_figures

    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(full_run),
           "--report", "results/report.html", "--configfile", str(ROOT / "config/config.yaml"),
           *CONFIGS]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = check_report_figures(full_run / "results/report.html")
    listed = set(re.findall(r"`(results/[^`]+\.png)`", (full_run / "results/summary.md").read_text()))
    assert len(listed) >= 15
    assert listed <= set(figures), sorted(listed - set(figures))
    assert all(w >= 200 and h >= 100 for w, h in (figures[p] for p in listed))


def test_summary_reads_the_csvs(full_run, mirror):
    """Change a result CSV, rebuild only the summary: the summary shows the new values.

    Runs last: it edits files of the shared run directory.
    """
    summary = full_run / "results/summary.md"
    assert "Claims:" in summary.read_text()
    table1 = full_run / "results/priscrowd/table1.csv"
    df = pd.read_csv(table1)
    df.loc[0, "mean"] = 123456.0
    df.to_csv(table1, index=False)
    claims_path = full_run / "results/pptd/claims.csv"
    claims = pd.read_csv(claims_path)
    holds_before = int((claims["status"] == "holds").sum())
    claims.loc[claims["status"] == "holds", "status"] = "fails"
    claims.to_csv(claims_path, index=False)
    before = summary.read_text()
    run_snakemake(full_run, mirror, "results/summary.md", extra=("--forcerun", "summary"))
    after = summary.read_text()
    assert "1.235e+05 ±" in after and "1.235e+05 ±" not in before
    total = lambda text: int(text.split("**Claims: ")[1].split(" hold")[0])  # noqa: E731
    assert total(after) == total(before) - holds_before
