"""Readings (crowdpriv.readings and each paper's reading axes): overrides, affected tables, the
verdict matrix, and a test per axis that its setting reaches the core."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import integrate

from crowdpriv import readings as rd
from crowdpriv.mechanisms import mf as mf_mechanism
from crowdpriv.mechanisms.basic import basic_release
from conftest import ROOT

CONFIG = yaml.safe_load((ROOT / "config/config.yaml").read_text())


# --- the generic machinery -------------------------------------------------------------------


def test_apply_override_merges_nested_and_rejects_unknown_keys():
    block = {"a": 1, "mech": {"x": 1, "y": 2}, "lst": [1, 2]}
    out = rd.apply_override(block, {"mech": {"y": 5}, "lst": [3]}, where="p.set")
    assert out == {"a": 1, "mech": {"x": 1, "y": 5}, "lst": [3]}
    assert block["mech"]["y"] == 2  # the default block is untouched
    with pytest.raises(ValueError, match=r"p\.set\.mech\.z: no such setting"):
        rd.apply_override(block, {"mech": {"z": 1}}, where="p.set")


def test_touched_keys_and_affected_tables():
    reading = rd.Reading("r", "axis", "why", {"mechanisms": {"mf_ridge": 1.0}, "fig1": {"g": 1}})
    assert rd.touched_keys(reading.override) == ["mechanisms.mf_ridge", "fig1.g"]
    keys = {"t1": ["mechanisms"], "t2": ["fig2"], "t3": ["fig1", "d"], "t4": ["mechanisms.other"]}
    assert rd.affected_tables(reading, keys) == ["t1", "t3"]
    data = rd.Reading("s", "axis", "why", {}, {"indoor": {"walks": [1, 2]}})
    assert rd.affected_tables(data, {"a": ["datasets.indoor"], "b": ["fig6"]}) == ["a"]


def test_parse_readings_default_first_and_errors():
    block = {"default": {"name": "lit", "why": "because the text says so"},
             "alternatives": {"x": {"axis": "ax", "why": "w" * 10, "set": {"k": 1},
                                    "methods": ["MF"]}}}
    parsed = rd.parse_readings(block, where="p.readings")
    assert [r.name for r in parsed] == [rd.DEFAULT, "x"] and parsed[1].methods == ("MF",)
    with pytest.raises(ValueError, match="sets nothing"):
        rd.parse_readings({**block, "alternatives": {"y": {"axis": "a", "why": "w"}}},
                          where="p.readings")


@pytest.mark.parametrize("statuses, phrase", [
    ({"default": "holds", "a": "holds", "b": "not testable"},
     "robust: holds under every reading (1 reading(s) cannot test it)"),
    ({"default": "fails", "a": "holds", "b": "fails"}, "depends on: axis a"),
    ({"default": "not testable", "a": "fails", "b": "not testable"},
     "fails only under: a (the others cannot test it)"),
    ({"default": "not testable", "a": "not testable"}, "not testable under any reading"),
])
def test_robustness_phrases(statuses, phrase):
    axes = {"default": "none", "a": "axis a", "b": "axis b"}
    assert rd.robustness(statuses, axes) == phrase


def _claims(statuses):
    return pd.DataFrame({"claim_id": ["c1", "c2"], "figure": ["Fig. 1", "Fig. 2"],
                         "category": ["paper", "paper"], "status": statuses,
                         "evidence": ["e1", "e2"]})


def test_verdict_matrix_and_markdown_are_stable(tmp_path):
    readings = [rd.Reading(rd.DEFAULT, "none", "the text"), rd.Reading("r", "ax", "why", {"k": 1})]
    claims = {rd.DEFAULT: _claims(["holds", "fails"]), "r": _claims(["holds", "holds"])}
    matrix = rd.verdict_matrix(claims, readings)
    assert list(matrix.columns) == list(rd.MATRIX_COLUMNS) and len(matrix) == 4
    wide = rd.wide_table(matrix)
    assert wide["robustness"].tolist() == ["robust: holds under every reading", "depends on: ax"]
    paths = []
    for i in range(2):
        csv, md = tmp_path / f"m{i}.csv", tmp_path / f"m{i}.md"
        rd.write_matrix(rd.verdict_matrix(claims, readings), readings, csv, md, title="T")
        paths.append((csv.read_bytes(), md.read_bytes()))
    assert paths[0] == paths[1]
    bad = {rd.DEFAULT: _claims(["holds", "fails"]), "r": _claims(["holds", "holds"]).iloc[:1]}
    with pytest.raises(ValueError, match="other claims"):
        rd.verdict_matrix(bad, readings)


def test_merge_tables_splices_methods_and_leaves_out_absent():
    default = {"t": pd.DataFrame({"method": ["LP", "MF"], "v": [1.0, 2.0]}),
               "u": pd.DataFrame({"v": [1.0]}), "w": pd.DataFrame({"v": [0.0]})}
    new = {"t": pd.DataFrame({"method": ["MF"], "v": [9.0]}), "u": pd.DataFrame({"v": [5.0]})}
    out = rd.merge_tables(default, new, {"w": "too costly"}, methods=("MF",))
    assert out["t"].to_dict("list") == {"method": ["LP", "MF"], "v": [1.0, 9.0]}
    assert out["u"]["v"].tolist() == [5.0] and "w" not in out


def test_every_configured_reading_is_documented_and_names_existing_keys():
    text = (ROOT / "config/README.md").read_text()
    for paper in ("ldp_sparse", "pptd", "priscrowd"):
        parsed = rd.parse_readings(CONFIG[paper]["readings"], where=f"{paper}.readings")
        assert len(parsed) >= 5, paper  # the default and at least four alternatives
        for reading in parsed[1:]:
            assert f"`{reading.name}`" in text, (paper, reading.name)
            merged = rd.reading_config(CONFIG, paper, reading)
            assert merged[paper] != CONFIG[paper] or merged["datasets"] != CONFIG["datasets"]


# --- LDP-sparse axes -------------------------------------------------------------------------

from crowdpriv import ldp_sparse  # noqa: E402

LDP_SMALL = dict(n_workers=60, n_tasks=20, sparsity=0.7, epsilons=[1.0], repetitions=2, seed=3,
                 experiment="fig2")


def _mf(**kw):
    df = ldp_sparse.run_synthetic_point(methods=["MF"], **LDP_SMALL, **kw)
    return df.set_index("rep")


def test_axis_mf_ridge_reaches_mf():
    plain, ridged = _mf(), _mf(mechanisms={"mf_ridge": 1.0})
    assert not np.allclose(plain["mae_perturbed"], ridged["mae_perturbed"])


def test_axis_signed_profiles():
    rng = np.random.default_rng(0)
    signed = mf_mechanism.draw_task_profiles(50, 4, rng=rng, signs="signed")
    assert (signed < 0).any() and np.allclose(np.abs(signed).sum(0), 1.0)
    same = mf_mechanism.draw_task_profiles(50, 4, rng=np.random.default_rng(0))
    assert (same >= 0).all() and np.allclose(same.sum(0), 1.0)
    assert not np.allclose(_mf()["mae_perturbed"],
                           _mf(mechanisms={"mf_profiles": "signed"})["mae_perturbed"])
    with pytest.raises(ValueError, match="signs"):
        mf_mechanism.draw_task_profiles(5, 2, rng=rng, signs="both")


def test_axis_bound_quality_changes_theorem5_only_through_q():
    bounds = {q: _mf(bound_quality=q)["bound"] for q in ldp_sparse.BOUND_QUALITIES}
    # q~ = max q_i: uniform is the smallest possible max, so any other q can only raise it
    assert (bounds["generator"] > bounds["uniform"]).all()
    assert (bounds["inferred"] > bounds["uniform"]).all()
    assert np.allclose(_mf(bound_quality="generator")["mae_perturbed"], _mf()["mae_perturbed"])


def test_axis_fig1_gold_from():
    answers = np.array([[0, 1, np.nan], [0, 1, 2], [1, 1, 2.0]])
    truth = np.array([0.0, np.nan, np.nan])
    gold = ldp_sparse.task_reference_labels(answers, truth, domain_size=3)
    assert np.array_equal(gold, [0, np.nan, np.nan], equal_nan=True)
    majority = ldp_sparse.task_reference_labels(answers, truth, domain_size=3,
                                                gold_from="majority")
    assert majority.tolist() == [0, 1, 2]
    inferred = ldp_sparse.task_reference_labels(answers, truth, domain_size=3,
                                                gold_from="inferred")
    assert inferred.tolist() == [0, 1, 2]
    dist = ldp_sparse.answer_distribution(answers, truth, domain_size=3, gold_from="majority")
    task = dist.loc[dist["truth"] == "task_gold", "count"].tolist()
    assert task == [1, 1, 1]


def test_mf_factored_inference_matches_the_dense_output():
    rng = np.random.default_rng(1)
    a = np.where(rng.random((30, 12)) < 0.5, rng.integers(0, 5, (30, 12)), np.nan)
    v = mf_mechanism.draw_task_profiles(12, 3, rng=rng)
    prep = mf_mechanism.mf_prepare(a, v, domain_size=5)
    out, u, _ = mf_mechanism.mf_perturb_prepared(prep, 1.0, rng=np.random.default_rng(2),
                                                dtype=np.float64, return_u=True)
    dense = ldp_sparse.infer_truth(out, dtype=np.float64)
    factored = ldp_sparse.infer_truth_factored(u, v)
    assert np.allclose(dense.truth, factored.truth, atol=1e-9)
    assert np.allclose(dense.quality, factored.quality, atol=1e-9)
    assert int(dense.iterations) == int(factored.iterations)


# --- PPTD axes --------------------------------------------------------------------------------

from crowdpriv import pptd  # noqa: E402


def test_axis_sensitivity_corrected_changes_lambda2_by_lambda1():
    kw = dict(b=2.0, eta=0.9, delta=0.1)
    for lam1 in (0.06, 2.0):
        printed = pptd.lambda2_from_epsilon(1.0, lam1, **kw)
        corrected = pptd.lambda2_from_epsilon(1.0, lam1, sensitivity="corrected", **kw)
        assert corrected == pytest.approx(printed / lam1)
        for s in pptd.SENSITIVITY_READINGS:
            lam2 = pptd.lambda2_from_epsilon(3.0, lam1, sensitivity=s, **kw)
            assert pptd.epsilon_from_lambda2(lam1, lam2, sensitivity=s, **kw) == pytest.approx(3.0)
    assert pptd.lemma48_sensitivity(4.0, b=2.0, eta=0.9, sensitivity="corrected") == \
        pytest.approx(2 * pptd.lemma48_sensitivity(4.0, b=2.0, eta=0.9))


def test_gaussian_with_exponential_variance_is_laplace():
    """PPTD's noise N(0, y), y ~ Exp(λ2), has the Laplace density of scale 1/sqrt(2 λ2)."""
    lam2 = 0.7
    b = 1 / np.sqrt(2 * lam2)
    for x in (0.05, 0.5, 2.0, 5.0):
        mix = integrate.quad(lambda y: lam2 * np.exp(-lam2 * y) * np.exp(-x * x / (2 * y))
                             / np.sqrt(2 * np.pi * y), 0, np.inf)[0]
        assert mix == pytest.approx(np.exp(-abs(x) / b) / (2 * b), rel=1e-6)
    rng = np.random.default_rng(5)
    draws = rng.normal(0, np.sqrt(rng.exponential(1 / lam2, 200_000)))
    assert np.mean(np.abs(draws)) == pytest.approx(b, rel=0.01)  # E|X| = b for Laplace(b)
    # the exact per-record epsilon is the Laplace mechanism's Delta / b
    assert pptd.exact_record_epsilon(lam2, 1.5) == pytest.approx(1.5 / b)


