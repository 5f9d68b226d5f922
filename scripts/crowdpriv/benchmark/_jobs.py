"""The inference benchmark's jobs: the config values each reads (:data:`JOB_KEYS`,
:func:`job_params`) and what a job does with them (:func:`run_dataset_job`,
:func:`report_tables`).

Mechanism settings are LDP-sparse's (``ldp_sparse.mechanisms``, ``ldp_sparse.d``: the
mechanisms "as LDP-sparse defines them"), a dataset's answer type its ``datasets.<name>``
block's (product, dog, emotion) or, for LDP-sparse's own datasets (web, adultcontent), labels
0..``ldp_sparse.real_domain_size``-1.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..jobs import select

__all__ = ["JOB_KEYS", "job_params", "dataset_answer_type", "run_dataset_job",
           "report_tables", "claims_thresholds"]

#: Config keys each job reads, by top-level block (dotted paths inside it).
JOB_KEYS = {
    "dataset": {"benchmark": ("epsilons", "repetitions", "mechanisms", "extra",
                              "value_mechanisms", "pptd", "methods", "gold_tasks_only"),
                "ldp_sparse": ("mechanisms", "d", "real_domain_size")},
    # extra: the mechanisms it registers own their default inference (the defaults table)
    "report": {"benchmark": ("claims", "kept_aside", "published", "extra")},
}


def dataset_answer_type(config: Mapping, dataset: str) -> tuple[str, int | None]:
    """``("categorical", K)`` or ``("continuous", None)`` of a benchmark dataset."""
    block = (config.get("datasets") or {}).get(dataset) or {}
    if block.get("answer_type") == "continuous":
        return "continuous", None
    if block.get("answer_type") == "categorical":
        return "categorical", int(block["domain_size"])
    return "categorical", int(config["ldp_sparse"]["real_domain_size"])


def job_params(config: Mapping, job: str, dataset: str | None = None) -> dict:
    """``params.config`` of a benchmark job: the values it reads, in the config's shape."""
    out = {block: select(config[block], keys) for block, keys in JOB_KEYS[job].items()}
    if dataset is not None:
        kind, k = dataset_answer_type(config, dataset)
        out["dataset"] = {"name": dataset, "answer_type": kind, "domain_size": k}
    return out


def claims_thresholds(block: Mapping) -> dict:
    """What the benchmark's claims read from its block."""
    return {**block["claims"], "kept_aside": list(block.get("kept_aside") or ()),
            "published": dict(block.get("published") or {})}


