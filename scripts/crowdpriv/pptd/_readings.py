"""PPTD's job parameters and result tables as functions of its config block, and under a reading.

The pipeline's rules build their parameters with the functions here and the readings job
(:func:`rerun_tables`, merged into the defaults by :func:`crowdpriv.readings.merge_tables`)
re-runs tables with the same functions, so a reading that overrides
nothing reproduces the default tables. See :mod:`crowdpriv.readings`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._checks import ParameterError
from ..data import simulate_indoor
from ..jobs import select
from ..readings import Reading, affected_tables, as_written
from ..seeds import derive_rng
from ..tables import align_truth, claims_to_matrix, read_claims, read_truth
from ._experiments import real_tradeoff, runtime_study, synthetic_tradeoff, weight_comparison

__all__ = [
    "JOB_KEYS",
    "TABLE_KEYS",
    "job_params",
    "claims_thresholds",
    "tradeoff_params",
    "weights_params",
    "runtime_params",
    "indoor_from_config",
    "rerun_tables",
]

_COMMON = ("repetitions", "privacy")
#: The config keys (relative to ``pptd``) each job reads, its figure's block first: the one
#: owner of what a job's params hold (:func:`job_params`, read by :func:`tradeoff_params`,
#: :func:`weights_params`, :func:`runtime_params`) and of what each table of the claims reads
#: (:data:`TABLE_KEYS`). Fig. 8 lists both truth-discovery blocks (its ``method`` picks one).
JOB_KEYS = {
    **{fig: (fig, "synthetic", *_COMMON, "utility_beta", "crh")
       for fig in ("fig2", "fig3", "fig4")},
    "fig5": ("fig5", "synthetic", *_COMMON, "utility_beta", "gtm"),
    "fig6": ("fig6", *_COMMON, "utility_beta", "crh"),
    "fig7": ("fig7", *_COMMON, "crh"),
    "fig8": ("fig8", "synthetic", *_COMMON, "crh", "gtm"),
}
#: Keys only the plots read (the unit on the y axis).
_JOB_OMIT = {"fig6": ("fig6.unit",), "fig7": ("fig7.unit",)}
#: The config keys (relative to ``pptd``; ``datasets.indoor_surrogate`` for the surrogate) each
#: table of the claims reads.
TABLE_KEYS = {
    **{fig: list(JOB_KEYS[fig]) for fig in ("fig2", "fig3", "fig4", "fig5")},
    "fig6": [*JOB_KEYS["fig6"], "datasets.indoor_surrogate"],
    "fig7": [*JOB_KEYS["fig7"], "datasets.indoor_surrogate"],
    "fig7_original": [*JOB_KEYS["fig7"], "datasets.indoor_surrogate"],
    "fig8": list(JOB_KEYS["fig8"]),
}


def job_params(block: Mapping, fig: str) -> dict:
    """``params.config`` of the job of PPTD figure ``fig`` (:data:`JOB_KEYS`): the values it
    reads from the ``pptd`` block, in the config's shape (:func:`crowdpriv.jobs.select`)."""
    return {"pptd": select(block, JOB_KEYS[fig], omit=_JOB_OMIT.get(fig, ()))}


#: Settings of the paper's block its claims read besides the ``claims`` thresholds: Theorem
#: 4.3's β (utility_beta).
CLAIMS_SETTINGS = ("utility_beta",)


def claims_thresholds(block: Mapping) -> dict:
    """What the paper's claims read from its config block: the ``claims`` thresholds and
    :data:`CLAIMS_SETTINGS` (the readings job evaluates the claims with each reading's own)."""
    return {**block["claims"], **{key: block[key] for key in CLAIMS_SETTINGS}}


def _td(block: Mapping, method: str) -> dict:
    return dict(block[method])


def tradeoff_params(block: Mapping, fig: str) -> dict:
    """Keyword arguments of :func:`synthetic_tradeoff` (Figs. 2-5) or :func:`real_tradeoff`
    (Fig. 6, without the data) for one figure: its own block over the shared settings (Fig. 3
    varies λ1, Fig. 4 the number of workers S, Fig. 5 uses GTM)."""
    cfg = block[fig]
    common = dict(epsilons=cfg["epsilons"], repetitions=block["repetitions"],
                  utility_beta=block["utility_beta"], **dict(block["privacy"]))
    if fig == "fig6":
        return dict(dataset=cfg["dataset"], lam1=cfg["lambda1"], method="crh",
                    td_kwargs=_td(block, "crh"), **common)
    syn = block["synthetic"]
    method = "gtm" if fig == "fig5" else "crh"
    return dict(workers=cfg.get("workers", syn["workers"]),
                lam1=cfg.get("lambda1", syn["lambda1"]), tasks=syn["tasks"],
                truth_low=syn["truth_range"][0], truth_high=syn["truth_range"][1],
                method=method, td_kwargs=_td(block, method), **common)


def weights_params(block: Mapping) -> dict:
    """Keyword arguments of :func:`weight_comparison` (Fig. 7, without the data; ``unit`` is
    only drawn)."""
    cfg = block["fig7"]
    return dict(repetitions=block["repetitions"], td_kwargs=_td(block, "crh"),
                **{k: v for k, v in cfg.items() if k not in ("lambda1", "unit")},
                lam1=cfg["lambda1"], **dict(block["privacy"]))