def _crh_iterations(tol_relative):
    rng = np.random.default_rng(0)
    x = rng.normal(1000.0, 50.0, (30, 8)) + rng.normal(0, 1, (30, 1)) * 20
    return int(pptd.crh(x, tol=1e-3, tol_relative=tol_relative).iterations)


def test_axis_threshold_absolute_changes_convergence():
    assert _crh_iterations(False) > _crh_iterations(True)


def test_axis_indoor_claims_per_segment():
    cfg = dict(CONFIG["datasets"]["indoor_surrogate"])
    base, _ = pptd.indoor_from_config(cfg, seed=1)
    dense, _ = pptd.indoor_from_config({**cfg, "walks_lognormal": [3.0, 0.9]}, seed=1)
    assert len(dense) / dense["task"].nunique() > 2 * len(base) / base["task"].nunique()


# --- PrisCrowd axes ---------------------------------------------------------------------------

from crowdpriv import priscrowd  # noqa: E402


def test_axis_basic_sensitivity_records_scales_the_noise():
    z = np.array([[0.0, 1.0, 2.0, np.nan], [0.0, 1.0, np.nan, np.nan]])
    mask = ~np.isnan(z)
    z0 = np.nan_to_num(z)
    a = basic_release(z0, mask, 1.0, reps=4000, rng=np.random.default_rng(0))
    b = basic_release(z0, mask, 1.0, reps=4000, rng=np.random.default_rng(0),
                                sensitivity="records")
    ratio = np.nanmean(np.abs(b - z0), axis=(0, 2)) / np.nanmean(np.abs(a - z0), axis=(0, 2))
    assert ratio == pytest.approx([3.0, 2.0])


