"""The README's "Extending" examples, run for real: a sweep point, a dataset, a mechanism."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from crowdpriv.data import import_claims_table


def _snakemake(root, workdir, mirror, *args, overrides=()):
    configs = [str(root / "config/config.yaml"), str(root / "config/quick.yaml"), *overrides]
    cmd = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d", str(workdir),
           "--cores", "2", *args, "--configfile", *configs, "--config", f"mirror_dir={mirror}"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def _readme_counts(root) -> dict[str, int]:
    """The README's jobs per example after a quick run (its Extending table)."""
    lines = [x for x in (root / "README.md").read_text().splitlines() if x.strip().startswith("|")]
    header = next(x for x in lines if "after a quick run" in x)
    column = [c.strip() for c in header.strip().strip("|").split("|")].index("after a quick run")
    counts = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        found = re.match(r"`(add_\w+)\.yaml`", cells[0])
        if found:
            counts[found.group(1)] = int(cells[column])
    return counts


@pytest.fixture(scope="module")
def quick_run(root, tmp_path_factory, mirror):
    """The two paper targets the examples extend, run once at the quick sizes."""
    work = tmp_path_factory.mktemp("quick")
    run = _snakemake(root, work, mirror, "priscrowd", "ldp_sparse")
    assert run.returncode == 0, run.stderr[-3000:]
    return work


@pytest.mark.e2e
@pytest.mark.parametrize(("example", "target"), [("add_sweep_point", "priscrowd"),
                                                 ("add_dataset", "priscrowd"),
                                                 ("add_mechanism", "ldp_sparse")])
def test_an_example_runs_only_what_it_changes(root, quick_run, mirror, example, target):
    """After a quick run, each README example schedules the number of jobs the README states
    (its own jobs, the readings reaching them, the tables gathering them); nothing else."""
    plan = _snakemake(root, quick_run, mirror, "-n", target,
                      overrides=[str(root / f"config/examples/{example}.yaml")])
    assert plan.returncode == 0, plan.stderr[-3000:]
    stats = plan.stdout[plan.stdout.index("Job stats:"):]
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", stats.split("\n\n")[0], flags=re.MULTILINE))
    total = int(jobs.pop("total"))
    assert total == _readme_counts(root)[example], plan.stdout[-3000:]
    # never the jobs of the other papers, never an experiment the example does not reach
    assert not {"pptd_synthetic_tradeoff", "pptd_runtime", "preprocess_stock_surrogate"} & set(jobs)
    if example != "add_dataset":
        assert "priscrowd_run" not in jobs and "priscrowd_timing" not in jobs
    if example == "add_dataset":
        assert jobs["priscrowd_run"] == jobs["priscrowd_timing"] == "1"  # thermometers only


@pytest.mark.e2e
def test_add_a_sweep_point(root, tmp_path, mirror, quick_run):
    """Adding p = 0.6 to the list is all it takes, and only the new point's job runs (in a copy
    of the quick run, which made Table 2 at the quick points)."""
    example = root / "config/examples/add_sweep_point.yaml"
    dry = _snakemake(root, tmp_path / "example", mirror, "-n", "results/priscrowd/table2.csv",
                     overrides=[str(example)])
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "results/priscrowd/runs/simulated/p0.6/table.csv" in dry.stdout

    quick = yaml.safe_load((root / "config/quick.yaml").read_text())
    base = yaml.safe_load((root / "config/config.yaml").read_text())
    points = quick.get("priscrowd", {}).get("table2", {}).get(
        "p", base["priscrowd"]["table2"]["p"]
    )
    target = "results/priscrowd/table2.csv"
    work = tmp_path / "run"
    shutil.copytree(quick_run, work, symlinks=True)  # copy2: modification times kept
    first = _snakemake(root, work, mirror, "-n", target)
    assert first.returncode == 0 and "Nothing to be done" in first.stdout + first.stderr, \
        first.stdout[-3000:]
    extended = tmp_path / "extended.yaml"
    extended.write_text(yaml.safe_dump({"priscrowd": {"table2": {"p": [*points, 0.6]}}}))
    plan = _snakemake(root, work, mirror, "-n", target, overrides=[str(extended)])
    assert plan.returncode == 0, plan.stderr[-3000:]
    counts = re.findall(r"^priscrowd_simulated\s+(\d+)$", plan.stdout, flags=re.MULTILINE)
    assert counts and set(counts) == {"1"}, plan.stdout[-2000:]  # p = 0.6 only
    run = _snakemake(root, work, mirror, target, overrides=[str(extended)])
    assert run.returncode == 0, run.stderr[-3000:]
    table2 = pd.read_csv(work / target)
    assert 0.6 in set(table2["p"])


@pytest.mark.e2e
def test_add_a_dataset(root, tmp_path, mirror):
    """A user's own claims/truth CSVs become a dataset that PrisCrowd runs on."""
    override = root / "config/examples/add_dataset.yaml"
    run = _snakemake(root, tmp_path, mirror, "results/priscrowd/runs/thermometers/table.csv",
                     overrides=[str(override)])
    assert run.returncode == 0, run.stderr[-3000:]
    claims = pd.read_csv(tmp_path / "data/processed/thermometers/claims.csv")
    assert claims["worker"].nunique() == 12 and claims["task"].nunique() == 15
    table = pd.read_csv(tmp_path / "results/priscrowd/runs/thermometers/table.csv")
    assert {"PrisCrowd", "Uniform"} <= set(table["method"])


