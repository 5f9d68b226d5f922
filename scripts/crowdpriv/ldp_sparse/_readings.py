"""LDP-sparse's result tables as functions of its config block, and under a reading.

The adapters of the pipeline's jobs and the readings job (:func:`rerun_tables`, merged into
the defaults by :func:`crowdpriv.readings.merge_tables`) build every
table through the functions here, so a reading that overrides nothing reproduces the default
tables exactly. See :mod:`crowdpriv.readings` for what a reading is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..jobs import select
from ..readings import Reading, affected_tables, as_written, derivable, derived_notes
from ..tables import align_truth, claims_to_matrix, read_claims, read_truth
from ._experiments import (
    answer_distribution,
    register_extra,
    run_real_dataset,
    run_synthetic_point,
)

__all__ = [
    "JOB_KEYS",
    "TABLE_KEYS",
    "DERIVED_KEYS",
    "job_params",
    "claims_thresholds",
    "derive_tables",
    "load_real",
    "synthetic_point",
    "real_point",
    "mf_sensitivity_kwargs",
    "fig1_table",
    "rerun_tables",
]

_SYNTHETIC = ("repetitions", "synthetic_domain_size", "d", "generator", "mechanisms",
              "inference", "max_batch_cells", "bound_quality")
_REAL = ("repetitions", "real_domain_size", "d", "mechanisms", "inference", "max_batch_cells",
         "bound_quality")
#: The config keys (relative to ``ldp_sparse``) each job reads, its figure's block first: the
#: one owner of what a job's params hold (:func:`job_params`) and of what each table of the
#: claims reads (:data:`TABLE_KEYS`). One job per sparsity point of Figs. 2-4 and per dataset
#: of Fig. 5, each holding every method of its point; ``mechanisms`` is passed whole.
JOB_KEYS = {
    **{fig: (fig, *_SYNTHETIC) for fig in ("fig2", "fig3", "fig4")},
    "fig5": ("fig5", *_REAL),
    # MF sensitivity sweeps d itself and has no bound
    "mf_sensitivity": ("mf_sensitivity",
                       *(k for k in _SYNTHETIC if k not in ("d", "bound_quality"))),
    "fig1": ("fig1", "real_domain_size", "inference"),
}
#: Keys a job's block leaves out: the list of points (or datasets) the rule makes one job each
#: of, so that adding one runs only the new job.
_JOB_OMIT = {**{fig: (f"{fig}.sparsities",) for fig in ("fig2", "fig3", "fig4")},
             "fig5": ("fig5.datasets",)}
#: The config keys (relative to ``ldp_sparse``; ``datasets`` = the processed real data) each
#: table of the claims reads.
TABLE_KEYS = {
    "fig1": [*JOB_KEYS["fig1"], "datasets"],
    **{fig: list(JOB_KEYS[fig]) for fig in ("fig2", "fig3", "fig4")},
    "fig5": [*JOB_KEYS["fig5"], "datasets"],
    "bounds": ["bounds"],
}


def job_params(block: Mapping, job: str) -> dict:
    """``params.config`` of an LDP-sparse job (:data:`JOB_KEYS`): the values it reads from the
    ``ldp_sparse`` block, in the config's shape (:func:`crowdpriv.jobs.select`)."""
    return {"ldp_sparse": select(block, JOB_KEYS[job], omit=_JOB_OMIT.get(job, ()))}


#: Settings of the paper's block its claims read besides the ``claims`` thresholds: none.
CLAIMS_SETTINGS = ()


def claims_thresholds(block: Mapping) -> dict:
    """What the paper's claims read from its config block: the ``claims`` thresholds and
    :data:`CLAIMS_SETTINGS` (the readings job evaluates the claims with each reading's own)."""
    return {**block["claims"], **{key: block[key] for key in CLAIMS_SETTINGS}}


#: Config keys whose every value the default run computes as extra columns, with the methods
#: whose rows carry them (:func:`crowdpriv.readings.derivable`): Theorem 5's bound under each
#: reading of q_i (``bound_q_uniform``, ``bound_q_generator``, ``bound_q_inferred`` on MF rows).
DERIVED_KEYS = {"bound_quality": ("MF",)}


def derive_tables(tables: Mapping[str, pd.DataFrame], override: Mapping,
                  methods: Sequence[str] | None = None) -> dict:
    """The tables under a reading that sets only :data:`DERIVED_KEYS`: the ``bound`` of the
    rows of ``methods`` (default: the rows that carry the columns) becomes the column of the
    reading's q_i. Identity when the override does not set ``bound_quality``."""
    kind = override.get("bound_quality")
    if kind is None:
        return dict(tables)
    column = f"bound_q_{kind}"
    out = {}
    for name, table in tables.items():
        if column in table.columns:
            rows = (table["method"].isin(list(methods)) if methods is not None
                    else table[column].notna())
            table = table.copy()
            table.loc[rows, "bound"] = table.loc[rows, column]
        out[name] = table
    return out


def load_real(claims_path, truth_path, *, domain_size: int):
    """A real dataset's answers (workers x tasks, NaN = NULL) and gold (NaN = none)."""
    labels = dict(domain_size=domain_size, domain_key="ldp_sparse.real_domain_size")
    cm = claims_to_matrix(read_claims(claims_path, **labels))
    truth = align_truth(read_truth(truth_path, **labels), cm.tasks, truth_path)
    return cm.values, truth


def _methods(listed: Sequence[str], only: Sequence[str] | None) -> list[str]:
    """The figure's ``listed`` mechanisms (ids or aliases) whose label or id a reading's
    ``only`` names (the ``method`` column of the result files)."""
    from crowdpriv.mechanisms import get

    if only is None:
        return list(listed)
    return [m for m in listed if get(m).label in only or get(m).id in only]


