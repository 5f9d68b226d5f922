"""The inference benchmark's claims (crowdpriv.benchmark): each claim with a case where it
holds and one where it fails, on hand-built result tables; and the tables the report shows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from crowdpriv import benchmark as bench
from crowdpriv import inference
from crowdpriv.significance import Significance

THRESHOLDS = dict(non_inferiority=0.005, most_quota=0.5, mae_noise_ratio_max=0.2,
                  kept_aside=["kept"], published={"d1": {"MajorityVote": 0.8,
                                                         "DawidSkene": 0.9}})
R = 8  # enough repetitions for a cell to fail at alpha / k with the sign test


def _runs(cells: dict, *, dataset="d1", mechanism="rr", metric="accuracy", reps=R):
    """Rows of a runs table: cells = {(epsilon, method): per-rep values or one number}."""
    rows = []
    for (eps, method), values in cells.items():
        values = np.broadcast_to(np.asarray(values, dtype=float), (reps,))
        for rep, v in enumerate(values):
            rows.append(dict(dataset=dataset, mechanism=mechanism, epsilon=eps, rep=rep,
                             method=method, metric=metric, value=v))
    return pd.DataFrame(rows)


def _none(values: dict, dataset="d1", metric="accuracy"):
    return pd.DataFrame([dict(dataset=dataset, mechanism=bench.NO_MECHANISM, epsilon=math.inf,
                              rep=0, method=m, metric=metric, value=v)
                         for m, v in values.items()])


def _status(claim_id, runs, crowdkit=None):
    crowdkit = pd.DataFrame(columns=["dataset", "method", "metric", "value"]) \
        if crowdkit is None else crowdkit
    out = bench.evaluate_claims({"runs": runs, "crowdkit": crowdkit}, thresholds=THRESHOLDS,
                                significance=Significance())
    return out.set_index("claim_id").loc[claim_id, "status"]


def _noisy(centre, rng, spread=0.01):
    return centre + rng.uniform(-spread, spread, R)


@pytest.mark.parametrize("gap, status", [(0.05, "holds"), (-0.05, "fails")])
def test_aware_not_worse(gap, status):
    rng = np.random.default_rng(0)
    runs = _runs({(e, m): _noisy(0.6 + (gap if m == "aware-one-coin-ds" else 0), rng)
                  for e in (1.0, 2.0) for m in ("majority", "ds", "aware-one-coin-ds")})
    assert _status("benchmark.d1.rr.aware_not_worse", runs) == status


@pytest.mark.parametrize("gap, status", [(0.05, "holds"), (-0.05, "fails")])
def test_default_after(gap, status):
    rng = np.random.default_rng(1)
    default = inference.DEFAULT_AFTER["rr"]
    runs = pd.concat([
        _runs({(e, m): _noisy(0.6 + (gap if m == default else 0), rng)
               for e in (1.0,) for m in ("majority", default)}, dataset=d)
        for d in ("d1", "kept")])
    verdict = bench.evaluate_claims({"runs": runs, "crowdkit": pd.DataFrame(
        columns=["dataset", "method", "metric", "value"])}, thresholds=THRESHOLDS,
        significance=Significance()).set_index("claim_id").loc["benchmark.default_after.rr"]
    assert verdict["status"] == status and "kept (kept aside)" in verdict["evidence"]


@pytest.mark.parametrize("shift, status", [(0.0, "holds"), (0.01, "fails")])
def test_agrees_with_crowd_kit(shift, status):
    runs = _none({"majority": 0.8, "ds": 0.9})
    crowdkit = pd.DataFrame({"dataset": "d1", "method": ["MajorityVote", "DawidSkene"],
                             "metric": "accuracy", "value": [0.8 + shift, 0.9]})
    assert _status("benchmark.none.agrees_with_crowd_kit", runs, crowdkit) == status


@pytest.mark.parametrize("ds, status", [(0.9, "holds"), (0.7, "fails")])
def test_default_is_best_plain(ds, status):
    runs = pd.concat([_none({"majority": 0.8, "ds": ds, bench.BASE_RATE: 0.95}),
                      _none({"gtm": 10.0, "crh": 10.02, "mean": 11.0}, dataset="v",
                            metric="mae")])
    assert _status("benchmark.none.default_is_best_plain", runs) == status


@pytest.mark.parametrize("metric, values", [("accuracy", {"ds": 0.9}), ("mae", {"gtm": 10.0})])
def test_default_is_best_plain_not_testable_when_only_the_default_ran(metric, values):
    # nothing to compare the default with (e.g. a config running DS alone): no verdict, and no
    # error that would stop every other claim of the run
    assert _status("benchmark.none.default_is_best_plain", _none(values, metric=metric)) \
        == "not testable"


def _pptd(crh, mean, median, noise=100.0, loss=10.0):
    rng = np.random.default_rng(2)
    frames = [_runs({(e, m): _noisy(v, rng, 0.5) for e in (1.0, 2.0)
                     for m, v in (("crh", crh), ("mean", mean), ("median", median))},
                    dataset="v", mechanism="pptd", metric="mae"),
              _runs({(e, "crh"): _noisy(loss, rng, 0.5) for e in (1.0, 2.0)}, dataset="v",
                    mechanism="pptd", metric="mae_to_original"),
              _runs({(e, bench.RELEASE): noise for e in (1.0, 2.0)}, dataset="v",
                    mechanism="pptd", metric="noise"),
              _none({"crh": crh, "mean": mean, "median": median}, dataset="v", metric="mae")]
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("crh, status", [(10.0, "holds"), (14.0, "fails")])
def test_weighted_beats_naive(crh, status):
    runs = _pptd(crh, 12.0, 13.0)
    assert _status("benchmark.gen.weighted_beats_naive_original", runs) == status
    assert _status("benchmark.gen.weighted_beats_naive_perturbed", runs) == status


@pytest.mark.parametrize("loss, status", [(10.0, "holds"), (40.0, "fails")])
def test_pptd_small_against_noise(loss, status):
    assert _status("benchmark.gen.pptd_small_against_noise", _pptd(10, 12, 13, loss=loss)) \
        == status


@pytest.mark.parametrize("mf, status", [(0.1, "holds"), (0.9, "fails")])
def test_mf_lowest_most_cases(mf, status):
    rng = np.random.default_rng(3)
    frames = [_none({"sun": 0.2}, metric="mae_codes")]
    for mech, value in (("mf", mf), ("lp", 0.5), ("rr", 0.5)):
        frames.append(_runs({(e, "sun"): _noisy(value, rng) for e in (1.0, 2.0)},
                            mechanism=mech, metric="mae_codes"))
    assert _status("benchmark.gen.mf_lowest_most_cases", pd.concat(frames)) == status


@pytest.mark.parametrize("second, status", [("rr", "holds"), ("lp", "fails")])
def test_best_mechanism_consistent(second, status):
    frames = [_runs({(1.0, "majority"): 0.9}, mechanism="rr"),
              _runs({(1.0, "mean"): 0.5}, mechanism="lp"),
              _runs({(1.0, "majority"): 0.9 if second == "rr" else 0.4}, dataset="d2",
                    mechanism="rr"),
              _runs({(1.0, "mean"): 0.5}, dataset="d2", mechanism="lp")]
    assert _status("benchmark.best_mechanism_consistent", pd.concat(frames)) == status


def test_tables_for_the_report():
    rng = np.random.default_rng(4)
    runs = pd.concat([_none({"majority": 0.8, "ds": 0.9}),
                      _runs({(1.0, m): _noisy(0.6, rng) for m in ("majority", "ds",
                                                                "aware-one-coin-ds")}),
                      _runs({(1.0, m): _noisy(0.3, rng) for m in ("majority", "ds",
                                                                "aware-one-coin-ds")},
                            metric="balanced_accuracy")])
    crowdkit = pd.DataFrame({"dataset": "d1", "method": ["MajorityVote", "GLAD"],
                             "metric": "accuracy", "value": [0.8, 0.85]})
    tables = bench.report_tables(runs, crowdkit, published=THRESHOLDS["published"])
    plain = tables["no_privacy"].set_index("method")
    assert plain.loc["majority", "crowd_kit_same_files"] == 0.8
    assert plain.loc["ds", "crowd_kit_published"] == 0.9
    assert plain.loc["crowd-kit GLAD", "crowd_kit_same_files"] == 0.85
    defaults = tables["defaults"]
    assert {"mean_accuracy", "mean_balanced_accuracy", "rank", "rank_balanced",
            "default"} <= set(defaults.columns)
    assert defaults.loc[defaults["default"], "method"].tolist() == ["aware-one-coin-ds"]
    aware = tables["aware_vs_naive"]
    assert set(aware["naive"]) == {"majority", "ds"} and (aware["R"] == R).all()
