"""PrisCrowd's jobs read only their own config keys: editing one figure's block re-runs only
that figure's jobs (a real quick run, then dry runs with edited blocks)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

pytestmark = pytest.mark.e2e


def _snakemake(root, workdir, mirror, *args, overrides=()):
    configs = [str(root / "config/config.yaml"), str(root / "config/quick.yaml"), *overrides]
    cmd = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d", str(workdir),
           "--cores", "2", *args, "--configfile", *configs, "--config", f"mirror_dir={mirror}"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def _planned(stdout: str) -> dict[str, int]:
    """Jobs a dry run would execute, by rule (Snakemake's job stats table)."""
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", stdout, re.MULTILINE)
            if rule != "total"}


@pytest.fixture(scope="module")
def quick_run(root, mirror, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("priscrowd")
    _snakemake(root, workdir, mirror, "priscrowd")
    return workdir


@pytest.mark.parametrize(
    "edit, reruns, untouched",
    [
        # Fig. 5's block: only the timing jobs and the figure (then the claims) re-run
        ({"fig5": {"m": [1, 30], "timing_calls": 6}},
         {"priscrowd_timing", "priscrowd_fig5", "priscrowd_claims"},
         {"priscrowd_run", "priscrowd_simulated"}),
        # a new p in Table 2: only its own simulation job
        ({"table2": {"p": [0.1, 0.3, 0.5, 0.6]}},
         {"priscrowd_simulated", "priscrowd_table2", "priscrowd_claims"},
         {"priscrowd_run", "priscrowd_timing"}),
        # Fig. 4's sweep: the per-dataset runs score it, not the timings or the simulations
        ({"fig4": {"m": [1, 10, 30]}},
         {"priscrowd_run", "priscrowd_fig4"},
         {"priscrowd_timing", "priscrowd_simulated"}),
        # a claim threshold: only the claims
        ({"claims": {"linear_r2": 0.8}}, {"priscrowd_claims"},
         {"priscrowd_run", "priscrowd_timing", "priscrowd_simulated", "priscrowd_fig5"}),
    ],
)
def test_editing_one_block_reruns_only_its_jobs(root, mirror, quick_run, tmp_path, edit, reruns,
                                                 untouched):
    override = tmp_path / "edit.yaml"
    override.write_text(yaml.safe_dump({"priscrowd": edit}))
    planned = _planned(_snakemake(root, quick_run, mirror, "-n", "priscrowd",
                                  overrides=[str(override)]))
    assert reruns <= set(planned), planned
    assert not untouched & set(planned), planned
    if "table2" in edit:
        assert planned["priscrowd_simulated"] == 1
