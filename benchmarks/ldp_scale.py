"""Time and peak memory of one LDP-sparse point as it grows to 100,000 × 10,000 (issue 11).

Not a test: run ``.venv/bin/python benchmarks/ldp_scale.py`` on an idle machine. Each size runs
in its own process (so its peak RSS is its own): synthetic answers straight into long format
(``crowdpriv.ldp_sparse.synthetic_long``, sparsity 0.9), truth inference on them
(``crowdpriv.truth.sun``), then LP, RR, 2-Layer and MF at one ε in blocks of workers
(``crowdpriv.streaming.perturb_in_blocks``) each followed by inference, one repetition. Writes
``results/benchmarks/scale/ldp_scale.csv`` and ``ldp_scale.png`` (time and peak memory vs
cells, log-log); CPU seconds of each size's process (``cpu_s``, user + system, imports included)
and in calibration units (``cpu_units``: ``crowdpriv.runtime.calibration_unit`` measured in the
same process after the point). Each size's process applies ``crowdpriv.runtime.keep_freed_memory()`` (a
process-global malloc setting: freed large blocks are kept for reuse; column
``freed_memory_kept``). ``--sizes 2000x200,10000x1000`` picks sizes; ``--mode regenerate`` redraws
LP's, RR's and 2-Layer's blocks at every reduction instead of storing them
(``ldp_scale_regenerate.*``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from crowdpriv.files import atomic_path  # noqa: E402

OUT = ROOT / "results/benchmarks/scale"
SIZES = "2000x200,10000x1000,50000x5000,100000x10000"


def one_point(m: int, n: int, *, sparsity: float, epsilon: float, block: int, seed: int,
              mode: str = "compact") -> dict:
    from crowdpriv.ldp_sparse import mae, synthetic_long
    from crowdpriv.mechanisms.mf import draw_task_profiles
    from crowdpriv.seeds import derive_rng
    from crowdpriv.streaming import perturb_in_blocks
    from crowdpriv.truth import sun

    record = {"workers": m, "tasks": n, "cells": m * n, "sparsity": sparsity,
              "epsilon": epsilon, "block_workers": block, "mode": mode}
    t0 = time.perf_counter()
    answers, truth, _ = synthetic_long(m, n, sparsity, seed=seed, block_workers=block)
    record["answers"] = answers.size
    record["generate_s"] = time.perf_counter() - t0
    t = time.perf_counter()
    original = sun(answers)
    record["infer_original_s"] = time.perf_counter() - t
    record["iterations_original"] = int(original.iterations[0])
    mae_o = float(mae(truth, original.truths, fill_value=4.5))
    answers.free_reductions()  # the original inference's sparse matrix (24 bytes per answer)
    profiles = draw_task_profiles(n, 10, rng=derive_rng(seed, "streaming", "V"))
    for method in ("LP", "RR", "2-Layer", "MF"):
        t = time.perf_counter()
        out = perturb_in_blocks(answers, method, epsilon, seed=seed, domain_size=10,
                                block_workers=block, profiles=profiles, mode=mode)
        record[f"{method}_perturb_s"] = time.perf_counter() - t
        stored = out.u.nbytes if hasattr(out, "u") else out.nbytes
        record[f"{method}_output_mb"] = stored / 2**20
        t = time.perf_counter()
        res = sun(out)
        record[f"{method}_infer_s"] = time.perf_counter() - t
        record[f"{method}_iterations"] = int(res.iterations[0])
        record[f"{method}_mae_change"] = float(mae(truth, res.truths, fill_value=4.5)) - mae_o
        del out, res
    record["total_s"] = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    record["cpu_s"] = usage.ru_utime + usage.ru_stime  # the whole process: imports included
    record["system_s"] = usage.ru_stime
    record["peak_rss_mb"] = usage.ru_maxrss / 1024
    from crowdpriv.runtime import calibration_unit

    record["unit_cpu_s"] = calibration_unit()  # after the point, so not counted in cpu_s
    record["cpu_units"] = record["cpu_s"] / record["unit_cpu_s"]
    return record


def plot(df: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    axes[0].loglog(df["cells"], df["total_s"], "o-")
    axes[0].set(xlabel="workers × tasks (cells)", ylabel="time of the point (s)",
                title="LP + RR + 2-Layer + MF with inference")
    axes[1].loglog(df["cells"], df["peak_rss_mb"] / 1024, "o-")
    axes[1].axhline(16, color="grey", ls="--", label="16 GiB budget")
    axes[1].set(xlabel="workers × tasks (cells)", ylabel="peak RSS (GiB)")
    axes[1].legend()
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    with atomic_path(path) as tmp:  # written whole or not at all
        fig.savefig(tmp, dpi=120, format="png")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=SIZES)
    parser.add_argument("--sparsity", type=float, default=0.9)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--block", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20181210)
    parser.add_argument("--mode", choices=["compact", "regenerate"], default="compact",
                        help="LP/RR/2-Layer outputs stored compactly, or redrawn per reduction")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        from crowdpriv.runtime import keep_freed_memory

        # A process-global glibc malloc setting (mallopt): large freed blocks stay with this
        # process for reuse instead of being unmapped and faulted in again (the pipeline's
        # jobs get it from start_job). It changes no number; it keeps this size's peak RSS
        # about the same and returns nothing to the kernel before the process ends.
        m, n = map(int, args.one.split("x"))
        record = {"freed_memory_kept": keep_freed_memory()}
        print(json.dumps(record | one_point(m, n, sparsity=args.sparsity, epsilon=args.epsilon,
                                   block=args.block, seed=args.seed, mode=args.mode)))
        return
    records = []
    for size in args.sizes.split(","):
        run = subprocess.run(
            [sys.executable, __file__, "--one", size, "--sparsity", str(args.sparsity),
             "--epsilon", str(args.epsilon), "--block", str(args.block), "--seed",
             str(args.seed), "--mode", args.mode], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{size} failed:\n{run.stderr[-3000:]}")
        records.append(json.loads(run.stdout.strip().splitlines()[-1]))
        r = records[-1]
        print(f"{size}: {r['total_s']:.1f} s wall, {r['cpu_s']:.1f} CPU-s ({r['system_s']:.1f} "
              f"system) = {r['cpu_units']:,.0f} units of {r['unit_cpu_s'] * 1e3:.2f} ms, peak "
              f"RSS {r['peak_rss_mb'] / 1024:.2f} GiB", flush=True)
    df = pd.DataFrame(records)
    stem = "ldp_scale" if args.mode == "compact" else f"ldp_scale_{args.mode}"
    with atomic_path(OUT / f"{stem}.csv") as tmp:  # written whole or not at all
        df.to_csv(tmp, index=False, float_format="%.4g")
    plot(df, OUT / f"{stem}.png")
    cols = ["workers", "tasks", "answers", "total_s", "cpu_s", "cpu_units", "peak_rss_mb", "LP_infer_s", "RR_infer_s",
            "2-Layer_infer_s", "MF_infer_s", "LP_mae_change", "RR_mae_change",
            "2-Layer_mae_change", "MF_mae_change"]
    print(df[cols].to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
