"""PrisCrowd's result tables as functions of its config block, and under a reading.

The run adapters (``priscrowd_run.py``, ``priscrowd_simulated.py``) and the readings job
(:func:`rerun_tables`, merged into the defaults by :func:`crowdpriv.readings.merge_tables`)
build the tables through the functions here, so a reading that
overrides nothing reproduces the default tables. See :mod:`crowdpriv.readings`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..jobs import select
from ..readings import Reading, affected_tables, as_written, derivable, derived_notes
from ..seeds import derive_rng
from ..tables import read_claims, read_truth
from ._experiments import (Params, drop_single_claim_objects, run_real_dataset, run_simulated,
                           time_phase2, usable_claims)
from ._report import FIG3_ISE_READS, fig3_case_ise

__all__ = ["JOB_KEYS", "TABLE_KEYS", "DERIVED_KEYS", "job_params", "claims_thresholds",
           "derive_tables", "dataset_run", "simulated_run", "timing_run", "rerun_tables"]

#: The keys of :class:`Params` by what reads them: phase 1 (weights), phase 2 (Alg. 1), the
#: scores and baselines, Theorem 2's budget. Together they are every field of Params (a test
#: checks it: Params.from_mapping would silently take a default for a key left out).
_FIT = ("units", "bandwidth", "mad_min", "h_min", "hampel_quantiles", "hampel_update",
        "max_iter", "tol")
_RELEASE = ("m", "k", "gamma", "eps0", "batch_size", "max_candidates", "uniform_test")
_SCORE = ("repetitions", "basic_epsilons", "sise", "basic_sensitivity")
_BUDGET = ("t", "delta_exponent")
#: The config keys (relative to ``priscrowd``) each job reads: the one owner of what a job's
#: params hold (:func:`job_params`) and of what each table of the claims reads
#: (:data:`TABLE_KEYS`). ``run``: one dataset (Table 1, Figs. 3-5 work, release, Theorem 2);
#: ``simulated``: one p of Table 2; ``timing``: Fig. 5's wall clock on one dataset.
JOB_KEYS = {
    "run": (*_FIT, *_RELEASE, *_SCORE, *_BUDGET, "fig3", "fig4"),
    "simulated": (*_FIT, *_RELEASE, *_SCORE, "table2"),
    "timing": (*_FIT, *_RELEASE, "fig5"),
    # the privacy audit's PrisCrowd cases (crowdpriv.audits.priscrowd_cases)
    "audit": (*_FIT, *_RELEASE, *_BUDGET, "basic_epsilons", "basic_sensitivity"),
}
#: Keys a job's block leaves out: the list of points the rule makes one job each of (adding a
#: point runs only the new job).
_JOB_OMIT = {"simulated": ("table2.p",)}
#: The config keys (relative to ``priscrowd``) each table of the claims reads: the jobs that
#: make it, plus the list of datasets or points it gathers.
_RUN = [*JOB_KEYS["run"], "datasets"]
TABLE_KEYS = {
    "table1": _RUN,
    "fig4": _RUN,
    "fig5": [*_RUN, "fig5.m"],
    "fig3_ise": _RUN,
    "fig3_claims": _RUN,
    "budget": _RUN,
    "table2": list(JOB_KEYS["simulated"]),
}


def job_params(block: Mapping, job: str) -> dict:
    """``params.config`` of a PrisCrowd job (:data:`JOB_KEYS`): the values it reads from the
    ``priscrowd`` block, in the config's shape (:func:`crowdpriv.jobs.select`)."""
    return {"priscrowd": select(block, JOB_KEYS[job], omit=_JOB_OMIT.get(job, ()))}


#: Settings of the paper's block its claims read besides the ``claims`` thresholds: App. D's
#: SISE definition (the Table 1 and 2 consistency checks test what it implies).
CLAIMS_SETTINGS = ("sise",)


