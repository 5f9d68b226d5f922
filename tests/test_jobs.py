"""What each job reads from the config: one owner per paper (JOB_KEYS), params that change only
with the values a job reads, key paths named inside the job, and TABLE_KEYS that agree."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import fields

import numpy as np
import yaml
import pytest

import crowdpriv.ldp_sparse as ldp
import crowdpriv.ldp_sparse._readings as ldp_readings
import crowdpriv.pptd as pptd
import crowdpriv.priscrowd as pris
import crowdpriv.priscrowd._readings as pris_readings
from crowdpriv._checks import ParameterError
from crowdpriv.jobs import key_paths, ordered_like, select
from crowdpriv.readings import Reading, rerun_keys
from crowdpriv.runtime import config_key_message


def test_select_takes_the_keys_in_their_order_and_omits():
    block = {"b": 1, "a": {"y": [1, 2], "x": 3}, "c": 4}
    out = select(block, ["a", "b", "missing", "c.deeper"], omit=["a.y"])
    assert out == {"a": {"x": 3}, "b": 1} and list(out) == ["a", "b"]
    assert block["a"]["y"] == [1, 2]  # a copy: the config is untouched
    assert select(block, ["a.y"]) == {"a": {"y": [1, 2]}}


def test_ordered_like_puts_the_template_order_first():
    value = {"z": 1, "table2": {"p": [1], "workers": 3}, "m": 2}
    template = {"m": 0, "table2": {"workers": 0, "p": 0}}
    out = ordered_like(value, template)
    assert list(out) == ["m", "table2", "z"] and list(out["table2"]) == ["workers", "p"]
    assert repr(ordered_like({"m": 2, "z": 1, "table2": {"workers": 3, "p": [1]}}, template)) \
        == repr(out)


def test_key_paths_name_the_shallowest_then_the_first_listed():
    tree = {"pptd": {"fig3": {"lambda1": [1.0], "epsilons": [1]},
                     "synthetic": {"lambda1": 2.0, "workers": 150}, "m": 3,
                     "fig4": {"m": [1, 40]}}}
    keys = key_paths(tree)
    assert keys["lambda1"] == "pptd.fig3.lambda1"  # the figure's block is listed first
    assert keys["epsilon"] == keys["epsilons"] == "pptd.fig3.epsilons"
    assert keys["m"] == "pptd.m" and keys["fig4.m"] == "pptd.fig4.m"
    assert keys["workers"] == "pptd.synthetic.workers"
    err = ParameterError("fig4.m", 40, "too big")
    assert config_key_message(err, keys, tree) == "config key pptd.fig4.m[1] = 40: too big"


def _jobs(config):
    """(paper module, job name, job params) of every job kind of the three papers."""
    out = [(pris, job, pris.job_params(config["priscrowd"], job)) for job in pris.JOB_KEYS]
    out += [(pptd, job, pptd.job_params(config["pptd"], job)) for job in pptd.JOB_KEYS]
    out += [(ldp, job, ldp.job_params(config["ldp_sparse"], job)) for job in ldp.JOB_KEYS]
    return out


def test_every_job_key_exists_in_the_default_config(default_config):
    for core, job, _ in _jobs(default_config):
        block = default_config[core.__name__.split(".")[-1]]
        for key in core.JOB_KEYS[job]:
            node = block
            for part in key.split("."):
                assert part in node, (core.__name__, job, key)
                node = node[part]


def test_params_change_only_with_a_value_the_job_reads(default_config):
    """Reordering the config or adding an unread key leaves every job's params' repr alone;
    changing a read value changes it."""
    before = {(c.__name__, j): repr(p) for c, j, p in _jobs(default_config)}
    shuffled = copy.deepcopy(default_config)
    for paper in ("priscrowd", "pptd", "ldp_sparse"):
        block = shuffled[paper]
        shuffled[paper] = dict(reversed(list(block.items())))
        shuffled[paper]["readings"]["alternatives"]["extra_reading"] = {"axis": "x", "why": "y"}
    shuffled["priscrowd"]["table2"]["p"] = [0.1, 0.6]
    shuffled["ldp_sparse"]["fig2"]["sparsities"] = [0.9]
    ordered = ordered_like(shuffled, default_config)
    after = {(c.__name__, j): repr(p) for c, j, p in _jobs(ordered)}
    assert after == before
    ordered["priscrowd"]["k"] = 6
    changed = {key for key, p in ((
        (c.__name__, j), repr(p)) for c, j, p in _jobs(ordered)) if p != before[key]}
    assert changed == {("crowdpriv.priscrowd", job) for job in ("run", "simulated", "timing",
                                                                "audit")}


def test_priscrowd_jobs_cover_every_params_field():
    """Params.from_mapping takes a default for a missing key: every field must be listed."""
    listed = set(pris_readings._FIT + pris_readings._RELEASE + pris_readings._SCORE
                 + pris_readings._BUDGET)
    assert listed == {f.name for f in fields(pris.Params)}


class Recorder(Mapping):
    """A config block that records the dotted path of every key read from it."""

    def __init__(self, data, seen, prefix=""):
        self._data, self._seen, self._prefix = data, seen, prefix

    def __getitem__(self, key):
        path = f"{self._prefix}{key}"
        self._seen.add(path)
        value = self._data[key]
        return Recorder(value, self._seen, f"{path}.") if isinstance(value, Mapping) else value

    def __iter__(self):
        self._seen.add(self._prefix.rstrip(".") or "*")
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):  # asking is not reading
        return key in self._data


def _within(paths, keys):
    return [p for p in paths if not any(p == k or p.startswith(f"{k}.") for k in keys)]


def _reads(monkeypatch, call, target, attr):
    """The kwargs ``call`` passes to ``target.attr`` (stubbed)."""
    seen = {}

    def stub(*args, **kwargs):
        seen.update(kwargs)
        raise StopIteration

    monkeypatch.setattr(target, attr, stub)
    with pytest.raises(StopIteration):
        call()
    return seen


@pytest.mark.parametrize("fig", ["fig2", "fig3", "fig4", "fig5", "fig6", "fig7", "fig8"])
def test_pptd_jobs_read_only_their_keys(default_config, fig):
    """The kwargs builders read nothing outside JOB_KEYS, and give the same kwargs from the
    job's params as from the whole block."""
    block = default_config["pptd"]
    builder = {"fig7": pptd.weights_params, "fig8": pptd.runtime_params}.get(
        fig, lambda b: pptd.tradeoff_params(b, fig))
    seen = set()
    builder(Recorder(block, seen))
    assert not _within(seen, pptd.JOB_KEYS[fig])
    assert builder(pptd.job_params(block, fig)["pptd"]) == builder(block)


