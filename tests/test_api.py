"""crowdpriv.api in process: each mechanism's release through the registry, its settings and
ledger, and the errors a user meets (the CLI's tests run the same through the command)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import crowdpriv
from crowdpriv import api, mechanisms


def _answers(k=5, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(f"t{t}", f"w{w}", int(rng.integers(0, k))) for w in range(15) for t in range(12)
            if rng.random() < 0.4]
    return pd.DataFrame(rows, columns=["task", "worker", "label"])


def test_perturb_choices_are_the_registry_releases():
    assert api.perturb_mechanisms() == ("lp", "lp-snapped", "rr", "two-layer", "mf", "pptd",
                                        "rr-exact", "two-layer-exact", "mf-snapped",
                                        "pptd-laplace", "basic-snapped")
    assert api.release_mechanism("mf")[1].id == "mf-snapped"
    assert api.release_mechanism("rr")[1].id == "rr-exact"
    assert api.release_mechanism("two-layer")[1].id == "two-layer-exact"
    assert api.release_mechanism("lp")[1].id == "lp-snapped"
    assert api.release_mechanism("LP")[1].id == "lp-snapped"  # an alias at the edge
    with pytest.raises(ValueError, match="basic.* has no release"):
        api.release_mechanism("basic")


@pytest.mark.parametrize("mech_id, column, dense", [("lp", "value", True), ("rr", "label", False),
                                                    ("two-layer", "label", False),
                                                    ("mf", "value", True)])
def test_each_release_has_its_columns_rows_and_ledger(mech_id, column, dense):
    answers = _answers()
    with pytest.warns(UserWarning, match="NOT private"):
        out = crowdpriv.perturb(answers, mech_id, epsilon=1.0, domain=5, seed=3, audit=False,
                                allow_unsafe=mech_id == "mf")
    assert list(out.data.columns) == ["task", "worker", column]
    cells = answers["task"].nunique() * answers["worker"].nunique()
    assert (len(out.data) == cells) if dense else (len(out.data) <= cells)
    if column == "label":
        assert out.data["label"].between(0, 4).all()
    ledger = out.ledger
    assert ledger["mechanism"] == mech_id and ledger["parameters"]["domain"] == 5
    assert ledger["input"]["rows"] == len(answers) and out.table.rows == len(out.data)
    assert ledger["input"]["sha256"] is None  # a DataFrame, not a file
    assert ledger["reproducible"] is True and ledger["seed"] == 3
    assert set(ledger["guarantee"]) >= {"record_epsilon", "worker_epsilon", "worker_rule"}


def test_the_same_seed_gives_the_same_release_and_another_seed_does_not():
    answers = _answers()
    with pytest.warns(UserWarning):
        a = crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=5, seed=1, audit=False)
        b = crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=5, seed=1, audit=False)
        c = crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=5, seed=2, audit=False)
    assert a.data.equals(b.data) and not a.data.equals(c.data)


def test_settings_reach_the_sampler_and_unknown_ones_are_refused():
    answers = _answers()
    with pytest.warns(UserWarning):
        out = crowdpriv.perturb(answers, "two-layer", epsilon=1.0, domain=5, seed=1,
                                audit=False, spread=0.25)
    assert out.ledger["parameters"]["spread"] == 0.25
    assert out.ledger["guarantee"]["record_epsilon"] == pytest.approx(1.25)
    with pytest.raises(ValueError, match="rr-exact has no setting 'lambda1'"):  # the sampler
        crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=5, lambda1=2.0)
    with pytest.raises(ValueError, match="needs --domain"):
        crowdpriv.perturb(answers, "rr", epsilon=1.0)
    with pytest.raises(ValueError, match="needs --lambda1"):
        crowdpriv.perturb(answers.rename(columns={"label": "value"}), "pptd", epsilon=1.0)


def test_audit_cases_take_the_user_settings_for_the_sampler_that_runs_and_the_shape():
    """The user's settings are the release sampler's (mf-snapped at d = 3: |T_i| = 6); the
    member asked for keeps its example settings (MF at d = 10: |T_i| = 20); the data's shape
    sets the whole-row case (a row of 150 answers)."""
    from crowdpriv.mechanisms._base import DataShape

    settings = mechanisms.get("mf-snapped").Settings(d=3)
    cases = api.audit_cases_for("mf", 1.0, 5, settings, DataShape(10, 600, 150))
    labels = {(c.mechanism, c.neighbours) for c in cases}
    assert ("MF release (snapped)", "one answered cell, 0 vs |Γ|-1, |T_i| = 6 >= d") in labels
    assert ("MF", "one answered cell, 0 vs |Γ|-1, |T_i| = 20 >= d") in labels
    assert ("MF", "a worker's whole row of 150 answers, all 0 vs all |Γ|-1 (likelihood "
                  "ratio)") in labels


def test_audit_caveats_cover_the_requested_member_and_the_sampler_that_runs():
    cases = api.audit_cases_for("lp", 1.0, 5)
    names = {c.mechanism for c in cases}
    assert names == {"LP", "LP release (snapped)"}
    assert {c.mechanism for c in api.audit_cases_for("rr", 1.0, 5)} == {
        "RR", "RR release (exact thresholds)"}


def test_audit_caveats_keep_the_rows_a_user_must_read(monkeypatch):
    """The ledger's caveats (api._audit_caveats) from the quick audit's table: violated, not
    claimed and not auditable rows, and not refuted rows about NULL; whether the evidence
    exceeds the claim (lower bound or exact ε above it), the exact ε when finite; the audit is
    run on the requested member's cases with the ledger's sample sizes."""
    from crowdpriv import audits

    inf, nan = float("inf"), float("nan")
    rows = [  # verdict, neighbours, claimed ε, lower bound, exact ε
        ("violated", "one cell, 0 vs 1", 1.0, 1.5, 2.0),
        ("not claimed", "a worker's whole row", 1.0, 0.5, inf),
        ("not auditable", "one cell, answered 0 vs NULL", 1.0, 1.0, nan),
        ("not refuted", "one cell, NULL vs answered 0", 1.0, 0.2, 1.0),
        ("not refuted", "one answered cell, 0 vs 1", 1.0, 0.9, 0.8),
        ("proved", "one cell, NULL vs 1", 1.0, 0.9, 1.0),
        ("violated", "one cell, 1 vs 2", 1.0, 1.5, 0.8),  # the lower bound alone exceeds
        ("not auditable", "a worker's whole vector", 1.0, 0.5, 3.0),  # the exact ε alone
    ]
    table = pd.DataFrame(rows, columns=["verdict", "neighbours", "claimed_epsilon",
                                        "epsilon_lower_bound", "exact_epsilon"])
    table["evidence"] = [f"evidence {i}" for i in range(len(rows))]
    seen = {}

    def fake_audit(cases, **kwargs):
        seen.update(cases=cases, **kwargs)
        return table

    monkeypatch.setattr(audits, "run_audit", fake_audit)
    out = api._audit_caveats("rr", 1.0, 5, mechanisms.get("rr-exact").Settings(), None)
    assert out == [
        {"neighbours": "one cell, 0 vs 1", "verdict": "violated", "claimed": True,
         "exceeds_claim": True, "epsilon": 2.0, "epsilon_lower_bound": 1.5,
         "evidence": "evidence 0"},
        {"neighbours": "a worker's whole row", "verdict": "not claimed", "claimed": False,
         "exceeds_claim": False, "epsilon": None, "epsilon_lower_bound": 0.5,
         "evidence": "evidence 1"},
        {"neighbours": "one cell, answered 0 vs NULL", "verdict": "not auditable",
         "claimed": True, "exceeds_claim": False, "epsilon": None, "epsilon_lower_bound": 1.0,
         "evidence": "evidence 2"},
        {"neighbours": "one cell, NULL vs answered 0", "verdict": "not refuted",
         "claimed": True, "exceeds_claim": False, "epsilon": 1.0, "epsilon_lower_bound": 0.2,
         "evidence": "evidence 3"},
        {"neighbours": "one cell, 1 vs 2", "verdict": "violated", "claimed": True,
         "exceeds_claim": True, "epsilon": 0.8, "epsilon_lower_bound": 1.5,
         "evidence": "evidence 6"},
        {"neighbours": "a worker's whole vector", "verdict": "not auditable", "claimed": True,
         "exceeds_claim": True, "epsilon": 3.0, "epsilon_lower_bound": 0.5,
         "evidence": "evidence 7"}]
    assert [type(c[k]) for c in out for k in ("exceeds_claim", "epsilon_lower_bound")] == \
        [bool, float] * 6
    assert seen["seed"] == 0 and seen["samples"] == 20_000
    assert seen["search_samples"] == 5_000 and seen["confidence"] == 0.99
    assert [c.neighbours for c in seen["cases"]] == [
        c.neighbours for c in api.audit_cases_for("rr", 1.0, 5,
                                                  mechanisms.get("rr-exact").Settings())]


def test_synthesize_reads_its_defaults_from_the_mechanism():
    rng = np.random.default_rng(1)
    claims = pd.DataFrame({"task": np.repeat([f"o{i}" for i in range(6)], 8),
                           "worker": np.tile([f"u{j}" for j in range(8)], 6),
                           "value": rng.normal(10, 2, 48)})
    with pytest.raises(ValueError, match="allow-unsafe"):
        crowdpriv.synthesize(claims, seed=4, m=5)
    with pytest.warns(UserWarning):
        out = crowdpriv.synthesize(claims, seed=4, m=5, allow_unsafe=True)
    assert out.ledger["weights"] == "uniform"  # the weights that carry a guarantee
    defaults = mechanisms.get("priscrowd").Settings()
    assert out.ledger["parameters"]["k"] == defaults.k and out.ledger["parameters"]["m"] == 5
    assert out.data.groupby("task")["claim"].max().max() <= 5
    budget = out.extra["budget"]
    want = defaults.eps0 + np.log1p(defaults.gamma / defaults.t * 1.0)  # uniform weights
    assert np.allclose(budget["epsilon"], want)
    with pytest.raises(ValueError, match="priscrowd has no setting 'lam'"):
        crowdpriv.synthesize(claims, lam=1)


def test_synthesize_releases_claims_in_the_data_units_numbered_from_1():
    """Alg. 1 runs on normalised claims; the release is mapped back (mean + scale·z): every
    released claim lies near a claim of its own object (two clusters, at c and c + 10, so a
    reflection about the mean would land between them), numbered 1..m, no object short of
    m, a fresh index; the warnings name the caller's line."""
    rng = np.random.default_rng(5)
    centres = 1000.0 + 100.0 * np.arange(6)
    sizes = [12, 13] * 3  # two claim counts: objects are released in two batches
    values = np.concatenate([rng.normal(c + np.r_[np.zeros(n - 3), np.full(3, 10.0)], 0.1)
                             for c, n in zip(centres, sizes)])
    claims = pd.DataFrame({"task": np.repeat([f"o{i}" for i in range(6)], sizes),
                           "worker": np.concatenate([[f"u{j}" for j in range(n)] for n in sizes]),
                           "value": values})
    with pytest.warns(UserWarning) as caught:
        out = crowdpriv.synthesize(claims, seed=4, m=4, allow_unsafe=True)
    assert {w.filename for w in caught} == {__file__}
    for task, group in out.data.groupby("task"):
        own = claims.loc[claims["task"] == task, "value"].to_numpy()
        assert np.abs(group["value"].to_numpy()[:, None] - own[None, :]).min(axis=1).max() < 2.0
    assert (out.data.groupby("task")["claim"].agg(["min", "max"]) == [1, 4]).all().all()
    assert out.ledger["objects_short_of_m"] == []
    assert out.data.index.equals(pd.RangeIndex(len(out.data)))
    assert out.extra["budget"].index.equals(pd.RangeIndex(6))


