"""One real end-to-end Snakemake run of the whole pipeline (rule all) on a tiny config.

Uses the local data mirror (../shared/datasets); writes into a temporary working directory via
``--directory`` so the repository's own data/ and results/ are untouched.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import E2E_CONFIGS as CONFIGS
from conftest import run_snakemake

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: Files every full run must produce besides those the registry lists (results/index.csv).
EXPECTED = [
    "results/datasets/stats.csv",
    "results/datasets/stats.md",
    "results/summary.md",
    "results/index.csv",
]
#: The only outputs exempt from byte identity: wall-clock measurements.
TIMINGS = "_timings.csv"


def registered(workdir: Path, kind: str | None = None) -> list[str]:
    """Paths the paper registry lists (results/index.csv), optionally of one kind."""
    index = pd.read_csv(workdir / "results/index.csv")
    return index.loc[index["kind"] == kind, "path"].tolist() if kind else index["path"].tolist()


def test_all_outputs_exist(full_run):
    missing = [p for p in EXPECTED + registered(full_run) if not (full_run / p).is_file()]
    assert not missing, missing
    index = pd.read_csv(full_run / "results/index.csv")
    assert set(index["paper"]) >= {"ldp_sparse", "pptd", "priscrowd"}
    releases = registered(full_run, "releases")
    assert releases and all((full_run / f"{p}.privacy.json").is_file() for p in releases)
    # the whole run's CPU beside the jobs' (the Snakefile's onsuccess)
    run = json.loads((full_run / "results/benchmarks/snakemake_run.json").read_text())
    assert run["children_cpu_s"] > 0 and run["scheduler_cpu_s"] > 0


def test_dataset_statistics(full_run):
    stats = pd.read_csv(full_run / "results/datasets/stats.csv").set_index("dataset")
    assert stats.loc["adultcontent", ["workers", "tasks", "claims"]].tolist() == [825, 11040, 89799]
    assert stats.loc["web", ["workers", "tasks", "claims"]].tolist() == [177, 2665, 15567]
    assert stats.loc["indoor_surrogate", "workers"] == 40  # the tiny config's size
    assert stats.loc["adultcontent", "claims_casefold"] == 89796
    assert "SURROGATE" in stats.loc["stock_surrogate", "note"]
    # Zheng et al.'s benchmark datasets: SOURCE.md's counts, every task with truth
    for name, counts in {"product": [176, 8315, 24945], "dog": [109, 807, 8070],
                         "emotion": [38, 700, 7000]}.items():
        assert stats.loc[name, ["workers", "tasks", "claims"]].tolist() == counts, name
        assert stats.loc[name, "tasks_with_truth"] == counts[1], name
    assert stats.loc["product", "label_counts"] == "0: 19834; 1: 5111"
    assert stats.loc["emotion", ["value_min", "value_max"]].tolist() == [-100, 100]


def test_claims_tables_well_formed(full_run):
    from crowdpriv.claims import CATEGORIES, COLUMNS, STATUSES

    index = pd.read_csv(full_run / "results/index.csv")
    for path in registered(full_run, "claims"):
        claims = pd.read_csv(full_run / path)
        assert list(claims.columns) == list(COLUMNS), path
        assert set(claims["status"]) <= set(STATUSES), path
        assert set(claims["category"]) <= set(CATEGORIES), path
        assert claims["claim_id"].is_unique, path
        assert claims[["claim", "figure", "basis", "evidence"]].notna().all().all(), path
        paper = index.loc[index["path"] == path, "paper"].iloc[0]
        labels = set(index.loc[(index["paper"] == paper) & (index["kind"] == "figure"), "label"])
        named = {f for figs in claims["figure"] for f in figs.split("; ")}
        assert named <= labels, (path, named - labels)


def test_same_config_gives_byte_identical_results_whatever_the_cores_and_load(full_runs):
    """The two runs of the same config made at the same time in fresh folders (--cores 2 and
    --cores 3, each the other's load; the first with the job server, the second without:
    tests/conftest.py's full_runs): every CSV of results/ (but the *_timings.csv), every claims
    table, every Markdown page and JSON file of results/ (the summary, the readings, the
    release ledgers), and the processed datasets (the stochastic surrogates among them) are
    byte-identical. (Every rule takes one thread, so the
    cores change only what runs at once and in which order.)"""
    first_run, second_run = full_runs

    def tables(run):
        """Every CSV of results/ and data/processed/, and every Markdown and JSON file of
        results/ but the CPU records and logs (results/benchmarks, results/logs)."""
        found = {p.relative_to(run) for folder in ("results", "data/processed")
                 for p in (run / folder).rglob("*.csv")}
        found |= {p.relative_to(run) for suffix in ("*.md", "*.json")
                  for p in (run / "results").rglob(suffix)}
        return {p for p in found if p.parts[1] not in ("benchmarks", "logs")}

    first, second = tables(first_run), tables(second_run)
    assert first == second
    compared = sorted(p for p in first if not p.name.endswith(TIMINGS))
    different = [str(p) for p in compared
                 if not filecmp.cmp(first_run / p, second_run / p, shallow=False)]
    assert not different, different
    assert len(compared) > 50
    assert {Path("data/processed/stock_surrogate/claims.csv"),
            Path("data/processed/indoor_surrogate/claims.csv"),
            Path("results/datasets/stats.csv"), Path("results/summary.md"),
            Path("results/priscrowd/readings.md")} <= set(compared)
    assert any(p.name.endswith(".privacy.json") for p in compared)  # the release ledgers


def test_the_first_run_forked_its_jobs_from_the_job_server_the_second_did_not(full_runs):
    """The byte identity above compares a run whose jobs the job server forked (config
    ``job_server``, the default; crowdpriv.jobserver) with one whose jobs each ran in its own
    process (``job_server=false``): each job's log says which way it ran (its first line,
    crowdpriv.runtime.start_job: forked at the request of Snakemake's own process, without a
    launcher), and the server's record counts the jobs it forked."""
    first_run, second_run = full_runs

    def first_lines(run):
        return {p: p.read_text().split("\n", 1)[0]
                for p in (run / "results/logs").rglob("*.log")
                if p.read_text().startswith("rule ")}

    forked, own = first_lines(first_run), first_lines(second_run)
    assert len(forked) > 50 and len(own) > 50
    assert all("; forked by the job server (pid " in line for line in forked.values()), [
        line for line in forked.values() if "forked by the job server" not in line][:3]
    # at the request of Snakemake's own process (crowdpriv.jobserver.script_without_launcher)
    assert all(line.endswith("), without a launcher") for line in forked.values()), [
        line for line in forked.values() if "without a launcher" not in line][:3]
    assert all(line.endswith("; in its own process: no job server (CROWDPRIV_JOB_SERVER unset)")
               for line in own.values()), list(own.values())[:3]
    record = json.loads((first_run / "results/benchmarks/job_server.cpu.json").read_text())
    assert record["forked"] > 0 and record["refused"] == 0
    assert not (second_run / "results/benchmarks/job_server.cpu.json").exists()


