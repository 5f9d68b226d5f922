"""Experiment drivers of LDP-sparse Sec. VI: synthetic sweeps (Fig. 2-4), real data (Fig. 5),
answer distributions (Fig. 1), summaries and the bounds table (the claims: ``_claims.py``).

Every stochastic step draws from ``derive_rng(seed, "ldp_sparse", experiment, point, rep, ...)``
so a point's numbers do not depend on which other points or repetitions are run with it. A
mechanism draws once per repetition (``..., rep, method``) and maps the draws to every ε of the
sweep (common random numbers, :mod:`crowdpriv.mechanisms`); answers are int8 label codes
throughout.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crowdpriv import mechanisms as registry
from crowdpriv._checks import ParameterError, check_int_at_least, check_positive
from crowdpriv.aggregate import summarise as aggregate
from crowdpriv.mechanisms import answer_codes
from crowdpriv.seeds import derive_rng

from ._bounds import lp_error_bound, mf_error_bound, paper_example_bounds, rr_error_bounds
from ._inference import infer_truth, infer_truth_factored, mae
from ._synthetic import generate_synthetic_codes

__all__ = [
    "METHODS",
    "CONFIG_SETTINGS",
    "register_extra",
    "mechanism_settings",
    "sweep_mechanisms",
    "run_synthetic_point",
    "run_real_dataset",
    "run_mf_sensitivity",
    "summarise",
    "answer_distribution",
    "truth_correlation",
    "task_reference_labels",
    "GOLD_FROM",
    "BOUND_QUALITIES",
    "bounds_table",
    "dataset_table",
]

#: LDP-sparse's mechanisms, read from the registry (its sweep members of the paper, the
#: float-safe release samplers aside: lp, rr, two-layer, mf); their labels name the rows of the
#: result files and their random streams.
METHODS = tuple(m.id for m in registry.members(paper="ldp_sparse", part="sweep")
                if not m.float_safe)

#: Settings of a built-in mechanism from the ``ldp_sparse.mechanisms`` block: config key ->
#: setting name, by mechanism id, as each member declares them (``Mechanism.config_keys``;
#: ``d`` is the block's top-level ``ldp_sparse.d``). A user's mechanism reads
#: ``ldp_sparse.mechanisms.settings.<id>``.
CONFIG_SETTINGS = {m.id: dict(m.config_keys) for m in map(registry.get, METHODS)
                   if m.config_keys}


def register_extra(extra) -> list:
    """Register a config's own mechanisms (``ldp_sparse.mechanisms.extra``): a list of
    ``"module:object"`` paths, or (earlier versions' form, still accepted) a mapping name ->
    ``"module:function"``. Returns the registered members."""
    if not extra:
        return []
    if isinstance(extra, dict):
        return [registry.load(spec, name=name) for name, spec in extra.items()]
    return [registry.load(spec) for spec in extra]


def mechanism_settings(mech, mechanisms: dict, d: int):
    """A member's settings from the ``ldp_sparse.mechanisms`` block (:data:`CONFIG_SETTINGS`)
    and ``d``."""
    values = {**mechanisms, "d": d}
    keys = CONFIG_SETTINGS.get(mech.id)
    if keys is None:
        return mech.settings((mechanisms.get("settings") or {}).get(mech.id, {}))
    return mech.settings({name: values[key] for key, name in keys.items() if key in values})


def sweep_mechanisms(methods, mechanisms: dict | None = None, *, d: int = 10):
    """``[(member, settings)]`` of a figure's ``methods`` (ids, labels or aliases), after
    registering the config's own (:func:`register_extra`); a name that is not registered, or a
    member without an ε sweep over label codes, is an error naming it."""
    mechanisms = mechanisms or {}
    register_extra(mechanisms.get("extra"))
    out = []
    for name in methods:
        mech = registry.get(name)
        if "sweep" not in mech.parts:
            raise ParameterError("methods", name,
                                 f"mechanism {name!r} cannot run in an LDP-sparse sweep (it has "
                                 f"no 'sweep' part; sweepable: "
                                 f"{', '.join(registry.ids(part='sweep'))})")
        out.append((mech, mechanism_settings(mech, mechanisms, d)))
    if not out:
        raise ParameterError("methods", list(methods), "methods must not be empty")
    return out


def _check_epsilons(epsilons):
    eps = [check_positive("epsilon", e) for e in epsilons]
    if not eps:
        raise ValueError("epsilons must not be empty")
    return eps


#: Worker qualities q_i put into the theorems' bounds (config ``ldp_sparse.bound_quality``):
#: ``uniform`` 1/m as in the paper's worked examples; ``generator`` ∝ 1/σ_i of the data's
#: error deviations (the generator's σ_i on synthetic data; on real data, which has none, the
#: σ_i that Alg. 1 estimates on the original answers, the same σ_i the bounds use);
#: ``inferred`` Alg. 1's q_i estimated on the perturbed output itself.
BOUND_QUALITIES = ("uniform", "generator", "inferred")


def _bound_quality(kind, *, sigma, inferred):
    """q_i (summing to 1) for the theorems' bounds; see :data:`BOUND_QUALITIES`."""
    if kind == "uniform":
        return np.full(sigma.shape, 1.0 / sigma.size)
    if kind == "generator":
        q = 1.0 / sigma
    elif kind == "inferred":
        q = np.nan_to_num(np.asarray(inferred, dtype=np.float64), nan=0.0)
    else:
        raise ValueError(f"bound_quality must be one of {BOUND_QUALITIES}, got {kind!r}")
    return q / q.sum()


def _bound(method, eps, *, answered, sigma, truth, domain_size, d, null_fill="uniform",
           quality=None, answered_fraction=None):
    """Theorem 2/3/5 bound of mechanism ``method`` (an id) in an experiment's own setting (for
    RR, ``eps`` may be a list: the bounds at each ε, ε-independent terms computed once); NaN
    for a mechanism the paper gives no bound for (2-Layer, a user's).

    ``quality`` is q_i (default 1/m as in the paper's examples; see :data:`BOUND_QUALITIES`).
    ``null_fill`` is LP's NULL replacement v; Theorem 2's φ_j uses its mean E(v).
    ``answered_fraction`` is ``answered.mean(1)`` when the caller has it already.
    """
    m, n = answered.shape
    q = np.full(m, 1.0 / m) if quality is None else np.asarray(quality, dtype=np.float64)
    s = answered.mean(1) if answered_fraction is None else answered_fraction
    has_truth = ~np.isnan(truth)
    common = dict(quality=q, answered_fraction=s, sigma=sigma, truth=truth[has_truth],
                  domain_size=domain_size, epsilon=eps)
    if method == "lp":
        null_mean = None if isinstance(null_fill, str) else float(null_fill)
        return lp_error_bound(**common, null_mean=null_mean)
    if method == "rr":
        # every ε of the point at once when the caller asks (the worker sums do not depend on ε)
        common["epsilons"] = common.pop("epsilon")
        # every task has a truth (synthetic data): the mask itself, not a copy of it
        out = rr_error_bounds(**common, answered=answered if has_truth.all()
                              else answered[:, has_truth])
        return out if np.ndim(eps) else float(out[0])
    if method == "mf":
        return mf_error_bound(quality=q, n_tasks=n, d=d, domain_size=domain_size, epsilon=eps)
    return np.nan  # the paper gives no bound for 2-Layer or a user's mechanism


def truth_correlation(truth, estimate, fill_value) -> float:
    """Pearson correlation of estimated and true truths over the tasks with a truth (NaN
    estimates filled with ``fill_value``); NaN when either is constant. Beside the MAE it tells
    whether a small MAE change carries information about the tasks (Sec. VI's metric alone
    cannot: answering the majority label everywhere has a small MAE on skewed data)."""
    t = np.asarray(truth, dtype=np.float64)
    e = np.where(np.isnan(estimate), fill_value, np.asarray(estimate, dtype=np.float64))
    ok = ~np.isnan(t)
    t, e = t[ok], e[ok]
    if t.size < 2 or t.std() == 0 or e.std() == 0:
        return float("nan")
    return float(np.corrcoef(t, e)[0, 1])


def _run_reps(
    make_data, *, experiment, point, epsilons, methods, repetitions, seed, domain_size, d,
    mechanisms, inference, max_batch_cells, fixed_data=False, progress=None,
    bound_quality="uniform", data_cache=None,
):
    """Shared loop: per chunk of repetitions, infer on the original and on each perturbation.

    ``make_data(rep)`` returns ``(codes, truth, sigma)``: int8 label codes (NULL = |Γ|,
    :func:`crowdpriv.mechanisms.answer_codes`), the truth per task and the generator's σ_i (or
    None). ``methods`` are ``(member, settings)`` pairs (:func:`sweep_mechanisms`); each member
    runs through its own ``prepare`` / ``draws`` / ``apply`` (:mod:`crowdpriv.mechanisms`), its
    randomness from ``derive_rng(seed, "ldp_sparse", experiment, point, rep, label)`` (public
    parameters such as MF's V from ``(..., rep, "V")``). With ``fixed_data`` (a real dataset)
    every repetition has the same answers, so what depends on them alone (the original
    inference, the own-mean reference, the answered fractions) is computed once.
    ``progress(label)``, when given, is called after each (ε, method) of a chunk of repetitions
    (the adapters log it; it never affects a number). ``data_cache``, a dict the caller keeps
    across calls with the same ``make_data``, ``inference`` and ``max_batch_cells`` (MF's
    sensitivity sweep: the same datasets under each d and λ), holds each chunk's answers and
    what depends on them alone (the original inference, the references), so later calls reuse
    them instead of generating and inferring again: the same numbers, computed once."""
    rows = []
    fixed_cache = {}
    fill = (domain_size - 1) / 2.0
    k = domain_size
    null_fill = mechanisms.get("lp_null_fill", "uniform")
    reps = list(range(repetitions))
    chunk = None
    while reps:
        saved = None
        if data_cache is not None and "chunk" in data_cache:
            saved = data_cache.get(tuple(reps[:data_cache["chunk"]]))
        if saved is not None:
            chunk = data_cache["chunk"]
            this, reps = reps[:chunk], reps[chunk:]
            codes, truths, sigmas, fixed = saved
            fixed_cache.update(fixed)
        else:
            first = make_data(reps[0])
            cells = first[0].size
            chunk = chunk or max(1, int(max_batch_cells // max(cells, 1)))
            this, reps = reps[:chunk], reps[chunk:]
            data = [first] + [make_data(r) for r in this[1:]]
            codes = np.stack([x[0] for x in data])
            truths = [x[1] for x in data]
            sigmas = [x[2] for x in data]
            del data
        ob = (lambda b: 0) if fixed_data else (lambda b: b)
        if not fixed_cache:  # neither fixed (real) data seen before nor a cached chunk
            answered = codes[:1] != k if fixed_data else codes != k
            # Fixed (real) data: the original inference is deterministic, run it once.
            res0 = infer_truth(codes[:1] if fixed_data else codes, null_code=k, **inference)
            # Information-free reference (not in the paper): every worker sends his own mean
            # answer for every task; Alg. 1 then gives every task the same estimate.
            counts = answered.sum(-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                own_mean = (np.multiply(codes[:len(answered)], answered).sum(-1, dtype=np.float64)
                            / counts)[..., None]
            ref = infer_truth(own_mean, **inference)
            fixed_cache.update(truth=res0.truth, sigma=res0.sigma, ref=ref.truth,
                               answered=answered, fraction=answered.mean(-1))
            if data_cache is not None:
                data_cache["chunk"] = chunk
                data_cache[tuple(this)] = (codes, truths, sigmas, dict(fixed_cache))
        orig_truth, orig_sigma = fixed_cache["truth"], fixed_cache["sigma"]
        ref_truth, answered = fixed_cache["ref"], fixed_cache["answered"]
        fraction = fixed_cache["fraction"]
        mae_o = np.array([mae(t, orig_truth[ob(b)], fill_value=fill) for b, t in enumerate(truths)])
        # Reference: MAE of answering the lowest label (0) for every task, the centre of the
        # synthetic truth and the majority gold label of both real datasets.
        mae_zero = np.array([mae(t, np.zeros_like(t)) for t in truths])
        mae_own = np.array([mae(t, np.broadcast_to(ref_truth[ob(b)], t.shape), fill_value=fill)
                            for b, t in enumerate(truths)])
        corr_o = np.array([truth_correlation(t, orig_truth[ob(b)], fill)
                           for b, t in enumerate(truths)])
        sig_for_bound = [
            np.where(np.isnan(s_) | (s_ < 1e-2), np.where(np.isnan(s_), 1.0, 1e-2), s_)
            if s_ is not None else np.clip(np.nan_to_num(orig_sigma[ob(b)], nan=1.0), 1e-2, None)
            for b, s_ in enumerate(sigmas)
        ]
        rr_bounds = {}
        for mech, settings in methods:
            # per-repetition state (MF: V drawn independently of the answers, each worker's
            # solve), then the ε-free draws of each repetition, shared by every ε (common
            # random numbers), stacked over the chunk's repetitions so each ε maps them at once
            states = [mech.prepare(codes[b], settings, domain_size=k,
                                   rng=derive_rng(seed, "ldp_sparse", experiment, point, rep, "V"))
                      for b, rep in enumerate(this)]
            if mech.common_draws:
                draws = mech.draws_stacked(
                    codes, settings, domain_size=k, states=states,
                    rngs=[derive_rng(seed, "ldp_sparse", experiment, point, rep, mech.label)
                          for rep in this])
            for eps in epsilons:
                if mech.common_draws:
                    out = mech.apply(codes, draws, eps, settings, domain_size=k, state=states)
                else:  # a mechanism that draws afresh at each ε
                    outs = [mech.perturb(codes[b], eps, settings, domain_size=k, state=states[b],
                                         rng=derive_rng(seed, "ldp_sparse", experiment, point,
                                                        rep, mech.label, eps))
                            for b, rep in enumerate(this)]
                    out = registry.Perturbed(np.stack([o.values for o in outs]),
                                             outs[0].null_code)
                    del outs
                if out.factors is not None:  # MF's dense output U·V answered from its factors
                    res = infer_truth_factored(*out.factors, **inference)
                else:
                    res = infer_truth(out.values, null_code=out.null_code, **inference)
                del out
                if progress is not None:
                    progress(f"{point}: ε={eps:g} {mech.label} reps {this[0]}-{this[-1]}")
                for b, rep in enumerate(this):
                    mae_p = mae(truths[b], res.truth[b], fill_value=fill)
                    quality = _bound_quality(bound_quality, sigma=sig_for_bound[b],
                                             inferred=res.quality[b])
                    bound_args = dict(
                        answered=answered[ob(b)], answered_fraction=fraction[ob(b)],
                        sigma=sig_for_bound[b], truth=truths[b],
                        domain_size=domain_size, d=d, quality=quality, null_fill=null_fill)
                    if mech.id == "rr" and bound_quality != "inferred":
                        # q_i does not depend on the perturbation: all ε of the rep at once
                        if b not in rr_bounds:
                            rr_bounds[b] = dict(zip(epsilons, _bound("rr", epsilons, **bound_args)))
                        bound = rr_bounds[b][eps]
                    else:
                        bound = _bound(mech.id, eps, **bound_args)
                    # Theorem 5 under every reading of q_i (a reading of q then needs no re-run)
                    by_quality = {
                        f"bound_q_{kind}": (_bound("mf", eps, **{**bound_args, "quality": (
                            _bound_quality(kind, sigma=sig_for_bound[b],
                                           inferred=res.quality[b]))})
                            if mech.id == "mf" else np.nan)
                        for kind in BOUND_QUALITIES}
                    rows.append(dict(
                        epsilon=eps, method=mech.label, rep=rep, mae_original=mae_o[b],
                        mae_perturbed=mae_p, mae_change=mae_p - mae_o[b], bound=bound,
                        **by_quality, mae_zero=mae_zero[b], mae_ref_own_mean=mae_own[b],
                        corr_original=corr_o[b],
                        corr_perturbed=truth_correlation(truths[b], res.truth[b], fill),
                        iterations=int(res.iterations[b]),
                    ))
            del states
        if not fixed_data:
            fixed_cache.clear()
        del codes
    out = pd.DataFrame(rows)
    # Row order independent of how repetitions were batched.
    order = {mech.label: i for i, (mech, _) in enumerate(methods)}
    out = out.sort_values(["epsilon", "method", "rep"], key=lambda s: s.map(order) if s.name == "method" else s)
    return out.reset_index(drop=True)


def run_synthetic_point(
    *, experiment: str, n_workers: int, n_tasks: int, sparsity: float, epsilons, methods,
    repetitions: int, seed: int, domain_size: int = 10, d: int = 10, generator=None,
    mechanisms=None, inference=None, max_batch_cells: float = 2e7, progress=None,
    bound_quality: str = "uniform", data_cache: dict | None = None,
) -> pd.DataFrame:
    """All ε x methods x repetitions of one synthetic sparsity point (LDP-sparse Fig. 2-4).

    Each repetition draws a fresh dataset (:func:`generate_synthetic`), infers the truth on it
    (MAE_O), perturbs it with each method at each ε, infers again (MAE_P) and records the MAE
    change (Sec. VI-A) and the method's theorem bound in this setting.

    ``data_cache``: a dict kept by a caller that runs the same point (same experiment,
    sizes, sparsity, generator, seed, inference and ``max_batch_cells``) again with other
    mechanism settings; its datasets and original inferences are then computed once.

    Returns
    -------
    DataFrame with columns experiment, workers, tasks, sparsity, epsilon, method, rep,
    mae_original, mae_perturbed, mae_change, bound, iterations.
    """
    m = check_int_at_least("n_workers", n_workers, 1)
    n = check_int_at_least("n_tasks", n_tasks, 1)
    r = check_int_at_least("repetitions", repetitions, 1)
    check_int_at_least("d", d, 1)
    generator, mechanisms, inference = generator or {}, mechanisms or {}, inference or {}
    epsilons = _check_epsilons(epsilons)
    methods = sweep_mechanisms(methods, mechanisms, d=d)
    sparsity = float(sparsity)

    def make(rep):
        return generate_synthetic_codes(
            m, n, sparsity, rng=derive_rng(seed, "ldp_sparse", experiment, sparsity, rep, "data"),
            domain_size=domain_size, **generator,
        )

    out = _run_reps(
        make, experiment=experiment, point=sparsity, epsilons=epsilons, methods=methods,
        repetitions=r, seed=seed, domain_size=domain_size, d=d, mechanisms=mechanisms,
        inference=inference, max_batch_cells=max_batch_cells, progress=progress,
        bound_quality=bound_quality, data_cache=data_cache,
    )
    out.insert(0, "sparsity", sparsity)
    out.insert(0, "tasks", n)
    out.insert(0, "workers", m)
    out.insert(0, "experiment", experiment)
    return out


def run_real_dataset(
    answers, truth, *, dataset: str, epsilons, methods, repetitions: int, seed: int,
    domain_size: int = 5, d: int = 10, mechanisms=None, inference=None,
    max_batch_cells: float = 2e7, progress=None, bound_quality: str = "uniform",
) -> pd.DataFrame:
    """MAE change vs ε on a real dataset for LP, RR, MF and 2-Layer (LDP-sparse Fig. 5).

    Parameters
    ----------
    answers : ndarray, shape (m, n)
        Worker x task labels in {0, ..., domain_size-1}, ``NaN`` = NULL.
    truth : ndarray, shape (n,)
        Gold label per task, ``NaN`` where there is none (those tasks are inferred but left out
        of the MAE).
    """
    a = np.asarray(answers, dtype=np.float32)
    t = np.asarray(truth, dtype=np.float64)
    if t.shape != (a.shape[1],):
        raise ValueError(f"truth must have shape ({a.shape[1]},), got {t.shape}")
    r = check_int_at_least("repetitions", repetitions, 1)
    epsilons = _check_epsilons(epsilons)
    methods = sweep_mechanisms(methods, mechanisms, d=d)
    codes = answer_codes(a, domain_size)  # checks the labels once
    out = _run_reps(
        lambda rep: (codes, t, None), experiment="fig5", point=dataset, epsilons=epsilons,
        methods=methods, repetitions=r, seed=seed, domain_size=domain_size, d=d,
        mechanisms=mechanisms or {}, inference=inference or {}, max_batch_cells=max_batch_cells,
        fixed_data=True, progress=progress, bound_quality=bound_quality,
    )
    out.insert(0, "sparsity", float(np.isnan(a).mean()))
    out.insert(0, "tasks", a.shape[1])
    out.insert(0, "workers", a.shape[0])
    out.insert(0, "dataset", dataset)
    out.insert(0, "experiment", "fig5")
    return out


def run_mf_sensitivity(
    *, n_workers: int, n_tasks: int, sparsity: float, epsilons, ds, ridges, repetitions: int,
    seed: int, domain_size: int = 10, generator=None, mechanisms=None, inference=None,
    max_batch_cells: float = 2e7, progress=None,
) -> pd.DataFrame:
    """MF's MAE change vs the factorisation parameter d and a ridge term λ (not in the paper).

    Diagnoses the gap to LDP-sparse Fig. 3: every (d, λ) runs :func:`run_synthetic_point` with
    method MF on the same datasets (same seeds), so the curves differ only by d and λ. The
    ``method`` column reads "MF, λ=<ridge>". The datasets and their original inferences,
    which depend on neither d nor λ, are computed once for all of them.
    """
    frames = []
    data_cache = {}
    for d in ds:
        for ridge in ridges:
            mech = {**(mechanisms or {}), "mf_ridge": float(ridge)}
            df = run_synthetic_point(
                experiment="mf_sensitivity", n_workers=n_workers, n_tasks=n_tasks,
                sparsity=sparsity, epsilons=epsilons, methods=["mf"], repetitions=repetitions,
                seed=seed, domain_size=domain_size, d=int(d), generator=generator,
                mechanisms=mech, inference=inference, max_batch_cells=max_batch_cells,
                data_cache=data_cache,
                progress=(None if progress is None else
                          lambda label, d=d, ridge=ridge: progress(f"d={d} λ={ridge:g} {label}")),
            )
            df.insert(4, "ridge", float(ridge))
            df.insert(4, "d", int(d))
            df["method"] = f"{registry.MF.label}, λ={float(ridge):g}"
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def summarise(raw: pd.DataFrame, by) -> pd.DataFrame:
    """Mean, standard deviation (ddof=1; NaN when R = 1) and R of the MAE change per point and
    method (:func:`crowdpriv.aggregate.summarise`), with the means of MAE_O, MAE_P, the
    theorem bound and the all-zero reference."""
    means = [c for c in ("mae_original", "mae_perturbed", "bound", "mae_zero",
                         "mae_ref_own_mean", "corr_original", "corr_perturbed") if c in raw]
    return aggregate(raw, by, "mae_change", means=means, sort=True)


#: What Fig. 1's "ground truth of more than 72% tasks" is read as (``ldp_sparse.fig1.gold_from``):
#: ``gold`` the gold labels of the answered tasks that have one; ``majority`` the majority
#: answer of every answered task (ties to the lower label); ``inferred`` Alg. 1's estimate on
#: the original answers of every answered task, rounded to the nearest label.
GOLD_FROM = ("gold", "majority", "inferred")


def task_reference_labels(answers, truth, *, domain_size: int, gold_from: str = "gold",
                          inference=None) -> np.ndarray:
    """The label each answered task is counted under in Fig. 1's gold share (NaN: not counted).

    See :data:`GOLD_FROM`.
    """
    a = np.asarray(answers, dtype=np.float64)
    t = np.asarray(truth, dtype=np.float64)
    answered = ~np.isnan(a)
    has_answer = answered.any(0)
    if gold_from == "gold":
        return np.where(has_answer, t, np.nan)
    if gold_from == "majority":
        counts = np.stack([(a == v).sum(0) for v in range(domain_size)])
        return np.where(has_answer, counts.argmax(0).astype(np.float64), np.nan)
    if gold_from == "inferred":
        est = infer_truth(a, **(inference or {})).truth
        return np.where(has_answer, np.clip(np.rint(est), 0, domain_size - 1), np.nan)
    raise ValueError(f"gold_from must be one of {GOLD_FROM}, got {gold_from!r}")


def answer_distribution(answers, truth, *, domain_size: int = 5, gold_from: str = "gold",
                        inference=None) -> pd.DataFrame:
    """Answer distribution of a real dataset (LDP-sparse Fig. 1).

    Counts of answers per answer value, for all answers and split by the gold label of the
    task (``truth`` = "all" or the gold value), with the fraction within each group; plus the
    reference labels of the answered tasks (``truth`` = "task_gold", ``count`` = number of
    tasks): the gold labels by default, or another reading of "ground truth"
    (:func:`task_reference_labels`).
    """
    a = np.asarray(answers, dtype=np.float64)
    t = np.asarray(truth, dtype=np.float64)
    answered = ~np.isnan(a)
    vals = a[answered].astype(int)
    tt = np.broadcast_to(t, a.shape)[answered]
    rows = []
    groups = [("all", np.ones(vals.size, bool))] + [
        (str(g), tt == g) for g in range(domain_size)
    ]
    for name, sel in groups:
        counts = np.bincount(vals[sel], minlength=domain_size)
        tot = counts.sum()
        for v, c in enumerate(counts):
            rows.append(dict(truth=name, answer=v, count=int(c),
                             fraction=c / tot if tot else np.nan))
    # Reference labels of the answered tasks (group "task_gold": count = tasks labelled `answer`).
    ref = task_reference_labels(a, t, domain_size=domain_size, gold_from=gold_from,
                                inference=inference)
    gold = ref[~np.isnan(ref)].astype(int)
    counts = np.bincount(gold, minlength=domain_size)
    for v, c in enumerate(counts):
        rows.append(dict(truth="task_gold", answer=v, count=int(c),
                         fraction=c / counts.sum() if counts.sum() else np.nan))
    return pd.DataFrame(rows)


def bounds_table(summaries: pd.DataFrame, paper_examples: dict | None = None) -> pd.DataFrame:
    """Theorem bounds beside simulated MAE (the "bounds" deliverable).

    ``summaries`` is the concatenation of the figure summaries (with columns experiment,
    setting, sparsity, epsilon, method, bound_mean, mae_perturbed_mean, mean); the paper's worked
    examples are prepended, with the printed values from ``paper_examples`` ({method: value}).
    """
    ex = paper_example_bounds()
    paper_examples = paper_examples or {}
    mf, two_layer = registry.MF.label, registry.TwoLayer.label
    head = pd.DataFrame([
        dict(experiment="paper_example", setting=(
            "q=1/m, sigma=1, mu=0, s_i=0.1 answered, |Gamma|=10" if meth != mf
            else "n=1000, d=100, |Gamma|=10, q=1/m"),
            sparsity=0.9 if meth != mf else np.nan, epsilon=1.0, method=meth,
            bound=val, paper_bound=paper_examples.get(meth, np.nan),
            mae_perturbed_mean=np.nan, mae_change_mean=np.nan, R=0)
        for meth, val in ex.items()
    ])
    body = summaries.rename(columns={"bound_mean": "bound", "mean": "mae_change_mean"})
    body = body[body["method"] != two_layer]
    body = body.assign(paper_bound=np.nan)[
        ["experiment", "setting", "sparsity", "epsilon", "method", "bound", "paper_bound",
         "mae_perturbed_mean", "mae_change_mean", "R"]
    ]
    out = pd.concat([head, body], ignore_index=True)
    out["bound_holds"] = np.where(
        out["mae_perturbed_mean"].isna(), "", np.where(out["mae_perturbed_mean"] <= out["bound"], "yes", "no")
    )
    return out


def dataset_table(stats: pd.DataFrame, datasets=("web", "adultcontent")) -> pd.DataFrame:
    """LDP-sparse Table II from the foundation's dataset statistics, ours beside the paper's.

    ``stats`` has columns dataset, workers, tasks, claims, sparsity_max/min/avg and the same
    with a ``paper_`` prefix.
    """
    sub = stats.set_index("dataset").reindex(list(datasets))
    if sub["workers"].isna().any():
        missing = list(sub.index[sub["workers"].isna()])
        raise ValueError(f"dataset statistics lack row(s) for {missing}")
    cols = [("workers", "workers"), ("tasks", "tasks"), ("answers", "claims"),
            ("max_sparsity", "sparsity_max"), ("min_sparsity", "sparsity_min"),
            ("avg_sparsity", "sparsity_avg")]
    out = pd.DataFrame({"dataset": sub.index})
    for name, col in cols:
        out[name] = sub[col].to_numpy()
        out[f"paper_{name}"] = sub.get(f"paper_{col}", pd.Series(np.nan, index=sub.index)).to_numpy()
    return out