@pytest.mark.e2e
def test_unknown_dataset_name_is_a_clear_error(root, tmp_path, mirror):
    bad = tmp_path / "bad.yaml"
    bad.write_text("priscrowd:\n  datasets: [population, thermometer]\n")
    run = _snakemake(root, tmp_path / "w", mirror, "-n", overrides=[str(bad)])
    assert run.returncode != 0
    assert "priscrowd.datasets names unknown dataset(s) ['thermometer']" in run.stdout + run.stderr


def test_import_claims_table_checks(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("object,source,value\nroom1,a,20.5\nroom1,b,21\nroom1,a,22\n")
    with pytest.raises(ValueError, match="line 4, column 'worker': duplicate row for "
                       "task='room1', worker='a'"):
        import_claims_table(path)
    path.write_text("object,source,value\n")
    with pytest.raises(ValueError, match="empty"):
        import_claims_table(path)
    path.write_text("object,source\nroom1,a\n")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['value'\]"):
        import_claims_table(path)
    path.write_text("object,source,value\nroom1,a,20.5\nroom1,b,21\n")
    truth = tmp_path / "truth.csv"
    truth.write_text("object,truth\nroom1,20.8\nroom9,3\n")
    claims, truth_table = import_claims_table(path, truth)  # object/source: input aliases
    assert truth_table.to_dict("list") == {"task": ["room1"], "truth": [20.8]}
    np.testing.assert_allclose(claims["value"], [20.5, 21.0])
    assert list(claims.columns) == ["task", "worker", "value"]
    path.write_text("task,worker,value\nroom1,a,20.5\nroom1,b,21\n")
    assert import_claims_table(path)[0].equals(claims)
    path.write_text("task,object,worker,value\nroom1,room1,a,20.5\n")
    with pytest.raises(ValueError, match="both 'object' and 'task'"):
        import_claims_table(path)


@pytest.mark.e2e
def test_add_a_mechanism(root, tmp_path, mirror):
    """A user's mechanism, registered in config, runs beside LP/RR/MF in Fig. 2's job."""
    override = root / "config/examples/add_mechanism.yaml"
    target = "results/ldp_sparse/raw/fig2/sparsity_0.5.csv"
    run = _snakemake(root, tmp_path, mirror, target, overrides=[str(override)])
    assert run.returncode == 0, run.stderr[-3000:]
    raw = pd.read_csv(tmp_path / target)
    assert set(raw["method"]) == {"LP", "RR", "MF", "RR-answers-only"}
    ours = raw.loc[raw["method"] == "RR-answers-only", "mae_change"]
    assert np.isfinite(ours).all()


@pytest.mark.e2e
def test_unknown_mechanism_is_a_clear_error(root, tmp_path, mirror):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ldp_sparse:\n  fig2: {methods: [lp, RRR]}\n")
    run = _snakemake(root, tmp_path / "w", mirror, "-n", overrides=[str(bad)])
    assert run.returncode != 0
    assert "ldp_sparse.fig2.methods names unknown mechanism(s) ['RRR']" in run.stdout + run.stderr


def test_example_mechanism_keeps_nulls_and_its_probability():
    from crowdpriv import mechanisms
    from crowdpriv.examples import rr_answers_only

    rng = np.random.default_rng(5)
    answers = np.where(rng.random((400, 500)) < 0.3, np.nan, rng.integers(0, 10, (400, 500)))
    out = rr_answers_only(answers, 1.0, rng=rng, domain_size=10)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(answers))
    answered = ~np.isnan(answers)
    kept = (out[answered] == answers[answered]).mean()
    assert kept == pytest.approx(np.e / (9 + np.e), abs=0.005)
    assert set(np.unique(out[answered])) <= set(range(10))
    # a plain function (earlier versions' form) is still accepted, wrapped as a mechanism
    wrapped = mechanisms.load("crowdpriv.examples:rr_answers_only", name="rr-function")
    assert wrapped.func is rr_answers_only and wrapped.label == "rr-function"
    with pytest.raises(ValueError, match="module:object"):
        mechanisms.load("rr_answers_only")
    with pytest.raises(ValueError, match="cannot load mechanism"):
        mechanisms.load("crowdpriv.examples:nope")


@pytest.mark.e2e
def test_malformed_dataset_fails_cleanly(root, tmp_path, mirror):
    """A non-numeric value stops the import with the file and row named, and no output is left."""
    claims = tmp_path / "claims.csv"
    claims.write_text("object,source,value\nroom1,a,20.5\nroom1,b,warm\n")
    override = tmp_path / "bad_data.yaml"
    override.write_text(f"custom_datasets:\n  rooms:\n    claims: {claims}\n")
    work = tmp_path / "w"
    run = _snakemake(root, work, mirror, "data/processed/rooms/claims.csv",
                     overrides=[str(override)])
    assert run.returncode != 0
    log = (work / "results/logs/data/preprocess/rooms.log").read_text()
    assert "line 3, column 'value': value is not a number" in log and "'warm'" in log
    assert str(claims) in log
    assert not (work / "data/processed/rooms").exists() or not any(
        (work / "data/processed/rooms").iterdir()
    )