def _planned(stdout: str) -> dict[str, int]:
    """Jobs a dry run would execute, by rule (Snakemake's job stats table)."""
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", stdout, re.MULTILINE)
            if rule != "total"}


@pytest.mark.parametrize(
    "edit, reruns, untouched",
    [
        # the issue's first example: dropping 2-Layer from Fig. 5 re-runs Fig. 5's jobs only
        ({"ldp_sparse": {"fig5": {"methods": ["LP", "RR", "MF"]}}},
         {"ldp_sparse_real", "ldp_sparse_figures", "ldp_sparse_claims"},
         {"ldp_sparse_synthetic", "ldp_sparse_mf_sensitivity_raw"}),
        # the second: PrisCrowd's Fig. 5 block re-runs only the timing jobs and the figure
        ({"priscrowd": {"fig5": {"m": [1, 30], "timing_calls": 6}}},
         {"priscrowd_timing", "priscrowd_figures", "priscrowd_claims"},
         {"priscrowd_run", "priscrowd_simulated"}),
        # a new p in Table 2: its own simulation job only
        ({"priscrowd": {"table2": {"p": [0.1, 0.3, 0.5, 0.6]}}},
         {"priscrowd_simulated", "priscrowd_figures"},
         {"priscrowd_run", "priscrowd_timing"}),
        # Fig. 4's release sizes: the per-dataset runs score them, nothing else
        ({"priscrowd": {"fig4": {"m": [1, 10, 30]}}}, {"priscrowd_run", "priscrowd_figures"},
         {"priscrowd_timing", "priscrowd_simulated"}),
        # PPTD Fig. 3's λ1 list: Fig. 3's job only
        ({"pptd": {"fig3": {"lambda1": [1.0, 3.0]}}}, {"pptd_synthetic_tradeoff"},
         {"pptd_indoor_tradeoff", "pptd_weights", "pptd_runtime"}),
        # one reading's override: that reading's re-run only
        ({"pptd": {"readings": {"alternatives": {"indoor_dense": {
            "data": {"indoor_surrogate": {"walks_lognormal": [2.5, 0.9]}}}}}}},
         {"reading_rerun", "readings_matrix"},
         {"pptd_synthetic_tradeoff", "pptd_indoor_tradeoff", "ldp_sparse_synthetic"}),
        # a claim threshold: only that paper's claims (and the summary)
        ({"ldp_sparse": {"claims": {"mf_max_change": 0.6}}}, {"ldp_sparse_claims", "summary"},
         {"ldp_sparse_synthetic", "ldp_sparse_real", "ldp_sparse_figures", "pptd_claims"}),
    ],
)
def test_editing_one_block_reruns_only_its_jobs(full_run, mirror, tmp_path, edit, reruns,
                                                 untouched):
    """Job params hold only the keys each job reads (a dry run after editing one block)."""
    override = tmp_path / "edit.yaml"
    override.write_text(yaml.safe_dump(edit))
    planned = _planned(run_snakemake(full_run, mirror, "-n", overrides=(str(override),)))
    assert reruns <= set(planned), planned
    assert not untouched & set(planned), planned
    if "fig3" in edit.get("pptd", {}):
        assert planned["pptd_synthetic_tradeoff"] == 1  # Fig. 3's, not Figs. 2, 4, 5
    if "readings" in edit.get("pptd", {}):
        assert planned["reading_rerun"] == 1  # indoor_dense's, not the other readings'
    if "table2" in edit.get("priscrowd", {}):
        assert planned["priscrowd_simulated"] == 1  # p = 0.6 only


