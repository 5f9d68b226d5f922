"""The inference benchmark (crowdpriv.benchmark): its runs on a small crowd (its claims:
tests/test_benchmark_claims.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from crowdpriv import benchmark as bench
from crowdpriv import mechanisms


def _crowd(seed=0, tasks=60, workers=12, k=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, tasks).astype(float)
    codes = np.full((workers, tasks), k, dtype=np.int8)
    answered = rng.random((workers, tasks)) < 0.5
    right = rng.random((workers, tasks)) < 0.8
    wrong = (truth[None, :] + rng.integers(1, k, (workers, tasks))) % k
    codes[answered] = np.where(right, truth[None, :], wrong)[answered]
    truth[:5] = np.nan  # tasks without gold
    return codes, truth


def test_runs_are_long_paired_and_deterministic():
    from crowdpriv.examples import RRAnswersOnly

    codes, truth = _crowd()
    mechs = [(mechanisms.get(m), mechanisms.get(m).settings()) for m in ("rr", "lp")]
    mechs.append((RRAnswersOnly(), RRAnswersOnly().settings()))
    kw = dict(dataset="d", domain_size=3, mechanisms=mechs, epsilons=[1.0, 4.0],
              repetitions=2, methods=["majority", "ds", "aware-one-coin-ds", "sun", "mean",
                                      "aware-mean"], seed=7)
    a = bench.run_labels(codes, truth, **kw)
    b = bench.run_labels(codes, truth, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["dataset", "mechanism", "epsilon", "rep", "method", "metric",
                               "value"]
    rr = a.loc[a["mechanism"] == "rr"]
    assert set(rr["method"]) == {"majority", "ds", "aware-one-coin-ds", "sun"}
    lp = a.loc[a["mechanism"] == "lp"]
    assert set(lp["method"]) == {"sun", "mean", "aware-mean"}  # values: averages only
    none = a.loc[a["mechanism"] == bench.NO_MECHANISM]
    assert (none["epsilon"] == math.inf).all() and bench.BASE_RATE in set(none["method"])
    # every method of a (mechanism, ε) ran on the same R releases: pairs are complete
    counts = a.loc[a["metric"] == "accuracy"].groupby(["mechanism", "epsilon", "method"]).size()
    assert set(counts.loc[["rr", "lp", "rr-answers-only"]]) == {2}
    other = bench.run_labels(codes, truth, **{**kw, "seed": 8})
    assert not a["value"].equals(other["value"])