def _restricted_to_gold(claims: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    return claims.loc[claims["task"].isin(set(truth["task"]))]


def run_dataset_job(claims_path: str, truth_path: str, params: Mapping, *, seed: int,
                    progress=None) -> pd.DataFrame:
    """One dataset's runs (:func:`crowdpriv.benchmark.run_labels` / ``run_values``) from its
    processed files and the job's ``params.config``."""
    from ..ldp_sparse import register_extra, sweep_mechanisms
    from ..mechanisms import answer_codes, get
    from ..tables import align_truth, claims_to_matrix, read_claims, read_truth
    from ._experiments import run_labels, run_values

    bench, ldp, data = params["benchmark"], params["ldp_sparse"], params["dataset"]
    name, kind, k = data["name"], data["answer_type"], data["domain_size"]
    labels = dict(domain_size=k, domain_key=f"datasets.{name}.domain_size") if k else {}
    claims = read_claims(claims_path, **labels)
    truth = read_truth(truth_path, **labels)
    if name in (bench.get("gold_tasks_only") or ()):
        claims = _restricted_to_gold(claims, truth)
    matrix = claims_to_matrix(claims)
    gold = align_truth(truth, matrix.tasks, truth_path)
    common = dict(dataset=name, epsilons=[float(e) for e in bench["epsilons"]],
                  repetitions=int(bench["repetitions"]), seed=int(seed), progress=progress)
    if kind == "categorical":
        register_extra(bench.get("extra"))
        mechanisms = sweep_mechanisms(bench["mechanisms"], ldp["mechanisms"], d=int(ldp["d"]))
        codes = answer_codes(matrix.values, k)
        return run_labels(codes, gold, domain_size=k, mechanisms=mechanisms,
                          methods=list(bench["methods"]["labels"]), **common)
    from ..pptd import estimate_lambda1

    members = []
    for mid in bench["value_mechanisms"]:
        member = get(mid)
        own = dict(bench.get(member.id) or {})
        if "lambda1" in own and own["lambda1"] is None:  # PPTD's own estimate (Fig. 6)
            own["lambda1"] = estimate_lambda1(matrix.values, gold)
            if progress is not None:
                progress(f"{name}: lambda1 = {own['lambda1']:.6g}, 1 / mean error variance "
                         "against the gold values")
        members.append((member, member.settings(**own)))
    return run_values(matrix.values, gold, mechanisms=members,
                      methods=list(bench["methods"]["values"]), **common)


def report_tables(runs: pd.DataFrame, crowdkit: pd.DataFrame, *, kept_aside=(),
                  published=None, significance=None, tolerance: float = 0.0
                  ) -> dict[str, pd.DataFrame]:
    """The benchmark's tables: ``no_privacy`` (ours beside crowd-kit's on the same files and
    crowd-kit's published numbers), ``summary`` (mean, sd, R per dataset, mechanism, ε, method,
    metric), ``best_mechanism``, ``defaults`` (the table the defaults are chosen from) and
    ``aware_vs_naive`` (each cell of the mechanism-aware claims, decided)."""
    from ..significance import Significance
    from ._claims import CROWDKIT_NAMES, aware_table, best_table, defaults_table
    from ._experiments import NO_MECHANISM
    from ._plots import summarise

    none = runs.loc[runs["mechanism"] == NO_MECHANISM]
    rows = []
    names = {v: k for k, v in CROWDKIT_NAMES.items()}
    ck = crowdkit.loc[crowdkit["metric"].isin(["accuracy", "mae", "rmse"])]
    for r in none.loc[none["metric"].isin(["accuracy", "balanced_accuracy", "mae",
                                           "rmse"])].itertuples():
        theirs = ck.loc[(ck["dataset"] == r.dataset) & (ck["method"].map(names) == r.method)
                        & (ck["metric"] == r.metric), "value"]
        printed = (((published or {}).get(r.dataset) or {}).get(CROWDKIT_NAMES.get(r.method, ""))
                   if r.metric == "accuracy" else None)
        rows.append({"dataset": r.dataset, "method": r.method, "metric": r.metric,
                     "ours": r.value,
                     "crowd_kit_same_files": float(theirs.iloc[0]) if len(theirs) else np.nan,
                     "crowd_kit_published": np.nan if printed is None else float(printed)})
    # crowd-kit's other aggregators on the same files, for reference
    for r in ck.loc[~ck["method"].isin(list(names)) & ck["dataset"].isin(
            set(none["dataset"]))].itertuples():
        printed = (((published or {}).get(r.dataset) or {}).get(r.method)
                   if r.metric == "accuracy" else None)
        rows.append({"dataset": r.dataset, "method": f"crowd-kit {r.method}",
                     "metric": r.metric, "ours": np.nan, "crowd_kit_same_files": r.value,
                     "crowd_kit_published": np.nan if printed is None else float(printed)})
    no_privacy = pd.DataFrame(rows).sort_values(["dataset", "metric", "method"], kind="stable")
    return {"no_privacy": no_privacy.reset_index(drop=True),
            "summary": summarise(runs),
            "best_mechanism": best_table(runs),
            "defaults": defaults_table(runs, kept_aside),
            "aware_vs_naive": aware_table(runs, significance or Significance(), tolerance)}
