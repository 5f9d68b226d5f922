"""crowdpriv.inference: answer types, what each method needs of a release, the defaults, and
the API/CLI paths that read a release's ledger."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import crowdpriv
from crowdpriv import inference, mechanisms
from crowdpriv._checks import ParameterError


def _labels(seed=0, tasks=200, workers=30, k=4, answer=0.5, accuracy=(0.55, 0.95)):
    """A label crowd: each worker answers a share of the tasks, right with his own accuracy."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, tasks)
    acc = rng.uniform(*accuracy, workers)
    w, t = np.nonzero(rng.random((workers, tasks)) < answer)
    right = rng.random(w.size) < acc[w]
    y = np.where(right, truth[t], (truth[t] + rng.integers(1, k, w.size)) % k)
    return t, w, y.astype(float), truth


# -- types ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["sun", "crh", "gtm", "mean", "median"])
def test_averages_on_labels_only_as_an_ordinal_choice(method):
    t, w, y, _ = _labels()
    kw = dict(n_tasks=200, n_workers=30, data_type="categorical")
    with pytest.raises(ParameterError, match=f"{method} averages numbers.*--ordinal"):
        inference.infer_long(method, t, w, y, **kw)
    out = inference.infer_long(method, t, w, y, **kw, ordinal=True)
    assert out.labels is not None and "ordinal" in out.notes[0]


@pytest.mark.parametrize("method", ["majority", "weighted-vote", "ds", "one-coin-ds"])
def test_label_methods_refuse_values(method):
    t, w, y, _ = _labels()
    with pytest.raises(ParameterError, match=f"{method} counts labels.*use one of"):
        inference.infer_long(method, t, w, y + 0.5, n_tasks=200, n_workers=30,
                             data_type="continuous")


@pytest.mark.parametrize("method, needs", [("aware-ds", "channel"),
                                           ("aware-one-coin-ds", "channel"),
                                           ("aware-mean", "noise variance")])
def test_aware_methods_need_what_the_release_knows(method, needs):
    t, w, y, _ = _labels()
    kind = "continuous" if method == "aware-mean" else "categorical"
    with pytest.raises(ParameterError, match=needs):
        inference.infer_long(method, t, w, y, n_tasks=200, n_workers=30, data_type=kind)
    if method == "aware-mean":  # MF's noise variance is private to each worker
        mf = inference.known_release("mf", 1.0, domain=4)
        assert mf.noise_variance is None
        with pytest.raises(ParameterError, match="no public variance"):
            inference.infer_long(method, t, w, y, n_tasks=200, n_workers=30,
                                 data_type=kind, release=mf)


def test_labels_outside_the_domain_and_non_integers_are_errors():
    t, w, y, _ = _labels()
    with pytest.raises(ParameterError, match="outside 0..2"):
        inference.infer_long("majority", t, w, y, n_tasks=200, n_workers=30,
                             data_type="categorical", domain=3)
    with pytest.raises(ParameterError, match="integers"):
        inference.infer_long("majority", t, w, y + 0.5, n_tasks=200, n_workers=30,
                             data_type="categorical")


def test_median_per_task_dense_and_sparse():
    rng = np.random.default_rng(1)
    for keep in (1.0, 0.6):
        w, t = np.indices((7, 9)).reshape(2, -1)
        chosen = rng.random(w.size) < keep
        w, t = w[chosen], t[chosen]
        x = rng.normal(size=w.size)
        out = inference.infer_long("median", t, w, x, n_tasks=9, n_workers=7,
                                   data_type="continuous")
        want = [np.median(x[t == j]) if (t == j).any() else np.nan for j in range(9)]
        assert np.allclose(out.truths, want, equal_nan=True)
        assert not np.allclose(out.truths, [np.mean(x[t == j]) for j in range(9)])


# -- the defaults --------------------------------------------------------------------------------
def test_every_release_has_a_default_that_accepts_its_output():
    """After any `crowdpriv perturb` (the member asked for and the sampler that runs), the
    default exists and accepts what the release writes (labels or values)."""
    from crowdpriv.api import perturb_mechanisms, release_mechanism

    for mid in perturb_mechanisms():
        requested, runner = release_mechanism(mid)
        for member in (requested, runner):
            assert member.id in inference.DEFAULT_AFTER, member.id
            method = inference.METHODS[inference.DEFAULT_AFTER[member.id]]
            output = ("categorical" if member.answer_type == "categorical"
                      and member.releases_labels else "continuous")
            assert method.accepts == output, (member.id, method.id)
    assert set(inference.DEFAULT_PLAIN) == set(inference.ANSWER_TYPES)
    # fails: a default that averages labels would be refused on an RR release
    assert inference.METHODS["sun"].accepts != "categorical"


def test_default_after_a_known_release_and_without_one():
    rr = inference.known_release("rr", 1.0, domain=4)
    assert inference.default_method("categorical", rr)[0] == inference.DEFAULT_AFTER["rr"]
    assert inference.default_method("categorical", None)[0] == "ds"
    assert inference.default_method("continuous", None)[0] == inference.DEFAULT_PLAIN[
        "continuous"]