def claims_thresholds(block: Mapping) -> dict:
    """What the paper's claims read from its config block: the ``claims`` thresholds and
    :data:`CLAIMS_SETTINGS` (the readings job evaluates the claims with each reading's own)."""
    return {**block["claims"], **{key: block[key] for key in CLAIMS_SETTINGS}}


#: Config keys whose every value the default run computes as extra columns
#: (:func:`crowdpriv.readings.derivable`): App. D's SISE by either definition (``SISE_squared``,
#: ``SISE_sqrt``) in every row of Table 1, Table 2 and Fig. 4.
DERIVED_KEYS = {"sise": None}


def derive_tables(tables: Mapping[str, pd.DataFrame], override: Mapping,
                  methods: Sequence[str] | None = None) -> dict:
    """The tables under a reading that sets only :data:`DERIVED_KEYS`: ``SISE`` becomes the
    column of the reading's definition (in the rows of ``methods``, default every row).
    Identity when the override does not set ``sise``."""
    kind = override.get("sise")
    if kind is None:
        return dict(tables)
    column = f"SISE_{kind}"
    out = {}
    for name, table in tables.items():
        if column in table.columns:
            rows = (table["method"].isin(list(methods)) if methods is not None
                    else slice(None))
            table = table.copy()
            table.loc[rows, "SISE"] = table.loc[rows, column]
        out[name] = table
    return out


def dataset_run(block: Mapping, dataset: str, claims_path, truth_path, *, seed: int,
                progress=None, methods=None, tables=None) -> tuple[dict, int]:
    """Table 1 / Fig. 3-5 runs on one dataset (``run_real_dataset``) from the config block;
    returns the tables (each with a leading ``dataset`` column) and the single-claim objects
    dropped. ``methods``: only these release methods (the others keep their streams);
    ``tables``: only these tables (default all)."""
    truth = read_truth(truth_path)
    claims, dropped = usable_claims(read_claims(claims_path), truth, claims_path=claims_path,
                                    truth_path=truth_path)
    out = run_real_dataset(
        claims, truth, Params.from_mapping(block), fig3=dict(block["fig3"]),
        fig4_m=list(block["fig4"]["m"]),
        rng=derive_rng(int(seed), "priscrowd", "real", dataset), progress=progress,
        methods=methods, tables=tables,
    )
    if "info" in out:
        out["info"]["dropped_single_claim"] = dropped
    for df in out.values():
        df.insert(0, "dataset", dataset)
    return out, dropped


def simulated_run(block: Mapping, p: float, *, seed: int, methods=None) -> dict:
    """Table 2 at one fraction p of unreliable users (``run_simulated``) from the config block;
    the tables have a leading ``p`` column."""
    sim = block["table2"]
    out = run_simulated(
        float(p), Params.from_mapping(block), n_users=sim["workers"], n_objects=sim["tasks"],
        mu=sim["mu"], sigma=sim["sigma"], low=sim["low"], high=sim["high"],
        rng=derive_rng(int(seed), "priscrowd", "simulated", float(p)), methods=methods,
    )
    for key in ("table", "release"):
        out[key].insert(0, "p", float(p))
    return out


def timing_run(block: Mapping, dataset: str, claims_path, truth_path, *, seed: int
               ) -> pd.DataFrame:
    """Fig. 5's wall-clock times of phase 2 on one dataset (``time_phase2``) from the config
    block; the table has a leading ``dataset`` column."""
    claims, _ = drop_single_claim_objects(read_claims(claims_path))
    fig5 = block["fig5"]
    table = time_phase2(claims, read_truth(truth_path), Params.from_mapping(block),
                        ms=fig5["m"], calls=fig5["timing_calls"],
                        rng=derive_rng(int(seed), "priscrowd", "runtime", dataset))
    table.insert(0, "dataset", dataset)
    return table


