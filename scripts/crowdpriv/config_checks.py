"""Every check on config values, made once at start-up for the whole config.

The schema (``workflow/schemas/config.schema.yaml``) checks each value on its own; the checks
here relate values to one another (PrisCrowd's t < k, ``fig4.m`` <= m, a range's low below its
high, LP's constant NULL fill inside Γ, ...) or need the core's own validation (PrisCrowd's
:class:`~crowdpriv.priscrowd.Params`). ``workflow/rules/common.smk`` runs
:func:`config_problems` on the config and on every reading's config before Snakemake builds a
single job, whatever the target: a bad value stops the run at once with its key path and value
named, instead of failing the one job that reads it late (or passing unnoticed when the target
does not read it). Where a job validates a value with the core's own function, the check here
calls the same function with that job's params (:func:`crowdpriv.jobs.key_paths` names the
key); checks whose outcome depends on the data (e.g. PPTD Fig. 7's eligible workers) stay in
the jobs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._checks import ParameterError, check_in_interval
from .jobs import key_paths
from .runtime import config_key_message

__all__ = ["config_problems", "check_config"]

#: Label codes are int8 (crowdpriv.ldp_sparse): |Γ| <= 63.
MAX_DOMAIN_SIZE = 63


def _problem(err: Exception, tree: Mapping) -> str:
    return config_key_message(err, key_paths(tree), tree) or str(err)


def _run(checks: Iterable[tuple[Mapping, Callable[[], Any]]]) -> list[str]:
    """Messages of the checks that raise a ValueError (each with the tree its key paths come
    from); one per failing check, so that one run lists every problem."""
    problems = []
    for tree, check in checks:
        try:
            check()
        except ValueError as err:
            message = _problem(err, tree)
            if message not in problems:
                problems.append(message)
    return problems


def _priscrowd(block: Mapping):
    from .priscrowd import JOB_KEYS, Params, check_simulation, job_params
    from .priscrowd import check_ms

    for job in JOB_KEYS:
        tree = job_params(block, job)
        yield tree, lambda tree=tree: Params.from_mapping(tree["priscrowd"])
    tree = job_params(block, "run")
    yield tree, lambda: check_ms("fig4.m", block["fig4"]["m"], int(block["m"]))
    tree = job_params(block, "timing")
    yield tree, lambda: check_ms("fig5.m", block["fig5"]["m"], int(block["m"]))
    tree = job_params(block, "simulated")
    sim = block["table2"]
    yield tree, lambda: check_simulation(n_users=sim["workers"], n_objects=sim["tasks"],
                                         p=0.0, sigma=sim["sigma"], low=sim["low"],
                                         high=sim["high"])


def _pptd(block: Mapping):
    from .pptd import JOB_KEYS, check_truth_range, job_params

    for fig in JOB_KEYS:
        tree = job_params(block, fig)
        if "synthetic" in tree["pptd"]:
            low, high = block["synthetic"]["truth_range"]
            yield tree, lambda low=low, high=high: check_truth_range(low, high)


def _ldp_sparse(block: Mapping):
    from .ldp_sparse import job_params

    fill = block["mechanisms"].get("lp_null_fill", "uniform")
    for job, size_key in (("fig2", "synthetic_domain_size"), ("fig5", "real_domain_size")):
        tree = job_params(block, job)
        k = int(block[size_key])

        def domain(k=k, size_key=size_key):
            if k > MAX_DOMAIN_SIZE:
                raise ParameterError(size_key, k, f"{size_key} must be at most "
                                     f"{MAX_DOMAIN_SIZE} (answers are stored as int8 label "
                                     f"codes), got {k}")

        def null_fill(k=k, size_key=size_key):
            if not isinstance(fill, str):
                try:
                    check_in_interval("lp_null_fill", fill, 0, k - 1, closed_high=True)
                except ParameterError as err:
                    raise ParameterError("lp_null_fill", fill, f"{err} (LP's NULL answers "
                                         f"become this label of Γ = 0..{k - 1}, {size_key} "
                                         f"{k})") from None

        yield tree, domain
        yield tree, null_fill


def _datasets(datasets: Mapping):
    tree = {"datasets": datasets}
    indoor = datasets.get("indoor_surrogate", {})
    stock = datasets.get("stock_surrogate", {})

    def increasing(key, pair, strict, what):
        def check():
            if pair is not None and not (pair[0] < pair[1] if strict else pair[0] <= pair[1]):
                raise ParameterError(key, list(pair), f"{key} must be {what}, got {list(pair)}")
        return check

    def min_claims():
        need, workers = indoor.get("min_claims_per_segment"), indoor.get("workers")
        if need is not None and workers is not None and need > workers:
            raise ParameterError("min_claims_per_segment", need, "min_claims_per_segment "
                                 f"must be at most indoor_surrogate.workers = {workers} (each "
                                 f"claim of a segment is another worker's), got {need}")

    yield tree, min_claims
    yield tree, increasing("length_range", indoor.get("length_range"), True,
                           "increasing (low < high)")
    yield tree, increasing("step_noise_range", indoor.get("step_noise_range"), False,
                           "non-decreasing (low <= high)")
    yield tree, increasing("coverage", stock.get("coverage"), False,
                           "non-decreasing (low <= high)")

    def walks():
        pair = indoor.get("walks_lognormal")
        if pair is not None and pair[1] < 0:
            raise ParameterError("walks_lognormal", list(pair), "walks_lognormal's sigma "
                                 f"(second value) must be >= 0, got {list(pair)}")

    yield tree, walks


def _readings(config: Mapping):
    """A reading's ``not_rerun`` tables must be the paper's tables and its ``methods`` the
    paper's methods (a typo would silently re-run everything, or nothing)."""
    import importlib

    from .readings import parse_readings

    for paper in ("ldp_sparse", "pptd", "priscrowd"):
        block = config.get(paper, {})
        if not block.get("readings"):
            continue
        tables = list(importlib.import_module(f"crowdpriv.{paper}").TABLE_KEYS)
        tree = {paper: {"readings": block["readings"]}}
        not_rerun = block["readings"].get("not_rerun", [])

        def known_tables(not_rerun=not_rerun, tables=tables):
            unknown = [t for t in not_rerun if t not in tables]
            if unknown:
                raise ParameterError("not_rerun", unknown, f"not_rerun names no table of the "
                                     f"paper: {unknown} (its tables: {tables})")

        yield tree, known_tables
        methods = _methods(paper, block)
        for reading in parse_readings(block["readings"], where=f"{paper}.readings")[1:]:
            def known_methods(reading=reading, paper=paper, methods=methods):
                unknown = [m for m in reading.methods or () if m not in methods]
                if unknown:
                    raise ValueError(f"config key {paper}.readings.alternatives.{reading.name}"
                                     f".methods = {list(reading.methods)}: {unknown} is not a "
                                     f"method of the paper's runs (known: {methods})")
            yield tree, known_methods