def test_synthesize_names_objects_short_of_m_and_at_most_5_without_a_guarantee():
    """k above every object's claims: no candidate passes Alg. 1's test, so every object is
    short of m, and has ε = ∞; the warning lists the first 5 of the 6."""
    rng = np.random.default_rng(6)
    claims = pd.DataFrame({"task": np.repeat([f"o{i}" for i in range(6)], 8),
                           "worker": np.tile([f"u{j}" for j in range(8)], 6),
                           "value": rng.normal(3, 1, 48)})
    with pytest.warns(UserWarning, match="6 object.s. have no Theorem 2") as caught:
        out = crowdpriv.synthesize(claims, seed=4, m=3, k=20, allow_unsafe=True)
    assert {w.filename for w in caught} == {__file__}  # the caller's line
    message = next(str(w.message) for w in caught if "Theorem 2" in str(w.message))
    assert message.endswith(": o0, o1, o2, o3, o4")
    assert sorted(out.ledger["objects_short_of_m"]) == [f"o{i}" for i in range(6)]


def test_perturb_audits_categorical_releases_unless_told_not_to(monkeypatch):
    """The ledger's audit caveats: by default for a categorical release, not with audit=False,
    never for a numeric one (PPTD)."""
    calls = []
    monkeypatch.setattr(api, "_audit_caveats", lambda *a: calls.append(a) or [{"stub": 1}])
    answers = _answers()
    out = crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=5, seed=1)
    assert out.ledger["audit_caveats"] == [{"stub": 1}] and calls[0][:3] == ("rr", 1.0, 5)
    out = crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=5, seed=1, audit=False)
    assert "audit_caveats" not in out.ledger and len(calls) == 1
    with pytest.warns(UserWarning, match="allow-unsafe") as caught:
        out = crowdpriv.perturb(answers.rename(columns={"label": "value"}), "pptd",
                                epsilon=1.0, seed=1, lambda1=2.0, allow_unsafe=True)
    assert {w.filename for w in caught} == {__file__}  # the caller's line
    assert "audit_caveats" not in out.ledger and len(calls) == 1


