"""Per-iteration cost of each truth-inference method against a fixed numpy floor (issue 11).

Not a test: run ``.venv/bin/python benchmarks/inference.py`` on an idle machine. At 1M answers
(10,000 workers × 1,000 tasks, 10 % answered) it measures, side by side in one process:

* the **floor**: one full CRH step over the answers in long format, kept here as the fixed
  reference kernel (``floor_step``): ``np.bincount`` weighted mean per task, per-worker squared
  loss by ``np.bincount``, −log of the normalised losses;
* ``crowdpriv.truth.sun`` / ``crh`` / ``gtm`` on :class:`crowdpriv.answers.Answers`;
* for the record, the same methods on the dense workers × tasks block (``DenseAnswers``: matrix
  products, the path for mechanism outputs that are dense by design).

Per-iteration cost = (time at ``max_iter = hi`` − time at ``max_iter = lo``) / (hi − lo), with
the convergence test disabled, best of ``--repeat`` runs; ratios are to the floor. Writes
``results/benchmarks/scale/inference.csv`` and prints a table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from crowdpriv.answers import Answers, DenseAnswers  # noqa: E402
from crowdpriv.truth import crh, gtm, sun  # noqa: E402


def floor_step(task, worker, value, w, n_tasks, n_workers):
    """One full CRH step over long-format answers: the fixed reference kernel."""
    wk = w[worker]
    truth = np.bincount(task, wk * value, n_tasks) / np.bincount(task, wk, n_tasks)
    d = value - truth[task]
    loss = np.bincount(worker, d * d, n_workers) + 1e-12
    return -np.log(loss / loss.sum()), truth


def make_answers(n_workers, n_tasks, answered, seed=0):
    rng = np.random.default_rng(seed)
    k = int(round(n_workers * n_tasks * answered))
    cell = rng.choice(n_workers * n_tasks, size=k, replace=False)
    worker, task = np.divmod(cell, n_tasks)
    truth = rng.uniform(0, 9, n_tasks)
    sd = rng.uniform(0.5, 3.0, n_workers)
    value = truth[task] + rng.normal(size=k) * sd[worker]
    labels = np.clip(np.rint(value), 0, 9)
    return task, worker, value, labels


def best_time(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def per_iteration(fn, lo, hi, repeat):
    return (best_time(lambda: fn(hi), repeat) - best_time(lambda: fn(lo), repeat)) / (hi - lo)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=10_000)
    parser.add_argument("--tasks", type=int, default=1_000)
    parser.add_argument("--answered", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lo", type=int, default=2)
    parser.add_argument("--hi", type=int, default=12)
    parser.add_argument("--out", default=str(ROOT / "results/benchmarks/scale/inference.csv"))
    args = parser.parse_args(argv)
    m, n = args.workers, args.tasks
    task, worker, value, labels = make_answers(m, n, args.answered)
    long_cont = Answers(task, worker, value, n, m)
    long_lab = Answers(task, worker, labels.astype(np.int8), n, m)
    dense = np.full((m, n), np.nan)
    dense[worker, task] = value
    dense_lab = np.where(np.isnan(dense), np.nan, np.clip(np.rint(dense), 0, 9))
    t32, w32 = task.astype(np.int32), worker.astype(np.int32)
    w = np.ones(m)

    def floor(iters):
        ww = w
        for _ in range(iters):
            ww, _ = floor_step(t32, w32, value, ww, n, m)

    off = dict(tol=0.0)
    rows = [("floor (one CRH step, bincount)", "long", floor)]
    rows += [
        ("sun", "long", lambda k: sun(long_lab, tol=1e-300, max_iter=k)),
        ("crh", "long", lambda k: crh(long_cont, max_iter=k, **off)),
        ("gtm", "long", lambda k: gtm(long_cont, max_iter=k, **off)),
    ]
    dense_src = DenseAnswers(dense)
    dense_lab_src = DenseAnswers(dense_lab, dtype=np.float32)
    rows += [
        ("sun", "dense block float32", lambda k: sun(dense_lab_src, tol=1e-300, max_iter=k)),
        ("crh", "dense block float64", lambda k: crh(dense_src, max_iter=k, **off)),
        ("gtm", "dense block float64", lambda k: gtm(dense_src, max_iter=k, **off)),
    ]
    records = []
    for method, layout, fn in rows:
        fn(1)  # warm-up
        seconds = per_iteration(fn, args.lo, args.hi, args.repeat)
        records.append({"method": method, "layout": layout, "answers": len(value),
                        "workers": m, "tasks": n, "ms_per_iteration": seconds * 1e3})
    df = pd.DataFrame(records)
    df["ratio_to_floor"] = df["ms_per_iteration"] / df["ms_per_iteration"].iloc[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False, float_format="%.4g")
    print(df.to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
