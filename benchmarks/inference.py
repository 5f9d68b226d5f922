"""Per-iteration CPU cost of each truth-inference method, in calibration units (issues 11, 28).

Not a test: run ``.venv/bin/python benchmarks/inference.py`` (CPU time, so a busy machine
skews it less than wall-clock time, though caches are shared). At 1M answers (10,000 workers ×
1,000 tasks, 10 % answered) it measures, side by side in one process:

* the **unit**: one ``np.bincount`` pass over 1M answers with weights
  (``crowdpriv.runtime.calibration_unit``, CPU seconds, median of 9), measured at the start,
  middle and end of the run; every cost is also stated in these units;
* the **floor**: one full CRH step over the answers in long format, kept here as the fixed
  reference kernel (``floor_step``): ``np.bincount`` weighted mean per task, per-worker squared
  loss by ``np.bincount``, −log of the normalised losses;
* ``crowdpriv.truth.sun`` / ``crh`` / ``gtm`` on :class:`crowdpriv.answers.Answers` (one sparse
  matrix-vector product per reduction), and, for before/after in the same run, on
  :class:`PerAnswerSums`, the per-answer ``np.bincount`` reductions of crowdpriv eff617d;
* the same methods on the dense workers × tasks block (``DenseAnswers``: matrix products, the
  path for mechanism outputs that are dense by design);
* the one-time cost of building the long-format sparse matrix (per answer set);
* with ``--crossover``: Sun per iteration on labels in both layouts as the answered share
  grows, which sets ``crowdpriv.answers.DENSE_ABOVE``.

Per-iteration cost = (CPU time at ``max_iter = hi`` − at ``max_iter = lo``) / (hi − lo), the
convergence test disabled, medians of ``--repeat`` runs. Writes
``results/benchmarks/scale/inference.csv`` (and ``inference_crossover.csv``) and prints tables.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# One BLAS/OpenMP thread, as every pipeline job runs (workflow/rules/common.smk): CPU time of a
# multi-threaded product counts its threads' spinning too.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from crowdpriv.answers import Answers, DenseAnswers  # noqa: E402
from crowdpriv.files import atomic_path  # noqa: E402
from crowdpriv.runtime import calibration_unit  # noqa: E402
from crowdpriv.truth import crh, gtm, sun  # noqa: E402


def floor_step(task, worker, value, w, n_tasks, n_workers):
    """One full CRH step over long-format answers: the fixed reference kernel."""
    wk = w[worker]
    truth = np.bincount(task, wk * value, n_tasks) / np.bincount(task, wk, n_tasks)
    d = value - truth[task]
    loss = np.bincount(worker, d * d, n_workers) + 1e-12
    return -np.log(loss / loss.sum()), truth


class PerAnswerSums:
    """The reductions of crowdpriv eff617d: per-answer gathers and ``np.bincount`` passes."""

    def __init__(self, answers: Answers):
        self.a = answers
        self.groups, self.n_tasks, self.n_workers = (answers.groups, answers.n_tasks,
                                                     answers.n_workers)
        self.task_counts = np.bincount(answers.task, minlength=answers.n_tasks).astype(float)
        self.worker_counts = np.bincount(answers.worker, minlength=answers.n_workers
                                         ).astype(float)

    def task_sums(self, worker_weight):
        a = self.a
        w = worker_weight[a.worker]
        return (np.bincount(a.task, weights=w * a.value, minlength=a.n_tasks),
                np.bincount(a.task, weights=w, minlength=a.n_tasks))

    def worker_losses(self, truth, task_scale=None):
        a = self.a
        d = a.value - truth[a.task]
        d = d * d
        if task_scale is not None:
            d /= task_scale[a.task]
        return np.bincount(a.worker, weights=d, minlength=a.n_workers)

    def task_moments(self):
        return self.a.task_moments()

    def task_medians(self):
        return self.a.task_medians()

    def standardised(self, center, scale):
        return PerAnswerSums(self.a.standardised(center, scale))


def make_answers(n_workers, n_tasks, answered, seed=0):
    rng = np.random.default_rng(seed)
    k = int(round(n_workers * n_tasks * answered))
    cell = np.sort(rng.choice(n_workers * n_tasks, size=k, replace=False))
    worker, task = np.divmod(cell, n_tasks)
    truth = rng.uniform(0, 9, n_tasks)
    sd = rng.uniform(0.5, 3.0, n_workers)
    value = truth[task] + rng.normal(size=k) * sd[worker]
    labels = np.clip(np.rint(value), 0, 9)
    return task, worker, value, labels


def cpu_time(fn, repeat):
    """Median CPU seconds of ``fn()`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return float(np.median(times))


def per_iteration(fn, lo, hi, repeat):
    return (cpu_time(lambda: fn(hi), repeat) - cpu_time(lambda: fn(lo), repeat)) / (hi - lo)


def crossover(m, n, fills, lo, hi, repeat, unit):
    """Sun per iteration on labels, long format vs the dense float32 block, by answered share."""
    rows = []
    for fill in fills:
        task, worker, _, labels = make_answers(m, n, fill, seed=1)
        long = Answers(task, worker, labels.astype(np.int8), n, m)
        dense = np.full((m, n), np.nan, dtype=np.float32)
        dense[worker, task] = labels
        block = DenseAnswers(dense, dtype=np.float32)
        del dense
        for layout, src in (("long", long), ("dense block float32", block)):
            sun(src, tol=1e-300, max_iter=1)  # builds the long layout's matrix
            s = per_iteration(lambda k, src=src: sun(src, tol=1e-300, max_iter=k), lo, hi,
                              repeat)
            rows.append({"answered": fill, "layout": layout, "answers": len(labels),
                         "cpu_ms_per_iteration": s * 1e3, "units_per_iteration": s / unit})
        del long, block
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=10_000)
    parser.add_argument("--tasks", type=int, default=1_000)
    parser.add_argument("--answered", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lo", type=int, default=2)
    parser.add_argument("--hi", type=int, default=12)
    parser.add_argument("--crossover", default="0.01,0.03,0.1,0.2,0.3,0.5,0.8",
                        help="answered shares for the layout crossover ('' to skip)")
    parser.add_argument("--out", default=str(ROOT / "results/benchmarks/scale/inference.csv"))
    args = parser.parse_args(argv)
    m, n = args.workers, args.tasks
    units = [calibration_unit(repeat=9)]
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

    build = cpu_time(lambda: Answers(task, worker, value, n, m).task_sums(w), args.repeat)
    off = dict(tol=0.0)
    old_cont, old_lab = PerAnswerSums(long_cont), PerAnswerSums(long_lab)
    dense_src = DenseAnswers(dense)
    dense_lab_src = DenseAnswers(dense_lab, dtype=np.float32)
    rows = [
        ("floor (one CRH step, bincount)", "long", floor),
        ("sun", "long", lambda k: sun(long_lab, tol=1e-300, max_iter=k)),
        ("crh", "long", lambda k: crh(long_cont, max_iter=k, **off)),
        ("gtm", "long", lambda k: gtm(long_cont, max_iter=k, **off)),
        ("sun", "long, per-answer bincount (eff617d)",
         lambda k: sun(old_lab, tol=1e-300, max_iter=k)),
        ("crh", "long, per-answer bincount (eff617d)", lambda k: crh(old_cont, max_iter=k, **off)),
        ("gtm", "long, per-answer bincount (eff617d)", lambda k: gtm(old_cont, max_iter=k, **off)),
        ("sun", "dense block float32", lambda k: sun(dense_lab_src, tol=1e-300, max_iter=k)),
        ("crh", "dense block float64", lambda k: crh(dense_src, max_iter=k, **off)),
        ("gtm", "dense block float64", lambda k: gtm(dense_src, max_iter=k, **off)),
    ]
    records = []
    for i, (method, layout, fn) in enumerate(rows):
        fn(1)  # warm-up (and the long layout's one-time build)
        seconds = per_iteration(fn, args.lo, args.hi, args.repeat)
        records.append({"method": method, "layout": layout, "answers": len(value),
                        "workers": m, "tasks": n, "cpu_ms_per_iteration": seconds * 1e3})
        if i == len(rows) // 2:
            units.append(calibration_unit(repeat=9))
    units.append(calibration_unit(repeat=9))
    unit = float(np.median(units))
    df = pd.DataFrame(records)
    df["units_per_iteration"] = df["cpu_ms_per_iteration"] / (unit * 1e3)
    df["ratio_to_floor"] = df["cpu_ms_per_iteration"] / df["cpu_ms_per_iteration"].iloc[0]
    df.loc[len(df)] = {"method": "build the long layout's matrix (once per answer set)",
                       "layout": "long", "answers": len(value), "workers": m, "tasks": n,
                       "cpu_ms_per_iteration": build * 1e3,
                       "units_per_iteration": build / unit,
                       "ratio_to_floor": build * 1e3 / df["cpu_ms_per_iteration"].iloc[0]}
    df["unit_cpu_ms"] = unit * 1e3
    out = Path(args.out)
    with atomic_path(out) as tmp:  # written whole or not at all
        df.to_csv(tmp, index=False, float_format="%.4g")
    print(f"unit: one np.bincount pass over 1M answers with weights = {unit * 1e3:.3f} ms CPU "
          f"(start/middle/end: {', '.join(f'{u * 1e3:.3f}' for u in units)})")
    print(df.drop(columns="unit_cpu_ms").to_string(index=False,
                                                   float_format=lambda v: f"{v:.3g}"))
    if args.crossover:
        fills = [float(f) for f in args.crossover.split(",")]
        cross = crossover(m, n, fills, args.lo, args.hi, args.repeat, unit)
        with atomic_path(out.with_name("inference_crossover.csv")) as tmp:
            cross.to_csv(tmp, index=False, float_format="%.4g")
        print("\nSun per iteration by answered share (DENSE_ABOVE is where the dense block "
              "starts to win):")
        print(cross.pivot(index="answered", columns="layout", values="units_per_iteration")
              .to_string(float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