def test_perturb_domain_lies_between_2_and_the_largest_code():
    answers = _answers(k=2)
    for bad in (1, mechanisms.MAX_DOMAIN + 1):
        with pytest.raises(ValueError, match="domain"):
            crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=bad, seed=1, audit=False)
    for good in (2, mechanisms.MAX_DOMAIN):
        with pytest.warns(UserWarning) as caught:  # a seeded release is not private
            out = crowdpriv.perturb(answers, "rr", epsilon=1.0, domain=good, seed=1,
                                    audit=False)
        assert out.ledger["parameters"]["domain"] == good
        assert {w.filename for w in caught} == {__file__}  # the caller's line


def test_synthesize_takes_the_answer_table_already_read(tmp_path):
    # the pipeline's release job reads a dataset once for both seed weightings: a table
    # read_answer_table returned gives the release and the ledger of its file
    from crowdpriv.userfiles import read_answer_table

    rng = np.random.default_rng(2)
    path = tmp_path / "claims.csv"
    pd.DataFrame({"task": np.repeat([f"o{i}" for i in range(5)], 7),
                  "worker": np.tile([f"u{j}" for j in range(7)], 5),
                  "value": rng.normal(3, 1, 35)}).to_csv(path, index=False)
    table = read_answer_table(path)
    for weights in ("combined", "uniform"):
        with pytest.warns(UserWarning):
            from_path = crowdpriv.synthesize(path, seed=3, m=4, weights=weights,
                                             allow_unsafe=True)
        with pytest.warns(UserWarning):
            from_table = crowdpriv.synthesize(table, seed=3, m=4, weights=weights,
                                              allow_unsafe=True)
        pd.testing.assert_frame_equal(from_table.data, from_path.data)
        assert from_table.ledger == from_path.ledger and from_table.ledger["input"]["file"]
        assert from_table.inputs == from_path.inputs == (str(path),)


