"""Issue 27's acceptance, measured through the user's path: ``crowdpriv perturb`` then
``crowdpriv infer`` with the ledger read automatically.

Not a test (about 3 min of CPU): ``.venv/bin/python benchmarks/infer_after_release.py``. For
product and dog (the datasets the defaults were chosen on) and web (kept aside), each of
``--seeds`` releases by ``perturb rr`` at ε 1 and 2 is written with its ledger
(:func:`crowdpriv.write_release`) and read back by :func:`crowdpriv.infer` without a method (the
default after the ledger's mechanism) and with ``majority``; then releases by RR on answered
cells (``crowdpriv.examples:RRAnswersOnly``, ``--register`` on the command line) are aggregated
by ``ds`` and ``majority``. Seeded releases (reproducible, hence not private: the measurement's
own). Prints accuracy per method, mean over seeds with the standard error of the paired
difference, and writes ``results/benchmarks/infer_after_release.csv``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import crowdpriv  # noqa: E402
from crowdpriv import mechanisms  # noqa: E402
from crowdpriv.files import atomic_path  # noqa: E402
from crowdpriv.examples import RRAnswersOnly  # noqa: E402

#: Datasets: processed answers and gold, and |Γ| (product and dog from their config blocks,
#: web LDP-sparse's real_domain_size).
DATASETS = {"product": 2, "dog": 4, "web": 5}


def load(name: str):
    folder = ROOT / "data" / "processed" / name
    claims = pd.read_csv(folder / "claims.csv", dtype={"task": str, "worker": str})
    truth = pd.read_csv(folder / "truth.csv", dtype={"task": str})
    answers = claims.rename(columns={"value": "label"})
    return answers, truth.set_index("task")["truth"]


def accuracy(truths: pd.DataFrame, gold: pd.Series) -> float:
    joined = truths.set_index("task")["label"].reindex(gold.index)
    return float((joined.to_numpy() == gold.to_numpy()).mean())


def run(seeds: int, epsilons, folder: Path) -> pd.DataFrame:
    mechanisms.register(RRAnswersOnly)
    rows = []
    for name, k in DATASETS.items():
        answers, gold = load(name)
        for mechanism, methods in (("rr", (None, "majority")),
                                   ("rr-answers-only", ("ds", "majority"))):
            for eps in epsilons:
                for seed in range(seeds):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        release = crowdpriv.perturb(answers, mechanism, epsilon=eps, domain=k,
                                                    seed=seed, audit=False, allow_unsafe=True)
                    path = folder / f"{name}-{mechanism}-{eps:g}-{seed}.csv"
                    crowdpriv.write_release(release, path, progress=False)
                    for method in methods:
                        out = crowdpriv.infer(path, method)
                        rows.append({"dataset": name, "mechanism": mechanism, "epsilon": eps,
                                     "seed": seed, "method": method or "default",
                                     "chosen": out.ledger["mechanism"],
                                     "accuracy": accuracy(out.data, gold)})
                    path.unlink()
                    path.with_name(path.name + ".privacy.json").unlink()
    return pd.DataFrame(rows)


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (name, mech, eps), g in runs.groupby(["dataset", "mechanism", "epsilon"], sort=False):
        tab = g.pivot(index="seed", columns="method", values="accuracy")
        first, second = ("default", "majority") if "default" in tab else ("ds", "majority")
        diff = tab[first] - tab[second]
        out.append({"dataset": name, "mechanism": mech, "epsilon": eps,
                    "method": f"{first} ({g.loc[g['method'] == first, 'chosen'].iloc[0]})",
                    "accuracy": tab[first].mean(), "majority": tab[second].mean(),
                    "difference_points": 100 * diff.mean(),
                    "se_points": 100 * diff.std(ddof=1) / np.sqrt(len(diff)),
                    "seeds": len(diff)})
    return pd.DataFrame(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 2.0])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        runs = run(args.seeds, args.epsilons, Path(tmp))
    table = summarise(runs)
    out = ROOT / "results" / "benchmarks" / "infer_after_release.csv"
    with atomic_path(out) as tmp:  # written whole or not at all
        runs.to_csv(tmp, index=False)
    print(table.to_markdown(index=False, floatfmt=".4f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