def _simulated(**kw):
    params = priscrowd.Params(repetitions=2, **kw)
    return priscrowd.run_simulated(0.3, params, n_users=12, n_objects=6,
                                   rng=np.random.default_rng(0))


def test_axis_sise_definition():
    sq = _simulated()["table"].set_index(["method", "rep"])
    rt = _simulated(sise="sqrt")["table"].set_index(["method", "rep"])
    assert np.allclose(sq["ISE"], rt["ISE"]) and not np.allclose(sq["SISE"], rt["SISE"])
    # Cauchy-Schwarz: (sum sqrt ISE_i)^2 <= N sum ISE_i with N = 6 objects
    assert (rt["SISE"] ** 2 <= 6 * rt["ISE"] * (1 + 1e-9)).all()


def test_axis_uniform_without_test_releases_every_candidate():
    rel = _simulated(uniform_test=False)["release"].set_index("method")
    uni = rel.loc["Uniform"]
    assert (uni["candidates"] == uni["tasks"] * 30).all() and (uni["fully"] == uni["tasks"]).all()
    same = _simulated()["release"].set_index("method").loc["PrisCrowd"]
    assert rel.loc["PrisCrowd"].equals(same)  # other methods keep their streams


def test_axis_bandwidth_and_cap_reach_the_release():
    base = _simulated()["release"].set_index("method")
    capped = _simulated(max_candidates=31)["release"].set_index("method")
    assert (capped["candidates"] <= capped["tasks"] * 31).all()
    assert not base.equals(capped)
    sil = _simulated(bandwidth="silverman")["table"]
    assert not np.allclose(sil["ISE"], _simulated()["table"]["ISE"])


