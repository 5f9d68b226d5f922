"""A new mechanism is one file plus one registration (issue 24's acceptance).

The toy below — k-ary randomized response on the answered cells only, NULLs left as they are
(what ``crowdpriv.examples.RRAnswersOnly`` does) — is written into a folder of its own, outside
the repository, and registered by its ``module:object`` path only. It then passes the contract,
runs in an LDP-sparse sweep from config, joins the privacy audit, and releases through
``crowdpriv perturb`` with a ledger: no file of the repository names it.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

TOY = '''
"""A toy mechanism: k-ary randomized response on the answered cells; NULL stays NULL."""
from dataclasses import dataclass

import numpy as np

from crowdpriv.audit import Case
from crowdpriv.mechanisms import Claimed, Guarantee, LawCheck, Mechanism, Perturbed


@dataclass(frozen=True)
class ToySettings:
    """No settings: the channel follows from epsilon and the domain."""


class ToyRR(Mechanism):
    id = "toy-rr"
    label = "Toy-RR"
    summary = "k-ary randomized response on answered cells (a toy)"
    Settings = ToySettings
    parts = frozenset({"sweep", "stream", "release", "audit", "law"})
    releases_labels = True

    def draw_spec(self, shape, settings, dtype):
        return ((shape, dtype), (shape, np.int8))

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        u = rng.random(np.shape(codes), dtype=dtype)
        shift = rng.integers(1, domain_size, size=np.shape(codes), dtype=np.int8)
        if out is not None:
            out[0][...], out[1][...] = u, shift
            return out
        return u, shift

    def apply(self, codes, draws, epsilon, settings, *, domain_size, state=None):
        u, shift = draws
        k = int(domain_size)
        keep = np.exp(epsilon) / (k - 1 + np.exp(epsilon))
        flip = (codes != k) & (u >= keep)
        out = np.array(codes, copy=True)
        out[flip] = (out[flip] + shift[flip]) % k
        return Perturbed(out, k)

    def claimed(self, settings, epsilon, *, domain_size=None):
        return Claimed(float(epsilon), 0.0, "answered cell", "k-ary RR", "one answered cell")

    def guarantee(self, settings, shape, epsilon, *, domain_size=None):
        return Guarantee(float("inf"), 0.0, "cell", float("inf"), 0.0, "NULLs not protected",
                         float("inf"), False, "NULL stays NULL: distinguished with certainty")

    def audit_cases(self, settings, epsilon, *, domain_size=None):
        k = int(domain_size)

        def sample(rng, n, which):
            codes = np.full((n, 1), 0 if which == "D" else 1, dtype=np.int8)
            out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
            return np.asarray(out.values).ravel().astype(float)

        return [Case("user", self.label, "one answered cell, 0 vs 1", float(epsilon), 0.0,
                     sample, exact_epsilon=float(epsilon), discrete=True)]

    def law(self, settings, epsilon, *, domain_size=None):
        k = int(domain_size)
        e = np.exp(epsilon)
        probs = np.r_[e, np.ones(k - 1), 0.0] / (k - 1 + e)

        def sample(rng, n):
            codes = np.zeros((n, 1), dtype=np.int8)
            out = self.perturb(codes, epsilon, settings, rng=rng, domain_size=k)
            return np.asarray(out.values).ravel().astype(np.int64)

        return [LawCheck("answered 0", sample, support=np.arange(k + 1), probabilities=probs)]
'''


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("toy")
    (folder / "toy_mechanism.py").write_text(TOY)
    return folder


def test_the_repository_does_not_name_the_toy(root):
    hits = [p for p in (root / "scripts").rglob("*.py") if "toy-rr" in p.read_text()]
    hits += [p for p in (root / "config").rglob("*.yaml") if "toy-rr" in p.read_text()]
    assert hits == []


def test_the_toy_passes_the_contract(toy, monkeypatch):
    from crowdpriv import mechanisms
    from crowdpriv.mechanisms.contract import check_mechanism

    monkeypatch.syspath_prepend(str(toy))
    importlib.invalidate_caches()
    mech = mechanisms.load("toy_mechanism:ToyRR")
    assert mechanisms.get("toy-rr") is mech and "toy-rr" in mechanisms.ids(part="sweep")
    report = check_mechanism(mech)
    assert all(p > 1e-4 for checks in report["law"].values() for _, p in checks)


def _env(toy):
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(toy), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.e2e
def test_the_toy_runs_in_a_sweep_and_in_the_audit_from_config(root, toy, tmp_path, mirror):
    override = tmp_path / "toy.yaml"
    override.write_text(yaml.safe_dump({"ldp_sparse": {
        "mechanisms": {"extra": ["toy_mechanism:ToyRR"]},
        "fig2": {"methods": ["lp", "rr", "mf", "toy-rr"]}}}))
    sweep = "results/ldp_sparse/raw/fig2/sparsity_0.9.csv"
    audit = "results/privacy_audit/audit.csv"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "-d",
           str(tmp_path), "--cores", "2", sweep, audit, "--configfile",
           str(root / "config/config.yaml"), str(root / "config/quick.yaml"), str(override),
           "--config", f"mirror_dir={mirror}"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=_env(toy))
    assert run.returncode == 0, run.stderr[-3000:]
    raw = pd.read_csv(tmp_path / sweep)
    assert set(raw["method"]) == {"LP", "RR", "MF", "Toy-RR"}
    toy_rows = raw.loc[raw["method"] == "Toy-RR"]
    assert len(toy_rows) == len(raw.loc[raw["method"] == "RR"]) and toy_rows["bound"].isna().all()
    table = pd.read_csv(tmp_path / audit)
    rows = table.loc[table["mechanism"] == "Toy-RR"]
    assert len(rows) == 1 and rows["verdict"].iloc[0] == "not refuted"


@pytest.mark.e2e
def test_the_toy_releases_through_the_cli_with_a_ledger(root, toy, tmp_path):
    script = Path(sys.executable).with_name("crowdpriv")
    answers = tmp_path / "answers.csv"
    answers.write_text("task,worker,label\n" + "".join(
        f"t{t},w{w},{(t + w) % 5}\n" for w in range(8) for t in range(6) if (t * w) % 3))
    base = [str(script), "--register", "toy_mechanism:ToyRR"]
    release = [*base, "perturb", "toy-rr", str(answers), "-o", str(tmp_path / "out.csv"),
               "--epsilon", "1", "--domain", "5"]
    refused = subprocess.run(release, capture_output=True, text=True, timeout=300,
                             env=_env(toy))
    assert refused.returncode == 2 and "--allow-unsafe" in refused.stderr  # ε = ∞ as run
    assert not (tmp_path / "out.csv").exists()
    run = subprocess.run([*release, "--allow-unsafe"], capture_output=True, text=True,
                         timeout=300, env=_env(toy))
    assert run.returncode == 0, run.stderr
    ledger = json.loads((tmp_path / "out.csv.privacy.json").read_text())
    assert ledger["mechanism"] == "toy-rr" and ledger["spent"]["epsilon"] == 1.0
    assert ledger["guarantee"]["record_epsilon"] == "inf"
    out = pd.read_csv(tmp_path / "out.csv")
    assert len(out) == len(pd.read_csv(answers))  # NULLs stay NULL: one row per answer
    audit = subprocess.run([*base, "audit", "toy-rr", "-o", str(tmp_path / "audit.csv"),
                            "--epsilon", "1", "--samples", "20000"],
                           capture_output=True, text=True, timeout=300, env=_env(toy))
    assert audit.returncode == 0, audit.stderr
    assert pd.read_csv(tmp_path / "audit.csv")["mechanism"].tolist() == ["Toy-RR"]
    unknown = subprocess.run([str(script), "perturb", "toy-rr", str(answers), "-o",
                              str(tmp_path / "x.csv"), "--epsilon", "1", "--domain", "5"],
                             capture_output=True, text=True, timeout=300, env=_env(toy))
    assert unknown.returncode == 2 and "invalid choice: 'toy-rr'" in unknown.stderr
