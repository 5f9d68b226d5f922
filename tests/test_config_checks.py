"""Checks across config keys, made before any job (crowdpriv.config_checks): the default config
passes; each bad value is named by its key path and value."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

from crowdpriv.config_checks import check_config, config_problems


@pytest.fixture()
def config(default_config):
    return copy.deepcopy(default_config)


def test_the_default_config_has_no_problem(config, root):
    assert config_problems(config, root=str(root)) == []
    check_config(config, root=str(root))


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("priscrowd.t", 5, "config key priscrowd.t = 5: t must satisfy 1 <= t < k=5"),
        ("priscrowd.hampel_quantiles", [0.5, 0.4, 0.9],
         "config key priscrowd.hampel_quantiles = [0.5, 0.4, 0.9]: hampel_quantiles must be 3 "
         "increasing"),
        ("priscrowd.fig4.m", [1, 40], "config key priscrowd.fig4.m[1] = 40: fig4.m must be "
         "integers in [1, m=30]"),
        ("priscrowd.fig5.m", [31], "config key priscrowd.fig5.m[0] = 31: fig5.m must be"),
        ("priscrowd.table2.high", -1.0, "config key priscrowd.table2.high = -1.0: high must "
         "exceed low=0.0"),
        ("pptd.synthetic.truth_range", [5.0, 1.0], "config key pptd.synthetic.truth_range = "
         "[5.0, 1.0]: truth_range must be finite and increasing"),
        ("ldp_sparse.mechanisms.lp_null_fill", 7, "config key ldp_sparse.mechanisms."
         "lp_null_fill = 7: lp_null_fill must lie in [0, 4], got 7 (LP's NULL answers become "
         "this label of Γ = 0..4, real_domain_size 5)"),
        ("ldp_sparse.synthetic_domain_size", 64, "config key ldp_sparse.synthetic_domain_size "
         "= 64: synthetic_domain_size must be at most 63"),
        ("datasets.indoor_surrogate.min_claims_per_segment", 300,
         "config key datasets.indoor_surrogate.min_claims_per_segment = 300"),
        ("datasets.indoor_surrogate.length_range", [5, 2],
         "config key datasets.indoor_surrogate.length_range = [5, 2]: length_range must be "
         "increasing"),
        ("datasets.indoor_surrogate.step_noise_range", [0.2, 0.1],
         "config key datasets.indoor_surrogate.step_noise_range = [0.2, 0.1]"),
        ("datasets.indoor_surrogate.walks_lognormal", [2.0, -1.0],
         "config key datasets.indoor_surrogate.walks_lognormal = [2.0, -1.0]"),
        ("datasets.stock_surrogate.coverage", [0.8, 0.5],
         "config key datasets.stock_surrogate.coverage = [0.8, 0.5]"),
        ("ldp_sparse.readings.not_rerun", ["fig44"],
         "config key ldp_sparse.readings.not_rerun = ['fig44']: not_rerun names no table"),
        ("custom_datasets", {"mine": {"claims": "no/such.csv"}},
         "config key custom_datasets.mine.claims = 'no/such.csv': no such file"),
    ],
)
def test_each_bad_value_is_named(config, root, path, value, message):
    node = config
    *parents, last = path.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    problems = config_problems(config, root=str(root))
    assert len(problems) == 1 and problems[0].startswith(message), problems
    with pytest.raises(ValueError, match="the config has a problem"):
        check_config(config, root=str(root))


def test_a_reading_may_only_name_the_papers_methods(config, root):
    alternatives = config["priscrowd"]["readings"]["alternatives"]
    alternatives["cap_3000"]["methods"] = ["PrisCrowd", "Unifrom"]
    assert config_problems(config, root=str(root)) == [
        "config key priscrowd.readings.alternatives.cap_3000.methods = ['PrisCrowd', "
        "'Unifrom']: ['Unifrom'] is not a method of the paper's runs (known: ['PrisCrowd', "
        "'Uniform', 'Basic(Strong)', 'Basic(Normal)', 'Basic(Weak)'])"]


def test_every_problem_is_listed_at_once(config, root):
    config["priscrowd"]["t"] = 9
    config["pptd"]["synthetic"]["truth_range"] = [1.0, 1.0]
    with pytest.raises(ValueError, match="the config has 2 problems") as err:
        check_config(config, root=str(root))
    assert "priscrowd.t = 9" in str(err.value) and "pptd.synthetic.truth_range" in str(err.value)


@pytest.mark.e2e
def test_a_bad_value_stops_any_target_before_a_job(root, tmp_path):
    """t >= k used to pass when the target was Table 2's simulated run, which does not read t;
    now every target stops at start-up with the key and its value, and so does a reading whose
    override breaks a check."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("priscrowd:\n  t: 5\n  k: 5\n")
    target = "results/priscrowd/runs/simulated/p0.1/table.csv"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d",
           str(tmp_path / "w"), "-n", "--configfile", str(root / "config/config.yaml"),
           str(bad), "--", target]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    assert "config key priscrowd.t = 5: t must satisfy 1 <= t < k=5" in run.stdout + run.stderr
    readings = [  # an override that breaks a check, then one the schema rejects
        ("priscrowd", "big_t", "Theorem 2 t", "a reading that breaks t < k", "{t: 5}",
         "priscrowd.readings.alternatives.big_t (this reading's config): config key "
         "priscrowd.t = 5"),
        ("pptd", "no_reps", "PPTD repetitions", "a reading that breaks the schema",
         "{repetitions: -1}",
         "pptd.readings.alternatives.no_reps: the overridden config is invalid at "
         "pptd.repetitions: -1 is less than the minimum of 1"),
    ]
    for paper, name, axis, why, override, message in readings:
        bad.write_text(f"{paper}:\n  readings:\n    alternatives:\n      {name}:\n"
                       f"        axis: {axis}\n        why: {why}\n        set: {override}\n")
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert run.returncode != 0
        assert message in run.stdout + run.stderr