def rerun_tables(reading: Reading, block: Mapping, *, seed: int,
                 data_paths: Mapping[str, Mapping[str, str]], not_rerun: Sequence[str] = (),
                 datasets_block=None) -> tuple[dict, dict, list[str]]:
    """Re-run the claims' tables that ``reading``'s settings reach (:data:`TABLE_KEYS`; see
    :func:`crowdpriv.ldp_sparse.rerun_tables`).

    The per-dataset runs are made once and give Table 1, Fig. 4, Fig. 5's deterministic work,
    Fig. 3's case studies (ISE and claims) and Theorem 2's budget; Table 2 re-runs the
    simulated data. With ``reading.methods`` only those release methods run: Fig. 3 (phase 1
    only) and, unless PrisCrowd runs, Fig. 5 (PrisCrowd's work) and the budget stay the
    default's. The notes report how many candidates Alg. 1 tested
    and how many object-repetitions its cap stopped.
    """
    if derivable(reading, DERIVED_KEYS):
        # fig5 (work) and fig3_ise read no SISE: unchanged; the others carry both definitions
        return {}, {}, derived_notes(reading, TABLE_KEYS)
    methods = reading.methods
    affected = affected_tables(reading, TABLE_KEYS)
    if methods is not None:  # Fig. 3 is phase 1 only; Fig. 5 and Theorem 2 are PrisCrowd's
        affected = [t for t in affected if t not in ("fig3_ise", "fig3_claims")
                    and (t not in ("fig5", "budget") or "PrisCrowd" in methods)]
    new, absent, notes = {}, {}, []
    runs = None
    # the per-dataset tables the affected ones are made of (the others are not computed)
    run_tables = ["table", "fig4", "work", "release", *(
        t for t in ("budget", "fig3_claims") if t in affected and t not in not_rerun)]
    if "fig3_ise" in affected and "fig3_ise" not in not_rerun:
        run_tables.append("fig3_curves")
    for name in affected:
        if name in not_rerun:
            absent[name] = (f"not re-run under reading {reading.name} (listed in "
                            "readings.not_rerun for cost)")
            continue
        if name == "table2":
            new[name] = as_written(pd.concat(
                [simulated_run(block, p, seed=seed, methods=methods)["table"]
                 for p in block["table2"]["p"]], ignore_index=True))
        else:
            if runs is None:
                runs = [dataset_run(block, ds, data_paths[ds]["claims"], data_paths[ds]["truth"],
                                    seed=seed, methods=methods, tables=run_tables)[0]
                        for ds in block["datasets"]]

            def cat(key, columns=None):
                table = pd.concat([r[key] for r in runs], ignore_index=True)
                # as written and read back, column by column: only the columns read
                return as_written(table if columns is None else table[columns])

            if name == "table1":
                new[name] = cat("table")
            elif name == "fig4":
                new[name] = cat("fig4")
            elif name == "fig5":
                work = cat("work")
                new[name] = work.loc[work["m"].isin(list(block["fig5"]["m"]))].reset_index(
                    drop=True)
            elif name == "fig3_ise":
                new[name] = as_written(fig3_case_ise(cat("fig3_curves", FIG3_ISE_READS)))
            elif name in ("fig3_claims", "budget"):
                new[name] = cat(name)
        notes.append(f"{name}: re-run" + (f" ({', '.join(methods)} only)" if methods else ""))
    if runs is not None:
        release = pd.concat([r["release"] for r in runs], ignore_index=True)
        if len(release):
            hit = release.loc[release["method"].isin(["PrisCrowd", "Uniform"])]
            notes.append("Alg. 1 under this reading: " + "; ".join(
                f"{ds} {meth}: {g['candidates'].sum()} candidates tested, "
                f"{int((g['partly'] + g['never']).sum())} object-repetitions stopped by the "
                f"cap of {block['max_candidates']}"
                for (ds, meth), g in hit.groupby(["dataset", "method"])))
    return new, absent, notes