def test_methods_subset_keeps_the_other_methods_numbers():
    full = _simulated()["table"]
    only = priscrowd.run_simulated(0.3, priscrowd.Params(repetitions=2), n_users=12,
                                   n_objects=6, rng=np.random.default_rng(0),
                                   methods=["Uniform"])["table"]
    assert set(only["method"]) == {"Uniform"}
    pd.testing.assert_frame_equal(full.loc[full["method"] == "Uniform"].reset_index(drop=True),
                                  only.reset_index(drop=True))


def test_bound_claim_with_a_table_left_out_fails_on_a_failing_point_else_is_not_testable():
    from crowdpriv.claims import Context
    from crowdpriv.ldp_sparse._claims import _below_theorem_bound
    from crowdpriv.significance import Significance

    def table(margin):
        return pd.DataFrame({"method": "MF", "sparsity": 0.5, "epsilon": 1.0, "rep": range(8),
                             "bound": 1.0 + margin, "mae_perturbed": 1.0})

    sig = Significance.from_mapping({"test": "sign", "alpha": 0.05})
    check = _below_theorem_bound("MF")
    absent = {"fig4": "not re-run under reading r"}
    holds = check(Context({"fig2": table(0.5)}, {}, sig))
    assert holds.status == "holds"
    failing = check(Context({"fig2": table(-0.5)}, {}, sig, absent))
    assert failing.status == "fails" and "left out: fig4" in failing.evidence
    with pytest.raises(rd_not_testable(), match="holds on the points computed; left out: fig4"):
        check(Context({"fig2": table(0.5)}, {}, sig, absent))


def rd_not_testable():
    from crowdpriv.claims import NotTestable
    return NotTestable