def runtime_params(block: Mapping) -> dict:
    """Keyword arguments of :func:`runtime_study` (Fig. 8)."""
    syn, cfg = block["synthetic"], block["fig8"]
    return dict(workers=syn["workers"], tasks=syn["tasks"], lam1=syn["lambda1"],
                truth_low=syn["truth_range"][0], truth_high=syn["truth_range"][1],
                epsilons=cfg["epsilons"], repetitions=block["repetitions"],
                timing_calls=cfg["timing_calls"], method=cfg["method"],
                td_kwargs=_td(block, cfg["method"]), **dict(block["privacy"]))


def indoor_from_config(cfg: Mapping, *, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The indoor surrogate's (claims, truth) as rule preprocess_indoor_surrogate writes them
    (same seed stream; values pass through the CSV float format, as the pipeline reads them)."""
    kw = {key: tuple(v) if isinstance(v, list) else v for key, v in cfg.items()}
    claims, truth, _ = simulate_indoor(
        n_tasks=kw.pop("tasks"), n_workers=kw.pop("workers"), **kw,
        rng=derive_rng(seed, "dataset", "indoor_surrogate"))
    return as_written(claims), as_written(truth)


def _matrix(claims: pd.DataFrame, truth: pd.DataFrame, where: str):
    matrix = claims_to_matrix(claims)
    return matrix, align_truth(truth, matrix.tasks, where, require="all")


def rerun_tables(reading: Reading, block: Mapping, *, seed: int,
                 data_paths: Mapping[str, Mapping[str, str]], not_rerun: Sequence[str] = (),
                 datasets_block=None) -> tuple[dict, dict, list[str]]:
    """Re-run the claims' tables that ``reading``'s settings reach (:data:`TABLE_KEYS`; see
    :func:`crowdpriv.ldp_sparse.rerun_tables`).

    ``datasets_block`` is the reading's merged ``datasets`` block: a reading that changes the
    indoor surrogate regenerates it in memory (same seed stream as the pipeline); otherwise
    the processed files in ``data_paths`` are read.
    """
    cache = {}

    def indoor(dataset):
        if dataset not in cache:
            if dataset in reading.data:
                claims, truth = indoor_from_config(datasets_block[dataset], seed=seed)
                where = f"{dataset} regenerated under reading {reading.name}"
            else:
                paths = data_paths[dataset]
                claims, truth = read_claims(paths["claims"]), read_truth(paths["truth"])
                where = paths["truth"]
            cache[dataset] = _matrix(claims, truth, where)
        return cache[dataset]

    weights = {}
    new, absent, notes = {}, {}, []
    for name in affected_tables(reading, TABLE_KEYS):
        if name in not_rerun:
            absent[name] = (f"not re-run under reading {reading.name} (listed in "
                            "readings.not_rerun for cost)")
            continue
        try:
            if name in ("fig2", "fig3", "fig4", "fig5"):
                table = synthetic_tradeoff(seed=seed, **tradeoff_params(block, name))
            elif name == "fig6":
                matrix, truth = indoor(block["fig6"]["dataset"])
                table = real_tradeoff(matrix.values, truth, seed=seed,
                                      **tradeoff_params(block, name))
            elif name in ("fig7", "fig7_original"):
                if not weights:
                    matrix, truth = indoor(block["fig7"]["dataset"])
                    _, weights["fig7"], weights["fig7_original"] = weight_comparison(
                        matrix.values, truth, seed=seed, **weights_params(block))
                table = weights[name]
            else:  # fig8
                table = runtime_study(seed=seed, **runtime_params(block), timed_calls=False)[0]
        except ParameterError as err:
            # e.g. a sparser surrogate leaves too few workers for Fig. 7: the table does not
            # exist under this reading, and its claims cannot be tested there
            absent[name] = f"cannot be computed under reading {reading.name}: {err}"
            notes.append(f"{name}: {absent[name]}")
            continue
        new[name] = as_written(table)
        notes.append(f"{name}: re-run")
        if name == "fig6" and block["fig6"]["dataset"] in reading.data:
            notes.append(_claims_per_segment_note(block["fig6"]["dataset"], indoor, data_paths,
                                                  new[name]))
    return new, absent, notes


def _claims_per_segment_note(dataset, indoor, data_paths, fig6) -> str:
    """Claims per segment of the reading's surrogate beside the default's, and Fig. 6's mean
    MAE/noise ratio per ε under the reading (the indoor claim's measure)."""
    matrix, _ = indoor(dataset)
    per = (~np.isnan(matrix.values)).sum() / matrix.values.shape[1]
    default = read_claims(data_paths[dataset]["claims"])
    per_default = len(default) / default["task"].nunique()
    ratio = fig6.groupby("epsilon")["mae_over_noise"].mean()
    return (f"{dataset}: {per:.1f} claims per segment (default data {per_default:.1f}); "
            "Fig. 6 mean MAE/noise per ε: "
            + ", ".join(f"{e:g}: {r:.3g}" for e, r in ratio.items()))