def test_docs_ledger_page_shows_the_schema_the_code_owns():
    import json
    import re

    from conftest import ROOT
    from crowdpriv.ledger import LEDGER_SCHEMA

    text = (ROOT / "docs/ledger.md").read_text()
    block = re.search(r"## Schema\n\n```json\n(.*?)```", text, re.S).group(1)
    assert json.loads(block) == LEDGER_SCHEMA


def test_a_fresh_300_by_40_file_gets_worst_case_headlines_and_a_valid_ledger(tmp_path):
    """Issue 25's acceptance on a fresh file: two-layer headlines 2ε per record (the
    supremum of its budget), rr states the per-worker total over the data's 300 tasks, and
    each ledger validates against the schema and describes the bytes written."""
    import json

    from crowdpriv.ledger import read_ledger, validate

    rng = np.random.default_rng(9)
    rows = [(f"t{t}", f"w{w}", int(rng.integers(0, 5))) for w in range(40) for t in range(300)
            if rng.random() < 0.3]
    path = tmp_path / "answers.csv"
    pd.DataFrame(rows, columns=["task", "worker", "label"]).to_csv(path, index=False)
    eps = 0.7
    for mech, per_record in (("two-layer", 2 * eps), ("rr", eps)):
        with pytest.warns(UserWarning):
            release = crowdpriv.perturb(path, mech, epsilon=eps, domain=5, seed=1,
                                        audit=False)
        out = tmp_path / f"{mech}.csv"
        ledger_file = api.write_release(release, out)
        ledger = json.loads(ledger_file.read_text())
        validate(ledger)
        assert read_ledger(out) == ledger
        head = ledger["headline"]
        assert head["per_record"]["epsilon"] == pytest.approx(per_record)
        assert head["per_worker"]["epsilon"] == pytest.approx(300 * per_record)
        assert "300 released cells" in head["per_worker"]["rule"]
        assert ledger["input"]["tasks"] == 300 and ledger["input"]["workers"] == 40
    # a changed data file no longer matches its ledger
    (tmp_path / "rr.csv").write_text((tmp_path / "rr.csv").read_text() + "t0,w0,1\n")
    from crowdpriv.ledger import LedgerMismatch

    with pytest.raises(LedgerMismatch, match="describes other data"):
        read_ledger(tmp_path / "rr.csv")