def test_reference_sender_and_correlation_columns():
    df = ldp_sparse.run_synthetic_point(methods=["LP", "MF"], **LDP_SMALL)
    assert {"mae_ref_own_mean", "corr_original", "corr_perturbed"} <= set(df.columns)
    # the own-mean sender is the same for every method and epsilon of a repetition
    assert (df.groupby("rep")["mae_ref_own_mean"].nunique() == 1).all()
    assert ldp_sparse.truth_correlation([0, 1, 2], [0, 1, 2], 1.0) == pytest.approx(1.0)
    assert ldp_sparse.truth_correlation([0, 1, 2], [2, 1, 0], 1.0) == pytest.approx(-1.0)
    assert np.isnan(ldp_sparse.truth_correlation([0, 1, 2], [1, 1, 1], 1.0))
    assert ldp_sparse.truth_correlation([0, 1, np.nan], [0, np.nan, 5], 1.0) == pytest.approx(1.0)


def test_axis_units_raw_keeps_the_claims_scale():
    from crowdpriv.priscrowd import normalise_objects

    x = np.array([[100.0, 300.0, 500.0]])
    mask = np.ones_like(x, dtype=bool)
    z, mean, scale = normalise_objects(x, mask)
    assert np.allclose(scale, np.std(x)) and np.allclose(z.std(), 1.0)
    raw, mean_raw, scale_raw = normalise_objects(x, mask, units="raw")
    assert np.allclose(raw, x - 300.0) and np.allclose(scale_raw, 1.0)
    zs = _simulated()["table"]
    rs = _simulated(units="raw")["table"]
    assert not np.allclose(zs["ISE"], rs["ISE"])
    with pytest.raises(ValueError, match="units"):
        priscrowd.Params(units="metres")


# --- readings derived from the default run's own columns (no re-run) --------------------------


def test_derivable_only_for_derived_keys_and_their_methods():
    keys = {"bound_quality": ("MF",), "sise": None}
    assert rd.derivable(rd.Reading("q", "a", "w", {"bound_quality": "generator"},
                                   methods=("MF",)), keys)
    # LP rows carry no column of the other q's: they would need a re-run
    assert not rd.derivable(rd.Reading("q", "a", "w", {"bound_quality": "generator"}), keys)
    assert not rd.derivable(rd.Reading("q", "a", "w", {"bound_quality": "generator"},
                                       methods=("MF", "LP")), keys)
    assert rd.derivable(rd.Reading("s", "a", "w", {"sise": "sqrt"}), keys)
    assert not rd.derivable(rd.Reading("s", "a", "w", {"sise": "sqrt", "m": 3}), keys)
    assert not rd.derivable(rd.Reading("d", "a", "w", {"sise": "sqrt"}, {"indoor": {"x": 1}}),
                            keys)


@pytest.mark.parametrize("kind", ["generator", "inferred"])
def test_derived_bound_quality_equals_a_re_run(kind):
    # the columns the default run writes give exactly what re-running MF with that q gives
    default = ldp_sparse.run_synthetic_point(methods=["LP", "MF"], **LDP_SMALL)
    rerun = ldp_sparse.run_synthetic_point(methods=["MF"], bound_quality=kind, **LDP_SMALL)
    derived = ldp_sparse.derive_tables({"fig2": default}, {"bound_quality": kind}, ("MF",))
    mf = derived["fig2"].loc[derived["fig2"]["method"] == "MF"].reset_index(drop=True)
    pd.testing.assert_frame_equal(mf, rerun.reset_index(drop=True))
    lp = derived["fig2"]["method"] == "LP"
    pd.testing.assert_frame_equal(derived["fig2"].loc[lp], default.loc[lp])  # untouched
    assert not np.allclose(mf["bound"], default.loc[default["method"] == "MF", "bound"])
    # the default's own value selects the column it already has: identity
    same = ldp_sparse.derive_tables({"fig2": default}, {"bound_quality": "uniform"}, ("MF",))
    pd.testing.assert_frame_equal(same["fig2"], default)


def test_derived_sise_equals_a_re_run():
    default, rerun = _simulated(), _simulated(sise="sqrt")
    for table in ("table", "fig4"):
        if table not in default:
            continue
        derived = priscrowd.derive_tables({table: default[table]}, {"sise": "sqrt"})[table]
        pd.testing.assert_frame_equal(derived, rerun[table])
    same = priscrowd.derive_tables({"table": default["table"]}, {"sise": "squared"})["table"]
    pd.testing.assert_frame_equal(same, default["table"])
    assert priscrowd.derive_tables({"t": default["table"]}, {})["t"] is default["table"]


