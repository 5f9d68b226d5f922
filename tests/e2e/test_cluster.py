"""The tiny end-to-end config through snakemake-executor-plugin-cluster-generic (issue 11).

Runs with the cluster profile's conventions (workflow/profiles/slurm) but a local stand-in for
sbatch and the status command (tests/e2e/local_submit.sh, local_status.sh), and checks that the
CSVs equal those of the local run of the same config (tests/conftest.py's full_run): the
per-rule threads/resources reach the submit command and nothing depends on where a job ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import E2E_CONFIGS

ROOT = Path(__file__).resolve().parents[2]
#: the configs of tests/conftest.py's full_run (E2E_CONFIGS over config.yaml)
CONFIGS = [ROOT / "config/config.yaml", *map(Path, E2E_CONFIGS)]
#: one job of each paper, and a dataset's preprocessing (4 jobs: each starts its own Snakemake)
TARGETS = ["results/pptd/raw/fig7.csv", "results/priscrowd/runs/indoor_surrogate/table.csv",
           "results/ldp_sparse/raw/fig2/sparsity_0.5.csv"]
pytestmark = pytest.mark.e2e


def _run(workdir: Path, mirror: Path, *extra: str, env=None):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
           *TARGETS, *extra, "--configfile", *map(str, CONFIGS),
           "--config", f"mirror_dir={mirror}"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert run.returncode == 0, run.stderr[-5000:]
    return run


def test_cluster_generic_run_equals_local_run(tmp_path, mirror, full_run):
    """Its targets' CSVs equal those of the local whole-pipeline run of the same config
    (tests/conftest.py's full_run, --cores 2)."""
    cluster = tmp_path / "cluster"
    queue = tmp_path / "queue"
    submit = (f"{ROOT}/tests/e2e/local_submit.sh --cpus-per-task={{threads}} "
              "--mem={resources.mem_mb}M --time={resources.runtime}")
    env = {**os.environ, "CROWDPRIV_LOCAL_CLUSTER": str(queue)}
    _run(cluster, mirror, "--workflow-profile", str(ROOT / "workflow/profiles/slurm"),
         "--cluster-generic-submit-cmd", submit,
         "--cluster-generic-status-cmd", f"{ROOT}/tests/e2e/local_status.sh",
         "--cluster-generic-cancel-cmd", "true", "--jobs", "2", "--latency-wait", "5", env=env)
    submitted = sorted(queue.glob("*.rc"))
    assert submitted and all(p.read_text().strip() == "0" for p in submitted)
    csvs = sorted(p.relative_to(cluster) for p in (cluster / "results").rglob("*.csv")
                  if "_timings" not in p.name and "benchmarks" not in p.parts)
    assert len(csvs) >= 4
    different = [str(p) for p in csvs
                 if (full_run / p).read_bytes() != (cluster / p).read_bytes()]
    assert not different, different
