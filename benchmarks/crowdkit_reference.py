"""Reference outputs of crowd-kit's aggregators on the truth-inference benchmark (issue 27).

Not part of the project: crowd-kit is never a dependency and no project test imports it. Run in
a throwaway venv outside the repository::

    python3 -m venv /tmp/ck-venv
    /tmp/ck-venv/bin/pip install crowd-kit "scikit-learn<1.6" "pandas<3"
    /tmp/ck-venv/bin/python benchmarks/crowdkit_reference.py

(crowd-kit 1.4.2's ``Wawa`` calls ``sklearn.utils.validation.check_is_fitted`` on a class that is
not a scikit-learn estimator, which scikit-learn >= 1.6 rejects; hence the pins.)

It reads the three datasets of Zheng, Li, Li, Shan, Cheng, "Truth Inference in Crowdsourcing:
Is the Problem Solved?", PVLDB 10(5), 2017 from the data mirror
(``../shared/datasets/truth_inference_benchmark``, see its SOURCE.md), runs crowd-kit's
categorical aggregators with their default parameters on ``product`` (binary) and ``dog``
(4 labels), and writes into ``benchmarks/crowdkit/``:

* ``<dataset>_labels.csv``: ``task`` (the id as in the answer file) and one column per method
  with crowd-kit's label; ``mv_tie`` is 1 where the majority vote had a tie (crowd-kit then
  returns the lowest tied label: ``probas_.idxmax`` over label columns sorted ascending);
  ``DawidSkene_10it`` / ``OneCoinDawidSkene_10it`` (label) and ``..._pmax`` (its posterior
  probability) after exactly 10 EM iterations (``tol=-1`` never stops early), which pins the
  EM steps themselves whatever the stopping rule;
* ``accuracy.csv``: dataset, method, accuracy against ``truth.csv``, CPU seconds of the call,
  EM iterations run (``len(loss_history_)``; empty for the others), the parameters used;
* ``emotion.csv`` / the emotion rows of ``accuracy.csv``: crowd-kit has no aggregator for
  numeric answers. Its embedding aggregators (RASA) run on 1-d "embeddings" (the number
  itself) off-label; we record RASA's choice (the worker answer closest to its reliability-
  weighted mean) with MAE/RMSE, beside the plain mean and median (pandas, not crowd-kit);
* ``product_rr_answers.csv``: crowd-kit's MajorityVote and DawidSkene accuracy on the 20 + 20
  releases of ``benchmarks/categorical_inference.py``'s RR-on-answered-cells rows (ε = 1, 2;
  same seeds, released with ``crowdpriv.examples.rr_answers_only``) and DS's iterations;
* ``meta.json``: versions (crowd-kit, numpy, pandas, scipy, Python), the input sha256s and
  crowd-kit's published accuracies (JOSS 9(96):6227, Table "categorical", D_Product column).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from crowdpriv.files import atomic_path, write_text  # noqa: E402  (stdlib only)

MIRROR = ROOT.parent / "shared" / "datasets" / "truth_inference_benchmark"
OUT = ROOT / "benchmarks" / "crowdkit"

#: crowd-kit's own table (Ustalov, Pavlichenko, Tseitlin, JOSS 9(96):6227, 2024), D_Product.
PUBLISHED_PRODUCT = {"MajorityVote": 0.897, "Wawa": 0.897, "DawidSkene": 0.940,
                     "GLAD": 0.928, "KOS": 0.895, "MACE": 0.929}


#: EM iterations of the fixed-length runs (the tests compare posteriors after as many steps).
FIXED_ITERATIONS = 10


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def read(name: str):
    ans = pd.read_csv(MIRROR / f"{name}_answer.csv", dtype={"question": str, "worker": str})
    truth = pd.read_csv(MIRROR / f"{name}_truth.csv", dtype={"question": str})
    df = ans.rename(columns={"question": "task", "answer": "label"})
    gt = truth.set_index("question")["truth"]
    gt.index.name = "task"
    return df, gt


def categorical_methods(n_labels: int):
    from crowdkit.aggregation import (
        GLAD, KOS, MACE, DawidSkene, MajorityVote, OneCoinDawidSkene, Wawa)

    methods = {
        "MajorityVote": (MajorityVote, {}),
        "Wawa": (Wawa, {}),
        "DawidSkene": (DawidSkene, {"n_iter": 100, "tol": 1e-5}),
        "OneCoinDawidSkene": (OneCoinDawidSkene, {"n_iter": 100, "tol": 1e-5}),
        "GLAD": (GLAD, {"n_iter": 100, "tol": 1e-5}),
        "MACE": (MACE, {"n_restarts": 10, "n_iter": 50, "method": "vb", "random_state": 0}),
    }
    if n_labels == 2:  # KOS is binary only
        methods["KOS"] = (KOS, {"n_iter": 100, "random_state": 0})
    return methods


def run_categorical(name: str):
    df, gt = read(name)
    n_labels = df["label"].nunique()
    tasks = pd.Index(sorted(df["task"].unique()), name="task")
    out = pd.DataFrame(index=tasks)
    rows = []
    for method, (cls, params) in categorical_methods(n_labels).items():
        data = df.copy()
        t0 = cpu_seconds()
        model = cls(**params)
        labels = model.fit_predict(data)
        cpu = cpu_seconds() - t0
        history = getattr(model, "loss_history_", None)
        labels = labels.reindex(tasks)
        out[method] = labels.astype("Int64")
        acc = float((labels == gt.reindex(tasks)).mean())
        rows.append({"dataset": name, "method": method, "metric": "accuracy", "value": acc,
                     "cpu_seconds": cpu,
                     "iterations": len(history) if history is not None else None,
                     "params": json.dumps(params, sort_keys=True)})
        print(f"{name:8s} {method:18s} accuracy {acc:.4f}  cpu {cpu:.2f}s", flush=True)
    # a fixed number of EM iterations (tol=-1 never stops early): the posteriors after exactly
    # FIXED_ITERATIONS E-steps, independent of the stopping rule
    from crowdkit.aggregation import DawidSkene, OneCoinDawidSkene

    for method, cls in (("DawidSkene", DawidSkene), ("OneCoinDawidSkene", OneCoinDawidSkene)):
        probas = cls(n_iter=FIXED_ITERATIONS, tol=-1.0).fit_predict_proba(df.copy())
        probas = probas.reindex(tasks)
        col = f"{method}_{FIXED_ITERATIONS}it"
        out[col] = probas.idxmax(axis=1).astype("Int64")
        out[f"{col}_pmax"] = probas.max(axis=1).map(lambda v: f"{v:.8g}")
    counts = df.groupby(["task", "label"]).size().unstack(fill_value=0)
    top = counts.max(axis=1)
    out["mv_tie"] = (counts.eq(top, axis=0).sum(axis=1) > 1).reindex(tasks).astype(int)
    with atomic_path(OUT / f"{name}_labels.csv") as tmp:  # written whole or not at all
        out.reset_index().to_csv(tmp, index=False)
    return rows


def run_emotion():
    from crowdkit.aggregation import RASA

    df, gt = read("emotion")
    tasks = pd.Index(sorted(df["task"].unique(), key=int), name="task")
    data = df.rename(columns={"label": "output"})
    data["embedding"] = [np.array([float(v)]) for v in data["output"]]
    t0 = cpu_seconds()
    rasa = RASA().fit_predict(data[["task", "worker", "output", "embedding"]])
    cpu = cpu_seconds() - t0
    est = pd.DataFrame(index=tasks)
    est["RASA_1d"] = rasa["output"].reindex(tasks).astype(float)
    grouped = df.groupby("task")["label"]
    est["mean"] = grouped.mean().reindex(tasks)
    est["median"] = grouped.median().reindex(tasks)
    truth = gt.reindex(tasks).astype(float)
    rows = []
    for method in est.columns:
        err = est[method] - truth
        for metric, value in (("mae", err.abs().mean()), ("rmse", np.sqrt((err**2).mean()))):
            rows.append({"dataset": "emotion", "method": method, "metric": metric,
                         "value": float(value),
                         "cpu_seconds": cpu if method == "RASA_1d" else np.nan,
                         "params": json.dumps({} if method != "RASA_1d" else
                                              {"n_iter": 100, "tol": 1e-9, "alpha": 0.05})})
        print(f"emotion  {method:18s} MAE {rows[-2]['value']:.3f} RMSE {rows[-1]['value']:.3f}")
    with atomic_path(OUT / "emotion.csv") as tmp:  # written whole or not at all
        est.reset_index().to_csv(tmp, index=False)
    return rows


def run_rr_answers(reps: int = 20):
    """crowd-kit's MajorityVote and DawidSkene on the releases of
    ``benchmarks/categorical_inference.py``'s "RR-answers" rows on product: RR over Γ on
    answered cells (:func:`crowdpriv.examples.rr_answers_only`, plain numpy, imported from the
    repository), ε in {1, 2}, the same seeds (``[27, 0, 3, round(100 ε), rep]``, as that
    script's ``run_release`` derives them). Writes ``product_rr_answers.csv``."""
    from crowdkit.aggregation import DawidSkene, MajorityVote
    from crowdpriv.examples import rr_answers_only

    df, gt = read("product")
    t, tids = pd.factorize(df["task"], sort=True)
    w, wids = pd.factorize(df["worker"], sort=True)
    dense = np.full((len(wids), len(tids)), np.nan)
    dense[w, t] = df["label"].to_numpy()
    truth = gt.reindex(tids).to_numpy()
    rows = []
    for eps in (1.0, 2.0):
        for rep in range(reps):
            rng = np.random.default_rng([27, 0, 3, int(round(eps * 100)), rep])
            out = rr_answers_only(dense, eps, rng=rng, domain_size=2)
            wi, ti = np.nonzero(~np.isnan(out))
            release = pd.DataFrame({"task": ti, "worker": wi,
                                    "label": out[wi, ti].astype(int)})
            mv = MajorityVote().fit_predict(release).sort_index().to_numpy()
            model = DawidSkene(n_iter=100, tol=1e-5)
            ds = model.fit_predict(release).sort_index().to_numpy()
            rows.append({"epsilon": eps, "rep": rep, "MajorityVote": (mv == truth).mean(),
                         "DawidSkene": (ds == truth).mean(),
                         "DawidSkene_iterations": len(model.loss_history_)})
    out = pd.DataFrame(rows)
    with atomic_path(OUT / "product_rr_answers.csv") as tmp:  # written whole or not at all
        out.to_csv(tmp, index=False, float_format="%.6g")
    mean = out.groupby("epsilon").mean()
    print("product, RR on answered cells (crowd-kit):")
    print(mean.drop(columns="rep").to_string(float_format=lambda v: f"{v:.4f}"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.parse_args(argv)
    rows = run_categorical("product") + run_categorical("dog") + run_emotion()
    run_rr_answers()
    acc = pd.DataFrame(rows)
    with atomic_path(OUT / "accuracy.csv") as tmp:  # written whole or not at all
        acc.to_csv(tmp, index=False, float_format="%.6g")
    meta = {
        "crowd_kit": version("crowd-kit"), "numpy": np.__version__, "pandas": pd.__version__,
        "scipy": version("scipy"), "scikit_learn": version("scikit-learn"),
        "python": platform.python_version(),
        "inputs": {p.name: sha256(p) for p in sorted(MIRROR.glob("*.csv"))},
        "published_product_accuracy_joss_2024": PUBLISHED_PRODUCT,
        "notes": ("MajorityVote ties: crowd-kit returns the lowest tied label (idxmax over "
                  "ascending label columns). Emotion: no crowd-kit aggregator for numeric "
                  "answers; RASA_1d is RASA on the number as a 1-d embedding (off-label), "
                  "mean/median are pandas baselines."),
    }
    write_text(OUT / "meta.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(acc.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