def test_report_renders_every_figure(full_run):
    """The report made as `make report` makes it (only --configfile results/run_config.yaml,
    the run's own config) embeds every figure of the summary, each one decodes; every table
    is an HTML page with a table; the captions state this run's parameters, not the
    defaults'; results/README.md describes every file the run wrote."""
    from report_check import check_report_figures, embedded_results
    from crowdpriv.results_guide import PATTERNS, describe

    run_config = yaml.safe_load((full_run / "results/run_config.yaml").read_text())
    assert run_config["ldp_sparse"]["fig2"]["workers"] == 400  # the quick config's size
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(full_run),
           "--report", "results/report.html", "--report-stylesheet",
           str(ROOT / "workflow/report/report.css"), "--configfile",
           str(full_run / "results/run_config.yaml")]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = check_report_figures(full_run / "results/report.html")
    listed = set(re.findall(r"`(results/[^`]+\.png)`", (full_run / "results/summary.md").read_text()))
    assert len(listed) >= 15
    assert listed <= set(figures), sorted(listed - set(figures))
    assert all(w >= 200 and h >= 100 for w, h in (figures[p] for p in listed))

    html = (full_run / "results/report.html").read_text()
    embedded = embedded_results(html)
    pages = {p: data for p, (mime, data) in embedded.items() if mime == "text/html"}
    for table in ("results/report/priscrowd/table1.html", "results/report/pptd/claims.html",
                  "results/report/ldp_sparse/claims.html", "results/report/summary.html"):
        assert table in pages, table
        assert b"<table>" in pages[table] and b"<td" in pages[table], table
    assert not [p for p, (mime, _) in embedded.items() if mime in ("text/csv", "text/markdown")]
    captions = " ".join(re.findall(r'"caption": "((?:[^"\\]|\\.)*)"', html))
    assert "400 workers \\u00d7 50 tasks" in captions  # quick fig2, not the default 2000 x 200
    assert "R = 2 repetitions" in captions  # quick LDP R, not the default 10
    assert "ε ∈ [1, 10, 100]" in captions or "\\u03b5 \\u2208 [1, 10, 100]" in captions

    readme = (full_run / "results/README.md").read_text()
    written = [str(p.relative_to(full_run)) for p in (full_run / "results").rglob("*")
               if p.is_file() and p.name != "report.html"]
    assert not [p for p in written if describe(p, {}) is None], "undocumented outputs"
    assert "(not described)" not in readme
    assert PATTERNS and "results/summary.md" in readme and "results/run_config.yaml" in readme


