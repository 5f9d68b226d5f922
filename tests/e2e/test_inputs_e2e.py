"""Every input works or fails clearly, through Snakemake itself (issue 10).

Acquisition through an HTTP mirror with no mirror folder (the Makefile's "no mirror" form of
`--config`), one clear message per file when nothing is reachable, a damaged local raw copy, a
bad custom dataset and a config value a job rejects: non-zero exit, the reason on the
terminal (profiles/default: show-failed-logs), no partial output, earlier outputs untouched.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import conftest
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e

#: Raw files the `datasets` target needs with the e2e config (one stock gold day, no earlier day).
#: the configs of tests/conftest.py's whole-pipeline runs (its E2E_CONFIGS over config.yaml)
E2E_CONFIGS = [ROOT / "config/config.yaml", *map(Path, conftest.E2E_CONFIGS)]


def snakemake(workdir: Path, *args: str, config: tuple = (), overrides: tuple = ()):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
           "--cores", "2", *args, "--configfile", *map(str, E2E_CONFIGS), *map(str, overrides)]
    if config:
        cmd += ["--config", *config]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def http_mirror(tmp_path_factory, mirror):
    """A copy of the data mirror served by `python -m http.server` on 127.0.0.1."""
    served = tmp_path_factory.mktemp("served") / "datasets"
    shutil.copytree(mirror, served)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
         "--directory", str(served)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=10)


def make_config_args(mirror: str, mirror_url: str) -> list[str]:
    """The `--config` words `make reproduce MIRROR=... MIRROR_URL=...` passes (from make -n)."""
    out = subprocess.run(["make", "-n", "reproduce", f"MIRROR={mirror}", f"MIRROR_URL={mirror_url}"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if "snakemake --cores" in x)
    return line.split("--config", 1)[1].split()


def test_makefile_passes_no_mirror_folder_as_null_and_the_url():
    words = make_config_args("/nonexistent", "http://127.0.0.1:1")
    assert words == ["mirror_dir=", "mirror_url=http://127.0.0.1:1"]


@pytest.fixture(scope="module")
def via_http(tmp_path_factory, http_mirror):
    """The datasets target fetched only through the HTTP mirror: no mirror folder."""
    work = tmp_path_factory.mktemp("via_http")
    run = snakemake(work, "datasets", config=tuple(make_config_args("/nonexistent", http_mirror)))
    assert run.returncode == 0, run.stderr[-4000:]
    return work


def test_http_mirror_without_mirror_folder(via_http):
    logs = sorted((via_http / "results/logs/data/fetch").rglob("*.log"))
    assert logs and all("verified copy from mirror_url" in p.read_text() for p in logs)
    stats = (via_http / "results/datasets/stats.csv").read_text()
    assert "adultcontent" in stats and "web" in stats
    assert not list((via_http / "data/raw").rglob("*.part"))


def test_damaged_raw_copy_is_caught_before_it_is_read(via_http, tmp_path):
    work = tmp_path / "w"
    shutil.copytree(via_http, work, symlinks=True)
    processed = work / "data/processed/web/claims.csv"
    other = (work / "data/processed/adultcontent/claims.csv").read_bytes()
    raw = work / "data/raw/web/web_processed_data.mat"
    raw.write_bytes(raw.read_bytes()[:-10])  # truncated: newer, so preprocessing re-runs
    run = snakemake(work, "datasets", config=("mirror_dir=",))
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "data/raw/web/web_processed_data.mat: the local copy is damaged" in out
    assert "Delete it and rerun" in out
    assert not processed.exists()  # no partial output
    assert (work / "data/processed/adultcontent/claims.csv").read_bytes() == other


def test_nothing_reachable_one_message_per_file(tmp_path):
    closed = f"http://127.0.0.1:{free_port()}"
    run = snakemake(tmp_path / "w", "datasets",
                    config=("mirror_dir=", f"mirror_url={closed}", "download_timeout_s=5"))
    assert run.returncode != 0
    out = run.stdout + run.stderr
    cfg = {}
    for path in E2E_CONFIGS:
        cfg.update(yaml.safe_load(path.read_text()) or {})
    needed = ["population/popAnswersOut.txt", "adultcontent/labels.txt", "web/web_processed_data.mat"]
    for relative in needed:
        name = relative.split("/")[-1]
        assert out.count(f"{name}: no source delivered the pinned file") == 1, name
        assert f"{closed}/{relative}" in out
    assert not [p for p in (tmp_path / "w/data/raw").rglob("*") if p.is_file()]


def _custom(tmp_path: Path, name: str, claims: str) -> Path:
    path = tmp_path / f"{name}.csv"
    path.write_text(claims)
    return path


def test_bad_custom_dataset_fails_clearly_and_leaves_earlier_outputs(tmp_path, mirror):
    good = _custom(tmp_path, "good", "object,source,value\nr1,a,1\nr1,b,2\n")
    blank = _custom(tmp_path, "blank", "object,source,value\nr1,a,1\n,b,2\nr2,c,3\n")
    override = tmp_path / "custom.yaml"
    override.write_text(yaml.safe_dump({"custom_datasets": {
        "good": {"claims": str(good)}, "blank": {"claims": str(blank)}}}))
    work = tmp_path / "w"
    first = snakemake(work, "data/processed/good/claims.csv", overrides=(override,),
                      config=(f"mirror_dir={mirror}",))
    assert first.returncode == 0, first.stderr[-3000:]
    before = (work / "data/processed/good/claims.csv").read_bytes()
    run = snakemake(work, "data/processed/blank/claims.csv", "data/processed/good/claims.csv",
                    overrides=(override,), config=(f"mirror_dir={mirror}",))
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert f"{blank}, line 3, column 'task': empty task id" in out  # on the terminal
    assert not (work / "data/processed/blank").exists() or not any(
        (work / "data/processed/blank").iterdir())
    assert (work / "data/processed/good/claims.csv").read_bytes() == before


def test_config_value_rejected_before_any_job_is_named_by_key_path(tmp_path, mirror):
    """fig4.m above m used to fail the dataset's run job; it now stops the run at start-up
    (crowdpriv.config_checks) with the same message, before any job (no log is written)."""
    cfg = {}
    for path in E2E_CONFIGS:
        cfg.update(yaml.safe_load(path.read_text()) or {})
    m = 6
    override = tmp_path / "bad_m.yaml"
    override.write_text(yaml.safe_dump({"priscrowd": {"m": m, "fig4": {"m": [1, 3, m + 1]}}}))
    target = "results/priscrowd/runs/indoor_surrogate/table.csv"
    run = snakemake(tmp_path / "w", target, overrides=(override,), config=(f"mirror_dir={mirror}",))
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert f"config key priscrowd.fig4.m[2] = {m + 1}: fig4.m must be integers in [1, m={m}]" in out
    assert not (tmp_path / "w" / target).exists()
    assert not (tmp_path / "w" / "results" / "logs").exists()