def test_configured_derivable_readings_re_run_nothing():
    # the pipeline's own readings of q and of the SISE are answered from the default tables
    for paper, module in (("ldp_sparse", ldp_sparse), ("priscrowd", priscrowd)):
        block = CONFIG[paper]
        for reading in rd.parse_readings(block["readings"], where=f"{paper}.readings")[1:]:
            if not rd.derivable(reading, module.DERIVED_KEYS):
                continue
            new, absent, notes = module.rerun_tables(
                reading, rd.apply_override(block, reading.override, where="x"), seed=1,
                data_paths={}, not_rerun=[])
            assert new == {} and absent == {} and notes, reading.name
            assert all("no re-run" in n for n in notes)


def test_has_rerun_and_the_matrix_without_a_folder(tmp_path):
    """A derivable reading has no re-run job (has_rerun, which the rules and the matrix job
    ask); the matrix then takes its tables from the default's columns with no folder, the same
    tables a folder holding only its (empty) re-run outputs gives, and notes the ones it
    reaches; every configured reading of PPTD (no DERIVED_KEYS) has a job."""
    for paper, module in (("ldp_sparse", ldp_sparse), ("priscrowd", priscrowd),
                          ("pptd", pptd)):
        for reading in rd.parse_readings(CONFIG[paper]["readings"],
                                         where=f"{paper}.readings")[1:]:
            derived = getattr(module, "DERIVED_KEYS", None)
            assert rd.has_rerun(module, reading) == (
                derived is None or not rd.derivable(reading, derived)), reading.name
    sise = rd.Reading("sise_sqrt", "SISE", "w", {"sise": "sqrt"})
    assert not rd.has_rerun(priscrowd, sise)
    assert rd.has_rerun(priscrowd, rd.Reading("cap", "cap", "w", {"max_candidates": 9}))
    assert rd.has_rerun(pptd, rd.Reading("x", "a", "w", {"sise": "sqrt"}))  # no DERIVED_KEYS
    notes = rd.derived_notes(sise, priscrowd.TABLE_KEYS)
    assert notes and notes == priscrowd.rerun_tables(sise, {}, seed=0, data_paths={})[2]
    assert all(n.endswith(": from the default run's columns (no re-run)") for n in notes)
    default = _simulated()
    tables = {"table2": default["table"]}
    (tmp_path / "absent.csv").write_text("table,reason\n")
    with_folder = rd.tables_under(priscrowd, sise, tables, tmp_path)
    without = rd.tables_under(priscrowd, sise, tables, None)
    assert without[1] == with_folder[1] == {}
    pd.testing.assert_frame_equal(without[0]["table2"], with_folder[0]["table2"])
    assert not without[0]["table2"].equals(default["table"])  # the SISE column was selected
    # a reading with a job: the table its re-run wrote replaces the default's
    cap = rd.Reading("cap", "cap", "w", {"max_candidates": 9})
    rerun = default["table"].assign(ISE=default["table"]["ISE"] * 2)
    rerun.to_csv(tmp_path / "table2.csv", index=False)
    got = rd.tables_under(priscrowd, cap, tables, tmp_path)[0]["table2"]
    pd.testing.assert_frame_equal(got, pd.read_csv(tmp_path / "table2.csv"))


def test_fig3_case_ise_reads_only_its_columns():
    # the PrisCrowd re-runs write and read back only these columns of Fig. 3's curves
    from crowdpriv.priscrowd import FIG3_ISE_READS, fig3_case_ise

    x = np.linspace(-3, 3, 7)
    curves = pd.concat([pd.DataFrame({
        "case": case, "task": f"t{case}", "curve": curve, "x_normalised": x, "x": 2 * x,
        "density_normalised": np.exp(-x**2 / (1 + k)), "density": 0.5, "view_lo": -1.0,
        "view_hi": 1.0}) for case in (0, 1)
        for k, curve in enumerate(("reference", "combined", "global", "uniform"))],
        ignore_index=True)
    curves.insert(0, "dataset", "d")
    full = fig3_case_ise(curves)
    assert len(full) == 6 and (full["ISE_to_reference"] > 0).all()
    pd.testing.assert_frame_equal(fig3_case_ise(curves[FIG3_ISE_READS]), full)
