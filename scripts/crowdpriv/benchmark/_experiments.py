"""The inference benchmark's runs: each dataset released by each mechanism at each ε, R times,
and every inference method that applies on the same releases (paired across methods).

Datasets: the standard comparison's product (binary), dog (4 labels) and emotion (numbers in
−100..100) (Zheng et al., PVLDB 10(5), 2017), and LDP-sparse's web and adultcontent. Label
datasets go through the mechanisms of LDP-sparse as it defines them (LP, RR, 2-Layer, MF: every
cell perturbed, NULLs included) and through RR on answered cells only
(:class:`crowdpriv.examples.RRAnswersOnly`, whose ledger says the answered set is not
protected); the numeric dataset through PPTD's Alg. 2. Mechanisms run their sweep samplers
(:mod:`crowdpriv.mechanisms`: ε-free draws per repetition applied at every ε, common random
numbers), seeded from ``derive_rng(seed, "benchmark", dataset, rep, mechanism)``.

Methods (:mod:`crowdpriv.inference`) run where they apply: on a label release the categorical
ones (majority vote, Dawid-Skene, and behind the release's channel ``aware-ds`` and
``aware-one-coin-ds``) and Sun's Alg. 1 on the codes (the ordinal view LDP-sparse judges); on a
value release (LP, MF, PPTD) the averaging ones, ``aware-mean`` where the noise variance is
public (LP). Naive methods see what a release lists (RR: its non-NULL cells); aware ones also
read its NULL outputs through the channel.

Output (long format), one row per (dataset, mechanism, ε, rep, method, metric):
``accuracy`` (labels; a value release's truths rounded to the nearest label) and
``balanced_accuracy`` (the mean recall per gold label: product is 88 % one label, so always
answering it scores 0.88 in accuracy and 0.5 here), ``mae_codes``
(label codes averaged: the ordinal view), ``mae`` and ``rmse`` (numbers), ``mae_to_original``
(the method's truths on the release against its truths on the original answers: PPTD's utility
loss) and, per release, ``noise`` (the average |added noise| over answered cells, method
``(release)``). ``mechanism = none`` and ε = inf are the answers as collected.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import inference
from ..seeds import derive_rng

__all__ = ["RELEASE", "NO_MECHANISM", "BASE_RATE", "run_labels", "run_values", "methods_for"]

#: The ``method`` of per-release rows (the noise a release added).
RELEASE = "(release)"
#: The ``mechanism`` of rows on the answers as collected.
NO_MECHANISM = "none"
#: The ``method`` of the reference rows: always answer the most frequent gold label.
BASE_RATE = "(most frequent label)"


def methods_for(methods, data_type: str, known) -> list[str]:
    """The configured ``methods`` that apply to answers of ``data_type`` with what is ``known``
    of their release (label averages on labels as the ordinal view: ``sun`` only)."""
    out = []
    for mid in methods:
        m = inference.METHODS[mid]
        if m.needs == "channel" and (known is None or known.channel is None):
            continue
        if m.needs == "noise" and (known is None or known.noise_variance is None):
            continue
        if m.accepts == data_type or (data_type == "categorical" and mid == "sun"):
            out.append(mid)
    return out


def _rows(base: dict, method: str, metrics: dict) -> list[dict]:
    return [{**base, "method": method, "metric": name, "value": float(value)}
            for name, value in metrics.items()]


def _label_metrics(labels, values, truth, has_truth, k) -> dict:
    """accuracy and balanced accuracy (the mean recall over the gold labels present) of
    ``labels`` on the gold tasks; the MAE of ``values`` as codes (ordinal view)."""
    right = labels[has_truth] == truth[has_truth]
    gold = truth[has_truth]
    present = np.unique(gold)
    recall = [right[gold == c].mean() for c in present]
    out = {"accuracy": float(right.mean()), "balanced_accuracy": float(np.mean(recall))}
    if values is not None:
        v = np.where(np.isnan(values), (k - 1) / 2.0, values)
        out["mae_codes"] = float(np.abs(v[has_truth] - truth[has_truth]).mean())
    return out


def _infer(method, cells, data_type, n_tasks, n_workers, k, known):
    t, w, x = cells
    return inference.infer_long(method, t, w, x, n_tasks=n_tasks, n_workers=n_workers,
                                data_type=data_type, domain=k, release=known,
                                ordinal=(data_type == "categorical"))


def _label_release_rows(base, out, member, settings, eps, k, methods, truth, has_truth,
                        n_tasks, n_workers):
    """Every applicable method on one release of a label dataset."""
    known = inference.known_release(member, eps, domain=k, settings=settings,
                                    source="benchmark")
    if member.releases_labels:
        codes = np.asarray(out.values)
        w, t = np.nonzero(codes != out.null_code)
        cells, data_type = (t, w, codes[w, t].astype(np.float64)), "categorical"
    else:
        dense = out.dense(np.float64)
        w, t = np.nonzero(~np.isnan(dense))
        cells, data_type = (t, w, dense[w, t]), "continuous"
    rows = []
    for mid in methods_for(methods, data_type, known):
        res = _infer(mid, cells, data_type, n_tasks, n_workers, k, known)
        values = None if inference.METHODS[mid].accepts == "categorical" else res.truths
        rows += _rows(base, mid, _label_metrics(res.labels, values, truth, has_truth, k))
    return rows


def run_labels(codes, truth, *, dataset: str, domain_size: int, mechanisms, epsilons,
               repetitions: int, methods, seed: int, progress=None) -> pd.DataFrame:
    """The benchmark on a label dataset.

    ``codes``: workers x tasks int8 label codes, NULL = K (:func:`crowdpriv.mechanisms.
    answer_codes`); ``truth``: per task (NaN = no gold); ``mechanisms``: ``[(member,
    settings)]`` with a sweep sampler; ``methods``: inference ids (those that apply run).
    """
    k = int(domain_size)
    codes = np.asarray(codes, dtype=np.int8)
    n_workers, n_tasks = codes.shape
    truth = np.asarray(truth, dtype=np.float64)
    has_truth = ~np.isnan(truth)
    gold = np.where(has_truth, truth, -1).astype(np.int64)
    w, t = np.nonzero(codes != k)
    raw = (t, w, codes[w, t].astype(np.float64))
    rows = []
    base = {"dataset": dataset, "mechanism": NO_MECHANISM, "epsilon": math.inf, "rep": 0}
    frequent = np.bincount(gold[has_truth], minlength=k).argmax()
    rows += _rows(base, BASE_RATE, _label_metrics(np.full(n_tasks, frequent), None, gold,
                                                  has_truth, k))
    for mid in methods_for(methods, "categorical", None):
        res = _infer(mid, raw, "categorical", n_tasks, n_workers, k, None)
        values = None if inference.METHODS[mid].accepts == "categorical" else res.truths
        rows += _rows(base, mid, _label_metrics(res.labels, values, gold, has_truth, k))
    for member, settings in mechanisms:
        for rep in range(repetitions):
            rng = derive_rng(seed, "benchmark", dataset, rep, member.id)
            state = member.prepare(codes, settings, domain_size=k, rng=rng)
            draws = (member.draws(codes, settings, rng=rng, domain_size=k, state=state)
                     if member.common_draws else None)
            for eps in epsilons:
                if draws is not None:
                    out = member.apply(codes, draws, eps, settings, domain_size=k, state=state)
                else:
                    out = member.perturb(codes, eps, settings, domain_size=k, state=state,
                                         rng=derive_rng(seed, "benchmark", dataset, rep,
                                                        member.id, eps))
                base = {"dataset": dataset, "mechanism": member.id, "epsilon": float(eps),
                        "rep": rep}
                rows += _label_release_rows(base, out, member, settings, eps, k, methods, gold,
                                            has_truth, n_tasks, n_workers)
                if progress is not None:
                    progress(f"{dataset} {member.id} ε {eps:g} rep {rep}")
    return pd.DataFrame(rows)


def _value_metrics(truths, truth, has_truth, original) -> dict:
    err = truths[has_truth] - truth[has_truth]
    out = {"mae": float(np.nanmean(np.abs(err))), "rmse": float(np.sqrt(np.nanmean(err ** 2)))}
    if original is not None:
        out["mae_to_original"] = float(np.nanmean(np.abs(truths - original)))
    return out


def run_values(answers, truth, *, dataset: str, mechanisms, epsilons, repetitions: int,
               methods, seed: int, progress=None) -> pd.DataFrame:
    """The benchmark on a numeric dataset: ``answers`` workers x tasks (NaN = none), ``truth``
    per task; ``mechanisms``: ``[(member, settings)]`` with a release (PPTD)."""
    a = np.asarray(answers, dtype=np.float64)
    n_workers, n_tasks = a.shape
    truth = np.asarray(truth, dtype=np.float64)
    has_truth = ~np.isnan(truth)
    w, t = np.nonzero(~np.isnan(a))
    rows = []
    original = {}
    base = {"dataset": dataset, "mechanism": NO_MECHANISM, "epsilon": math.inf, "rep": 0}
    applicable = methods_for(methods, "continuous", None)
    for mid in applicable:
        res = _infer(mid, (t, w, a[w, t]), "continuous", n_tasks, n_workers, None, None)
        original[mid] = res.truths
        rows += _rows(base, mid, _value_metrics(res.truths, truth, has_truth, None))
    for member, settings in mechanisms:
        for rep in range(repetitions):
            for eps in epsilons:
                rng = derive_rng(seed, "benchmark", dataset, rep, member.id, eps)
                out = member.release(a, eps, settings, rng=rng)
                base = {"dataset": dataset, "mechanism": member.id, "epsilon": float(eps),
                        "rep": rep}
                x = np.asarray(out, dtype=np.float64)[w, t]
                rows += _rows(base, RELEASE, {"noise": float(np.abs(x - a[w, t]).mean())})
                for mid in applicable:
                    res = _infer(mid, (t, w, x), "continuous", n_tasks, n_workers, None, None)
                    rows += _rows(base, mid, _value_metrics(res.truths, truth, has_truth,
                                                            original[mid]))
                if progress is not None:
                    progress(f"{dataset} {member.id} ε {eps:g} rep {rep}")
    return pd.DataFrame(rows)