def test_identity_readings_reproduce_the_default_claims(full_run):
    """A reading that sets a value the config already has re-runs its tables through the
    readings jobs (rerun_tables, merge_tables, the claims engine): its claims must equal the
    default claims byte for byte (every field as written), so every other reading differs only
    by its override."""
    pairs = [("ldp_sparse", "identity_fig2"), ("pptd", "identity"), ("priscrowd", "identity")]
    for paper, reading in pairs:
        text = dict(dtype=str, keep_default_na=False)
        default = pd.read_csv(full_run / f"results/{paper}/claims.csv", **text)
        stacked = pd.read_csv(full_run / f"results/{paper}/readings/claims.csv", **text)
        again = stacked.loc[stacked["under_reading"] == reading].drop(columns="under_reading")
        pd.testing.assert_frame_equal(default, again.reset_index(drop=True), obj=paper)
        rerun = sorted(p.name for p in (full_run / f"results/{paper}/readings/{reading}/rerun")
                       .glob("*.csv"))
        assert len(rerun) >= 2, (paper, rerun)  # absent.csv and at least one re-run table
    matrix = pd.read_csv(full_run / "results/pptd/readings.csv")
    assert set(matrix["reading"]) >= {"default", "identity", "sensitivity_corrected"}
    assert "### Readings" in (full_run / "results/summary.md").read_text()


def test_a_bare_rerun_has_nothing_to_do_and_results_hold_no_machine_path(full_run, mirror):
    """The run passed the mirror as an absolute path (as `make reproduce` may); the config
    records it relative to the repository, so the same run without --config has nothing to
    do, and no file under results/ names the mirror's or the run folder's absolute path."""
    for path in (full_run / "results").rglob("*"):  # report.html: made by `make report`
        if path.is_file() and path.suffix in (".csv", ".md", ".yaml", ".json", ".html", ".tsv",
                                              ".log") and path.name != "report.html":
            text = path.read_text(errors="replace")
            assert str(mirror) not in text and str(full_run) not in text, path
    run_config = yaml.safe_load((full_run / "results/run_config.yaml").read_text())
    assert run_config["mirror_dir"] == os.path.relpath(mirror, ROOT)
    if Path(os.path.normpath(ROOT / "../shared/datasets")) != Path(mirror).resolve():
        # deliberate: the checks above ran; a bare run (no mirror argument) reads the config's
        # default mirror_dir, so it can only have nothing to do when that is the mirror used
        pytest.skip("the mirror is not the default ../shared/datasets: a bare run differs")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d",
           str(full_run), "--cores", "2", "-n", "--configfile", str(ROOT / "config/config.yaml"),
           *CONFIGS]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nothing to be done" in result.stdout + result.stderr, result.stdout[-3000:]


def test_summary_reads_the_csvs(full_run, mirror):
    """Change a result CSV, rebuild only the summary: the summary shows the new values.

    Runs last: it edits files of the shared run directory.
    """
    summary = full_run / "results/summary.md"
    table1 = full_run / "results/priscrowd/table1.csv"
    df = pd.read_csv(table1)
    df.loc[0, "per_object"] = 123456.0  # the summary shows Table 1 per object
    df.to_csv(table1, index=False)
    claims_path = full_run / "results/pptd/claims.csv"
    claims = pd.read_csv(claims_path)
    paper = claims["category"] == "paper"
    flipped = int((paper & (claims["status"] != "fails")).sum())
    assert flipped > 0
    claims.loc[paper, "status"] = "fails"
    claims.to_csv(claims_path, index=False)
    before = summary.read_text()
    run_snakemake(full_run, mirror, "results/summary.md", extra=("--forcerun", "summary"))
    after = summary.read_text()
    assert "1.235e+05 ±" in after and "1.235e+05 ±" not in before

    def fails(text):
        line = next(x for x in text.splitlines() if x.startswith("**Claims of the papers:"))
        found = re.search(r"(\d+) fails", line)
        return int(found.group(1)) if found else 0

    assert fails(after) == fails(before) + flipped