def _methods(paper: str, block: Mapping) -> list[str]:
    if paper == "priscrowd":
        from .priscrowd import SYNTH_METHODS

        return [*SYNTH_METHODS, *(f"Basic({level})" for level in block["basic_epsilons"])]
    if paper == "ldp_sparse":  # readings name methods as the result files do: by label
        from .ldp_sparse import register_extra
        from .mechanisms import get

        register_extra((block.get("mechanisms") or {}).get("extra"))
        listed = [m for fig in ("fig2", "fig3", "fig4", "fig5") for m in block[fig]["methods"]]
        return list(dict.fromkeys(get(m).label for m in listed))
    return []


def _files(config: Mapping, root: str):
    def exists(key, path, what):
        def check():
            full = path if os.path.isabs(path) else os.path.join(root, path)
            if not os.path.exists(full):
                raise ValueError(f"config key {key} = {path!r}: no such {what} ({full})")
        return check

    for name, entry in (config.get("custom_datasets") or {}).items():
        for kind in ("claims", "truth"):
            if entry.get(kind):
                yield {}, exists(f"custom_datasets.{name}.{kind}", entry[kind], "file")


def config_problems(config: Mapping, *, root: str | None = None, files: bool = True
                    ) -> list[str]:
    """Every problem of ``config`` (a validated config) that the schema cannot see, one
    message per problem naming the key path and value. ``root``: the folder relative paths in
    the config start from; ``files``: also check that the user's dataset files exist."""
    checks = []
    if "priscrowd" in config:
        checks += list(_priscrowd(config["priscrowd"]))
    if "pptd" in config:
        checks += list(_pptd(config["pptd"]))
    if "ldp_sparse" in config:
        checks += list(_ldp_sparse(config["ldp_sparse"]))
    if "datasets" in config:
        checks += list(_datasets(config["datasets"]))
    checks += list(_readings(config))
    if files and root is not None:
        checks += list(_files(config, root))
    return _run(checks)


def check_config(config: Mapping, *, root: str | None = None) -> None:
    """Raise a ValueError listing every problem :func:`config_problems` finds."""
    problems = config_problems(config, root=root)
    if problems:
        raise ValueError("the config has " + (f"{len(problems)} problems" if len(problems) > 1
                                              else "a problem") + ":\n  " + "\n  ".join(problems))