@pytest.mark.parametrize("job", ["fig2", "fig3", "fig4", "fig5", "mf_sensitivity"])
def test_ldp_jobs_read_only_their_keys(default_config, monkeypatch, job):
    block = default_config["ldp_sparse"]
    if job == "mf_sensitivity":
        seen = set()
        ldp.mf_sensitivity_kwargs(Recorder(block, seen))
        assert not _within(seen, ldp.JOB_KEYS[job])
        return
    if job == "fig5":
        def call(b):
            return ldp.real_point(b, "web", None, None, seed=0)
        attr = "run_real_dataset"
    else:
        def call(b):
            return ldp.synthetic_point(b, job, 0.5, seed=0)
        attr = "run_synthetic_point"
    seen = set()
    full = _reads(monkeypatch, lambda: call(Recorder(block, seen)), ldp_readings, attr)
    assert not _within(seen, ldp.JOB_KEYS[job])
    assert _reads(monkeypatch, lambda: call(ldp.job_params(block, job)["ldp_sparse"]),
                  ldp_readings, attr) == full


#: A PrisCrowd block with every Params field off its default (valid), so that a field a job
#: reads but its params leave out would show as a difference.
_PRIS_OFF_DEFAULT = dict(
    units="raw", bandwidth="silverman", mad_min=1e-5, h_min=0.1,
    hampel_quantiles=[0.4, 0.7, 0.9], hampel_update=True, max_iter=50, tol=1e-7, m=20, k=6,
    gamma=3.0, eps0=0.5, batch_size=5, max_candidates=100, uniform_test=False, repetitions=3,
    basic_epsilons={"Strong": 0.2}, sise="sqrt", basic_sensitivity="records", t=2,
    delta_exponent="epsilon")