def test_a_known_release_from_flags_equals_the_one_from_its_ledger(tmp_path):
    t, w, y, _ = _labels()
    frame = pd.DataFrame({"task": t, "worker": w, "label": y.astype(int)})
    release = crowdpriv.perturb(frame, "two-layer", epsilon=2.0, domain=4, seed=5, audit=False,
                                spread=0.5, allow_unsafe=True)
    from_ledger = inference.release_from_ledger(release.ledger, "x")
    from_flags = inference.known_release(release.ledger["channel"]["mechanism"], 2.0, domain=4,
                                         settings={"spread": 0.5})
    assert np.array_equal(from_ledger.channel.matrices, from_flags.channel.matrices)
    other = inference.known_release("two-layer", 2.0, domain=4)  # spread 1, the default
    assert not np.allclose(other.channel.matrices, from_flags.channel.matrices)


# -- mechanism-aware inference on a release ------------------------------------------------------
def test_channel_aware_inference_reads_the_null_outputs_of_a_release():
    """After RR with NULL the release lists only its non-NULL outputs; the aware fit reads the
    other grid cells as NULL outputs. At ε = 3 it is at least as accurate as majority vote on
    the listed labels (on this crowd, whose workers answer 30 % of the tasks, at ε = 1 it is
    not: per-worker skills are not identifiable from so little signal, docs/inference.md)."""
    rng = np.random.default_rng(3)
    t, w, y, truth = _labels(seed=3, tasks=400, workers=40, answer=0.3)
    codes = np.full((40, 400), 4, dtype=np.int8)
    codes[w, t] = y
    rr = mechanisms.get("rr")
    out = rr.perturb(codes, 3.0, rr.settings(), rng=rng, domain_size=4).values
    ww, tt = np.nonzero(out != 4)
    yy = out[ww, tt].astype(float)
    known = inference.known_release("rr", 3.0, domain=4)
    kw = dict(n_tasks=400, n_workers=40, data_type="categorical", domain=4)
    aware = inference.infer_long("aware-one-coin-ds", tt, ww, yy, **kw, release=known)
    naive = inference.infer_long("majority", tt, ww, yy, **kw)
    assert (aware.labels == truth).mean() >= (naive.labels == truth).mean() - 0.005
    assert "NULL output" in aware.notes[0]
    # fails: plain Dawid-Skene on the listed labels, which ignores the channel, is below both
    plain = inference.infer_long("ds", tt, ww, yy, **kw)
    assert (plain.labels == truth).mean() < (aware.labels == truth).mean()


def test_a_value_release_of_labels_is_decoded_by_rounding():
    t, w, y, truth = _labels(seed=4)
    known = inference.known_release("lp", 4.0, domain=4)
    rng = np.random.default_rng(4)
    x = y + rng.laplace(0, 4 / 4.0, y.size)
    out = inference.infer_long("aware-mean", t, w, x, n_tasks=200, n_workers=30,
                               data_type="continuous", release=known)
    assert set(np.unique(out.labels)) <= {0, 1, 2, 3}
    assert any("decoded to the nearest label" in n for n in out.notes)
    assert np.array_equal(out.labels, np.clip(np.rint(out.truths), 0, 3))


def test_api_infer_output_columns(tmp_path):
    t, w, y, _ = _labels()
    frame = pd.DataFrame({"task": t, "worker": w, "label": y.astype(int)})
    labels = crowdpriv.infer(frame)
    assert list(labels.data.columns) == ["task", "label"] and labels.ledger["mechanism"] == "ds"
    lp = crowdpriv.perturb(frame, "lp", epsilon=2.0, domain=4, seed=1, audit=False)
    decoded = crowdpriv.infer(lp.data, release=lp.ledger)
    assert list(decoded.data.columns) == ["task", "truth", "label"]
    assert decoded.ledger["mechanism"] == inference.DEFAULT_AFTER[lp.ledger["mechanism"]]
    assert decoded.ledger["known_release"]["noise_variance"] > 0


def test_a_prior_only_for_the_dawid_skene_methods():
    t, w, y, truth = _labels(seed=6)
    kw = dict(n_tasks=200, n_workers=30, data_type="categorical")
    from crowdpriv import categorical as cat

    uniform = inference.infer_long("ds", t, w, y, **kw, options={"prior": "uniform"})
    direct = cat.dawid_skene(t, w, y.astype(int), n_tasks=200, n_workers=30, n_labels=4,
                             prior="uniform")
    assert np.array_equal(uniform.labels, direct.truths)
    assert uniform.iterations == direct.iterations
    estimated = cat.dawid_skene(t, w, y.astype(int), n_tasks=200, n_workers=30, n_labels=4)
    assert estimated.iterations != direct.iterations or not np.allclose(
        estimated.posterior, direct.posterior)  # fails if the prior were not passed on
    with pytest.raises(ParameterError, match="applies to the Dawid-Skene methods"):
        inference.infer_long("majority", t, w, y, **kw, options={"prior": "uniform"})
