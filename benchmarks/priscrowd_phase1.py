"""PrisCrowd phase 1 against KDEm's fit on population, side by side in one process (issue 11).

Not a test: needs the processed population dataset (``snakemake datasets``) and a checkout of
Mengting Wan's KDEm (https://github.com/MengtingWan/KDEm, Python 2). The script ports KDEm to
Python 3 *outside the project* (a temporary copy with four mechanical fixes: ``print``,
``dict.has_key``, ``np.int``, integer source indices for modern numpy) and times, best of
``--repeat``:

* ours: ``crowdpriv.priscrowd`` phase 1 (normalisation, bandwidths, global weights Eq. 1-2,
  local weights Eq. 3-4, combined Eq. 5-6) on the flat claim layout;
* KDEm's ``KDEm`` fit (global weights only) on the same z-scored claims, with **our per-object
  bandwidths** (KDEm's ``get_kernel_matrix`` takes the first object's MAD for every object, a
  bug noted in our docs; the port is given each object's h instead) and **the same number of
  global iterations** (``tol`` disabled, ``max_itr`` = ours + 1 as KDEm counts its first update).

Writes ``results/benchmarks/scale/priscrowd_phase1.csv``.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from crowdpriv.priscrowd import Params, drop_single_claim_objects  # noqa: E402
from crowdpriv.files import atomic_path  # noqa: E402
from crowdpriv.priscrowd._experiments import fit_claims_table  # noqa: E402
from crowdpriv.priscrowd._flat import fit_flat, flat_claims  # noqa: E402
from crowdpriv.tables import read_claims  # noqa: E402


def port_kdem(repo: Path, folder: Path):
    """Python 3 copy of KDEm.py and basic_functions.py in ``folder``; returns the modules."""
    for name in ("KDEm.py", "basic_functions.py"):
        text = (repo / name).read_text()
        text = text.replace('print "#iteration:",itr', 'print("#iteration:", itr)')
        text = re.sub(r"\.has_key\(([^)]*)\)", r".__contains__(\1)", text)
        text = text.replace("np.int(", "int(")
        # numpy >= 1.12 refuses float indices: KDEm keeps source ids in a float column
        text = text.replace("src = list(data[i][:,0])", "src = list(data[i][:,0].astype(int))")
        (folder / name).write_text(text)
    sys.path.insert(0, str(folder))
    bsf = importlib.import_module("basic_functions")
    kdem = importlib.import_module("KDEm")
    return kdem, bsf


def per_object_kernels(bsf, h_per_object):
    """KDEm's get_kernel_matrix, unchanged but for one bandwidth per object."""

    def get_kernel_matrix(claim, n, method, h=-1):
        kernel_m = []
        for i in range(n):
            x_i = claim[i]
            hi = h_per_object[i]
            tmp = np.zeros((len(x_i), len(x_i)))
            for j in range(len(x_i)):
                tmp[j, :] = bsf.K((x_i[j] - x_i) / hi, method)
            kernel_m.append(tmp)
        return kernel_m

    return get_kernel_matrix


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kdem-repo", required=True, help="checkout of MengtingWan/KDEm")
    parser.add_argument("--claims", default=str(ROOT / "data/processed/population/claims.csv"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import yaml

    params = Params.from_mapping(yaml.safe_load((ROOT / "config/config.yaml").read_text())
                                 ["priscrowd"])
    claims, _ = drop_single_claim_objects(read_claims(args.claims))
    obj, objects = pd.factorize(claims["task"], sort=True)
    src, sources = pd.factorize(claims["worker"], sort=True)
    values = claims["value"].to_numpy(float)

    def phase1():
        fc = flat_claims(obj, src, values, n_objects=len(objects), rule=params.bandwidth,
                         mad_min=params.mad_min, h_min=params.h_min)
        return fc, fit_flat(fc, len(sources), quantiles=params.hampel_quantiles,
                            update_thresholds=params.hampel_update, max_iter=params.max_iter,
                            tol=params.tol)

    phase1()  # warm-up
    ours_s, (fc, fit) = best(phase1, args.repeat)
    n_iter = fit[3]
    table_s, _ = best(lambda: fit_claims_table(claims, params), args.repeat)
    data = [np.column_stack([fc.src[fc.start[i]:fc.start[i] + fc.counts[i]],
                             fc.z[fc.start[i]:fc.start[i] + fc.counts[i]]])
            for i in range(len(objects))]
    with tempfile.TemporaryDirectory() as tmp:
        kdem, bsf = port_kdem(Path(args.kdem_repo), Path(tmp))
        bsf.get_kernel_matrix = per_object_kernels(bsf, fc.h)
        run = lambda: kdem.KDEm(data, len(sources), len(objects), tol=-1.0,  # noqa: E731
                                max_itr=n_iter + 1)
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            run()
            kdem_s, out = best(run, args.repeat)
    rows = [
        {"what": "crowdpriv PrisCrowd phase 1 (normalise, bandwidths, global + local + "
                 "combined weights)", "seconds": ours_s, "global_iterations": n_iter},
        {"what": "crowdpriv fit_claims_table (phase 1 + ids + padded batches for the release)",
         "seconds": table_s, "global_iterations": n_iter},
        {"what": "KDEm fit (Python 3 port, global weights only)", "seconds": kdem_s,
         "global_iterations": int(out[2]) - 1},
    ]
    df = pd.DataFrame(rows)
    df["claims"], df["objects"], df["sources"] = len(claims), len(objects), len(sources)
    df["speedup_vs_kdem"] = kdem_s / df["seconds"]
    out_path = ROOT / "results/benchmarks/scale/priscrowd_phase1.csv"
    with atomic_path(out_path) as tmp:  # written whole or not at all
        df.to_csv(tmp, index=False, float_format="%.4g")
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