def synthetic_point(block: Mapping, experiment: str, sparsity: float, *, seed: int,
                    methods: Sequence[str] | None = None, progress=None) -> pd.DataFrame:
    """One sparsity point of Fig. 2, 3 or 4 (per-repetition rows) from the config block."""
    register_extra(block["mechanisms"].get("extra"))
    exp = block[experiment]
    return run_synthetic_point(
        experiment=experiment, n_workers=exp["workers"], n_tasks=exp["tasks"],
        sparsity=float(sparsity), epsilons=exp["epsilons"],
        methods=_methods(exp["methods"], methods), repetitions=block["repetitions"], seed=seed,
        domain_size=block["synthetic_domain_size"], d=block["d"],
        generator=block["generator"], mechanisms=block["mechanisms"],
        inference=block["inference"], max_batch_cells=block["max_batch_cells"],
        bound_quality=block.get("bound_quality", "uniform"), progress=progress,
    )


def real_point(block: Mapping, dataset: str, answers, truth, *, seed: int,
               methods: Sequence[str] | None = None, progress=None) -> pd.DataFrame:
    """Fig. 5 on one real dataset (per-repetition rows) from the config block."""
    register_extra(block["mechanisms"].get("extra"))
    exp = block["fig5"]
    return run_real_dataset(
        answers, truth, dataset=dataset, epsilons=exp["epsilons"],
        methods=_methods(exp["methods"], methods), repetitions=block["repetitions"], seed=seed,
        domain_size=block["real_domain_size"], d=block["d"], mechanisms=block["mechanisms"],
        inference=block["inference"], max_batch_cells=block["max_batch_cells"],
        bound_quality=block.get("bound_quality", "uniform"), progress=progress,
    )


def mf_sensitivity_kwargs(block: Mapping) -> dict:
    """Keyword arguments of :func:`run_mf_sensitivity` (without ``seed`` and ``progress``)
    from the config block: MF's MAE change vs d and a ridge term on one synthetic point."""
    exp = block["mf_sensitivity"]
    return dict(n_workers=exp["workers"], n_tasks=exp["tasks"], sparsity=exp["sparsity"],
                epsilons=exp["epsilons"], ds=exp["d"], ridges=exp["ridge"],
                repetitions=block["repetitions"], domain_size=block["synthetic_domain_size"],
                generator=block["generator"], mechanisms=block["mechanisms"],
                inference=block["inference"], max_batch_cells=block["max_batch_cells"])


def fig1_table(block: Mapping, data: Mapping[str, tuple]) -> pd.DataFrame:
    """Fig. 1's answer distributions for ``data`` = {dataset: (answers, truth)}."""
    frames = []
    for ds, (answers, truth) in data.items():
        d = answer_distribution(answers, truth, domain_size=block["real_domain_size"],
                                gold_from=block["fig1"].get("gold_from", "gold"),
                                inference=block["inference"])
        d.insert(0, "dataset", ds)
        frames.append(d)
    return pd.concat(frames, ignore_index=True)


def rerun_tables(reading: Reading, block: Mapping, *, seed: int,
                 data_paths: Mapping[str, Mapping[str, str]], not_rerun: Sequence[str] = (),
                 datasets_block=None) -> tuple[dict, dict, list[str]]:
    """Re-run the claims' tables that ``reading``'s settings reach (:data:`TABLE_KEYS`).

    ``block`` is the reading's merged ``ldp_sparse`` block; ``data_paths`` maps a real dataset
    to its processed ``claims`` and ``truth`` files; ``datasets_block`` is unused (these
    readings do not touch the real data). With ``reading.methods`` only those mechanisms run
    (the others' rows are the default's: every method has its own seed stream). Tables in
    ``not_rerun`` that the reading reaches are returned in ``absent`` with the reason (their
    claims become ``not testable`` under this reading). Returns the re-run tables (as the
    pipeline would read them back), the absent ones and one note per affected table.
    """
    cache: dict[str, tuple] = {}

    def real_data(ds):
        if ds not in cache:
            paths = data_paths[ds]
            cache[ds] = load_real(paths["claims"], paths["truth"],
                                  domain_size=block["real_domain_size"])
        return cache[ds]

    new, absent, notes = {}, {}, []
    if derivable(reading, DERIVED_KEYS):
        return new, absent, derived_notes(reading, TABLE_KEYS)
    for name in affected_tables(reading, TABLE_KEYS):
        if name in not_rerun:
            absent[name] = (f"not re-run under reading {reading.name} (its settings reach it; "
                            "listed in readings.not_rerun for cost)")
            notes.append(f"{name}: affected, not re-run")
            continue
        methods = reading.methods
        if name in ("fig2", "fig3", "fig4"):
            table = pd.concat([synthetic_point(block, name, s, seed=seed, methods=methods)
                               for s in block[name]["sparsities"]], ignore_index=True)
        elif name == "fig5":
            table = pd.concat([real_point(block, ds, *real_data(ds), seed=seed, methods=methods)
                               for ds in block["fig5"]["datasets"]], ignore_index=True)
        elif name == "fig1":
            methods = None
            table = fig1_table(block, {ds: real_data(ds) for ds in block["fig1"]["datasets"]})
        else:
            absent[name] = f"its settings change under reading {reading.name}; no re-run exists"
            continue
        new[name] = as_written(table)
        notes.append(f"{name}: re-run" + (f" ({', '.join(methods)} only)" if methods else ""))
    return new, absent, notes
