"""Shared fixtures: the repository root, the local data mirror, the validated default config,
and the one whole-pipeline run the end-to-end tests share (``full_run``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("CROWDPRIV_MIRROR", ROOT.parent / "shared" / "datasets"))
#: Merged over config/config.yaml, in this order, by every whole-pipeline run of tests/e2e/.
E2E_CONFIGS = [str(ROOT / "config/quick.yaml"), str(ROOT / "tests/e2e/config.yaml")]


def run_snakemake(workdir: Path, mirror: Path, *targets: str, extra: tuple = (),
                  cores: int = 2, overrides: tuple = ()) -> str:
    """Snakemake on the tiny end-to-end config (config.yaml, then E2E_CONFIGS, then
    ``overrides``) in ``workdir``; fails the test with the end of its log if it fails."""
    cmd = [
        sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
        "--cores", str(cores), *targets, *extra, "--configfile",
        str(ROOT / "config/config.yaml"), *E2E_CONFIGS, *overrides,
        "--config", f"mirror_dir={mirror}",
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.fail(f"snakemake failed ({' '.join(targets) or 'all'}):\n{result.stderr[-6000:]}")
    return result.stdout


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline mirror of the raw data (``../shared/datasets``); required by data tests."""
    if not MIRROR.is_dir():
        # deliberate: the data tests read the real raw files, which are never committed; a
        # checkout without the mirror (and without CROWDPRIV_MIRROR) cannot run them
        pytest.skip(f"no data mirror at {MIRROR} (set CROWDPRIV_MIRROR)")
    return MIRROR


@pytest.fixture(autouse=True)
def _registry_left_as_found():
    """A test that registers a mechanism does not leak it into the next test."""
    from crowdpriv import mechanisms

    state = mechanisms.snapshot()
    yield
    mechanisms.restore(state)


@pytest.fixture()
def default_config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="session")
def full_run(tmp_path_factory, mirror) -> Path:
    """Rule all on the tiny config, once per session: tests/e2e/test_e2e.py reads it, the
    cluster test (tests/e2e/test_cluster.py) compares its own run with it."""
    workdir = tmp_path_factory.mktemp("e2e")
    run_snakemake(workdir, mirror)
    return workdir
