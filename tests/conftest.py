"""Shared fixtures: the repository root, the local data mirror, the validated default config,
and the one whole-pipeline run the end-to-end tests share (``full_run``); and two polling
helpers for tests that start processes (``wait_until``, ``gone``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("CROWDPRIV_MIRROR", ROOT.parent / "shared" / "datasets"))
#: Merged over config/config.yaml, in this order, by every whole-pipeline run of tests/e2e/.
E2E_CONFIGS = [str(ROOT / "config/quick.yaml"), str(ROOT / "tests/e2e/config.yaml")]


def wait_until(condition, *, within: float) -> bool:
    """Whether ``condition()`` holds within ``within`` seconds (polled every 0.05 s)."""
    end = time.monotonic() + within
    while not condition():
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)
    return True


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` ends (and is reaped) within ``within`` seconds."""
    def ended():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    return wait_until(ended, within=within)


def snakemake_command(workdir: Path, mirror: Path, *targets: str, extra: tuple = (),
                      cores: int = 2, overrides: tuple = (), config: tuple = ()) -> list[str]:
    """Snakemake on the tiny end-to-end config (config.yaml, then E2E_CONFIGS, then
    ``overrides``, then ``config``: ``key=value`` items for ``--config``) in ``workdir``."""
    return [
        sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
        "--cores", str(cores), *targets, *extra, "--configfile",
        str(ROOT / "config/config.yaml"), *E2E_CONFIGS, *overrides,
        "--config", f"mirror_dir={mirror}", *config,
    ]


def run_snakemake(workdir: Path, mirror: Path, *targets: str, extra: tuple = (),
                  cores: int = 2, overrides: tuple = ()) -> str:
    """Run :func:`snakemake_command`; fails the test with the end of its log if it fails."""
    cmd = snakemake_command(workdir, mirror, *targets, extra=extra, cores=cores,
                            overrides=overrides)
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
def full_runs(tmp_path_factory, mirror) -> tuple[Path, Path]:
    """Rule all on the tiny config twice at the same time, in two folders: with ``--cores 2``
    and with ``--cores 3``, each run the other's load (five job slots on the 2-core machine
    kind), so jobs run in other orders, interleave differently and compete for the CPU. The
    first forks its jobs from the job server (config ``job_server``, the default), the second
    runs each job in its own process (``job_server=false``), so their byte identity covers both.
    tests/e2e/test_e2e.py reads the first and checks that the two are byte-identical; the
    cluster test (tests/e2e/test_cluster.py) compares its own run with the first."""
    first, beside = tmp_path_factory.mktemp("e2e"), tmp_path_factory.mktemp("e2e_beside")
    log = tmp_path_factory.mktemp("e2e_beside_log") / "snakemake.log"
    with open(log, "w") as out:
        other = subprocess.Popen(snakemake_command(beside, mirror, cores=3,
                                                   config=("job_server=false",)), stdout=out,
                                 stderr=subprocess.STDOUT)
        try:
            run_snakemake(first, mirror)
        except BaseException:
            other.kill()
            other.wait()
            raise
        code = other.wait(timeout=900)
    if code != 0:
        pytest.fail(f"snakemake failed (all, --cores 3, beside the first run):\n"
                    f"{log.read_text()[-6000:]}")
    return first, beside


@pytest.fixture(scope="session")
def full_run(full_runs) -> Path:
    """The first of :func:`full_runs` (``--cores 2``)."""
    return full_runs[0]