def test_priscrowd_jobs_read_only_their_keys(default_config, monkeypatch, tmp_path):
    """Outside Params (which takes every field the block has), a job reads only its keys; the
    Params fields it lists, and every other argument, are the same from its params as from
    the whole block."""
    block = {**default_config["priscrowd"], **_PRIS_OFF_DEFAULT}
    assert set(_PRIS_OFF_DEFAULT) == {f.name for f in fields(pris.Params)}
    claims, truth = tmp_path / "claims.csv", tmp_path / "truth.csv"
    claims.write_text("task,worker,value\na,1,1.0\na,2,2.0\nb,1,3.0\nb,2,4.5\n")
    truth.write_text("task,truth\na,1.5\nb,3.5\n")
    calls = {
        "run": (lambda b: pris.dataset_run(b, "d", claims, truth, seed=0), "run_real_dataset"),
        "simulated": (lambda b: pris.simulated_run(b, 0.1, seed=0), "run_simulated"),
        "timing": (lambda b: pris.timing_run(b, "d", claims, truth, seed=0), "time_phase2"),
    }
    names = {f.name for f in fields(pris.Params)}

    def shown(kwargs, job):
        listed = [k for k in pris.JOB_KEYS[job] if k in names]
        return {k: ({f: getattr(v, f) for f in listed} if isinstance(v, pris.Params)
                    else v.bit_generator.state if isinstance(v, np.random.Generator)
                    else repr(v)) for k, v in kwargs.items()}

    for job, (call, attr) in calls.items():
        seen = set()
        full = _reads(monkeypatch, lambda: call(Recorder(block, seen)), pris_readings, attr)
        assert not _within(seen, [*pris.JOB_KEYS[job], *names]), job
        sub = _reads(monkeypatch, lambda: call(pris.job_params(block, job)["priscrowd"]),
                     pris_readings, attr)
        assert shown(sub, job) == shown(full, job), job


@pytest.mark.parametrize("core", [pris, pptd, ldp])
def test_table_keys_derive_from_the_job_keys(core):
    """Each table of the claims reads the keys of the jobs that make it (and nothing a job
    reads is missing from the tables it feeds)."""
    feeds = {
        "crowdpriv.priscrowd": {"run": ["table1", "fig4", "fig3_ise", "fig3_claims", "budget",
                                        "fig5"], "simulated": ["table2"]},
        "crowdpriv.pptd": {f: [f] for f in ("fig2", "fig3", "fig4", "fig5", "fig6", "fig7",
                                            "fig8")},
        "crowdpriv.ldp_sparse": {f: [f] for f in ("fig1", "fig2", "fig3", "fig4", "fig5")},
    }[core.__name__]
    for job, tables in feeds.items():
        for table in tables:
            assert set(core.JOB_KEYS[job]) <= set(core.TABLE_KEYS[table]), (job, table)


def test_a_reading_reruns_with_only_the_keys_of_its_tables(default_config):
    table_keys = {"t1": ["a", "fig2"], "t2": ["b"], "t3": ["a", "c"]}
    touching_a = Reading(name="r", axis="x", why="y", override={"a": 1})
    assert rerun_keys(touching_a, table_keys) == ["a", "fig2", "c"]
    assert rerun_keys(touching_a, table_keys, not_rerun=["t1"]) == ["a", "c"]
    derived = Reading(name="q", axis="x", why="y", override={"b": 2})
    assert rerun_keys(derived, table_keys, {"b": None}) == ["b"]
    # the PrisCrowd readings that re-run Table 2 read its list of p; sise_sqrt reads only sise
    block = default_config["priscrowd"]
    from crowdpriv.readings import parse_readings
    readings = {r.name: r for r in parse_readings(block["readings"], where="priscrowd.readings")}
    keys = rerun_keys(readings["sise_sqrt"], pris.TABLE_KEYS, pris.DERIVED_KEYS)
    assert keys == ["sise"]
    assert "table2" in rerun_keys(readings["raw_units"], pris.TABLE_KEYS, pris.DERIVED_KEYS)
    assert select(block, keys) == {"sise": "squared"}


def test_job_params_are_plain_values(default_config):
    for _, _, params in _jobs(default_config):
        assert isinstance(params, dict) and len(params) == 1
        assert yaml.safe_load(yaml.safe_dump(params)) == params  # plain data, no objects
