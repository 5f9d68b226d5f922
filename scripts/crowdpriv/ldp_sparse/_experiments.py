"""Experiment drivers of LDP-sparse Sec. VI: synthetic sweeps (Fig. 2-4), real data (Fig. 5),
answer distributions (Fig. 1), summaries, the bounds table and the claims of Sec. VI.

Every stochastic step draws from ``derive_rng(seed, "ldp_sparse", experiment, point, rep, ...)``
so a point's numbers do not depend on which other points or repetitions are run with it.
"""

from __future__ import annotations

import importlib
import re

import numpy as np
import pandas as pd

from crowdpriv._checks import check_int_at_least, check_positive
from crowdpriv.runtime import markdown_table as _markdown_table
from crowdpriv.seeds import derive_rng

from ._bounds import lp_error_bound, mf_error_bound, paper_example_bounds, rr_error_bound
from ._inference import infer_truth, mae
from ._mechanisms import (
    draw_task_profiles,
    lp_perturb,
    mf_perturb_prepared,
    mf_prepare,
    rr_perturb,
    two_layer_perturb,
)
from ._synthetic import generate_synthetic

__all__ = [
    "METHODS",
    "load_mechanism",
    "run_synthetic_point",
    "run_real_dataset",
    "run_mf_sensitivity",
    "summarise",
    "answer_distribution",
    "bounds_table",
    "evaluate_claims",
    "round_floats",
    "markdown_table",
    "dataset_table",
]

#: Mechanism names as used in config and CSVs.
METHODS = ("LP", "RR", "MF", "2-Layer")


def load_mechanism(spec: str):
    """Import a user's perturbation from ``"module:function"`` (config ``mechanisms.extra``).

    The function is called as ``f(answers, epsilon, *, rng, domain_size)`` with a workers x tasks
    array (``NaN`` = NULL) and must return the perturbed array of the same shape, ``NaN`` where
    the perturbed answer is NULL (see README "Extending" and :mod:`crowdpriv.examples`).
    """
    module_name, _, attr = str(spec).partition(":")
    if not module_name or not attr:
        raise ValueError(f"a mechanism must be given as 'module:function', got {spec!r}")
    try:
        func = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"cannot load mechanism {spec!r}: {err}") from err
    if not callable(func):
        raise ValueError(f"mechanism {spec!r} is not callable")
    return func


def _check_methods(methods, extra=()):
    methods = list(methods)
    known = [*METHODS, *extra]
    for meth in methods:
        if meth not in known:
            raise ValueError(
                f"methods must be among {known} (add others under mechanisms.extra), got {meth!r}"
            )
    return methods


def _check_epsilons(epsilons):
    eps = [check_positive("epsilon", e) for e in epsilons]
    if not eps:
        raise ValueError("epsilons must not be empty")
    return eps


def _perturb(method, answers, eps, rng, *, domain_size, mechanisms, mf_prepared):
    extra = mechanisms.get("extra", {})
    if method in extra:
        out = np.asarray(load_mechanism(extra[method])(answers, eps, rng=rng, domain_size=domain_size))
        if out.shape != answers.shape:
            raise ValueError(
                f"mechanism {method!r} returned shape {out.shape}, expected {answers.shape}"
            )
        return out.astype(answers.dtype, copy=False)
    if method == "LP":
        return lp_perturb(
            answers, eps, rng=rng, domain_size=domain_size,
            null_fill=mechanisms.get("lp_null_fill", "uniform"),
        )
    if method == "RR":
        return rr_perturb(answers, eps, rng=rng, domain_size=domain_size)
    if method == "2-Layer":
        return two_layer_perturb(
            answers, eps, rng=rng, domain_size=domain_size,
            spread=mechanisms.get("two_layer_spread", 1.0),
        )
    return mf_perturb_prepared(mf_prepared, eps, rng=rng)


def _bound(method, eps, *, answered, sigma, truth, domain_size, d, null_fill="uniform"):
    """Theorem 2/3/5 bound in an experiment's own setting, with q_i = 1/m as in the examples.

    ``null_fill`` is LP's NULL replacement v; Theorem 2's φ_j uses its mean E(v).
    """
    m, n = answered.shape
    q = np.full(m, 1.0 / m)
    s = answered.mean(1)
    has_truth = ~np.isnan(truth)
    common = dict(quality=q, answered_fraction=s, sigma=sigma, truth=truth[has_truth],
                  domain_size=domain_size, epsilon=eps)
    if method == "LP":
        null_mean = None if isinstance(null_fill, str) else float(null_fill)
        return lp_error_bound(**common, null_mean=null_mean)
    if method == "RR":
        return rr_error_bound(**common, answered=answered[:, has_truth])
    if method == "MF":
        return mf_error_bound(quality=q, n_tasks=n, d=d, domain_size=domain_size, epsilon=eps)
    return np.nan  # the paper gives no bound for 2-Layer


def _run_reps(
    make_data, *, experiment, point, epsilons, methods, repetitions, seed, domain_size, d,
    mechanisms, inference, max_batch_cells, fixed_data=False,
):
    """Shared loop: per chunk of repetitions, infer on the original and on each perturbation."""
    rows = []
    fixed_cache = {}
    fill = (domain_size - 1) / 2.0
    reps = list(range(repetitions))
    chunk = None
    while reps:
        first = make_data(reps[0])
        cells = first[0].size
        chunk = chunk or max(1, int(max_batch_cells // max(cells, 1)))
        this, reps = reps[:chunk], reps[chunk:]
        data = [first] + [make_data(r) for r in this[1:]]
        answers = np.stack([x[0] for x in data])
        truths = [x[1] for x in data]
        sigmas = [x[2] for x in data]
        del data
        if fixed_data and fixed_cache:
            orig_truth, orig_sigma = fixed_cache["truth"], fixed_cache["sigma"]
        else:
            # Fixed (real) data: the original inference is deterministic, run it once.
            res0 = infer_truth(answers[:1] if fixed_data else answers, **inference)
            orig_truth, orig_sigma = res0.truth, res0.sigma
            fixed_cache.update(truth=orig_truth, sigma=orig_sigma)
        ob = (lambda b: 0) if fixed_data else (lambda b: b)
        mae_o = np.array([mae(t, orig_truth[ob(b)], fill_value=fill) for b, t in enumerate(truths)])
        # Reference: MAE of answering the lowest label (0) for every task, the centre of the
        # synthetic truth and the majority gold label of both real datasets.
        mae_zero = np.array([mae(t, np.zeros_like(t)) for t in truths])
        sig_for_bound = [
            np.where(np.isnan(s_) | (s_ < 1e-2), np.where(np.isnan(s_), 1.0, 1e-2), s_)
            if s_ is not None else np.clip(np.nan_to_num(orig_sigma[ob(b)], nan=1.0), 1e-2, None)
            for b, s_ in enumerate(sigmas)
        ]
        answered = ~np.isnan(answers)
        prepared = {}
        if "MF" in methods:
            for b, rep in enumerate(this):
                v = draw_task_profiles(
                    answers.shape[-1], d, rng=derive_rng(seed, "ldp_sparse", experiment, point, rep, "V"),
                    l1_norm=mechanisms.get("mf_l1_norm", 1.0),
                )
                prepared[b] = mf_prepare(
                    answers[b], v, domain_size=domain_size, ridge=mechanisms.get("mf_ridge", 0.0)
                )
        for eps in epsilons:
            for method in methods:
                pert = np.stack([
                    _perturb(
                        method, answers[b], eps,
                        derive_rng(seed, "ldp_sparse", experiment, point, rep, method, eps),
                        domain_size=domain_size, mechanisms=mechanisms, mf_prepared=prepared.get(b),
                    )
                    for b, rep in enumerate(this)
                ])
                res = infer_truth(pert, **inference)
                del pert
                for b, rep in enumerate(this):
                    mae_p = mae(truths[b], res.truth[b], fill_value=fill)
                    bound = _bound(method, eps, answered=answered[b], sigma=sig_for_bound[b],
                                   truth=truths[b], domain_size=domain_size, d=d,
                                   null_fill=mechanisms.get("lp_null_fill", "uniform"))
                    rows.append(dict(
                        epsilon=eps, method=method, rep=rep, mae_original=mae_o[b],
                        mae_perturbed=mae_p, mae_change=mae_p - mae_o[b], bound=bound,
                        mae_zero=mae_zero[b], iterations=int(res.iterations[b]),
                    ))
        del answers, answered, prepared
    out = pd.DataFrame(rows)
    # Row order independent of how repetitions were batched.
    order = {m: i for i, m in enumerate(methods)}
    out = out.sort_values(["epsilon", "method", "rep"], key=lambda s: s.map(order) if s.name == "method" else s)
    return out.reset_index(drop=True)


def run_synthetic_point(
    *, experiment: str, n_workers: int, n_tasks: int, sparsity: float, epsilons, methods,
    repetitions: int, seed: int, domain_size: int = 10, d: int = 10, generator=None,
    mechanisms=None, inference=None, max_batch_cells: float = 2e7,
) -> pd.DataFrame:
    """All ε x methods x repetitions of one synthetic sparsity point (LDP-sparse Fig. 2-4).

    Each repetition draws a fresh dataset (:func:`generate_synthetic`), infers the truth on it
    (MAE_O), perturbs it with each method at each ε, infers again (MAE_P) and records the MAE
    change (Sec. VI-A) and the method's theorem bound in this setting.

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
    methods = _check_methods(methods, mechanisms.get("extra", {}))
    sparsity = float(sparsity)

    def make(rep):
        ds = generate_synthetic(
            m, n, sparsity, rng=derive_rng(seed, "ldp_sparse", experiment, sparsity, rep, "data"),
            domain_size=domain_size, **generator,
        )
        return ds.answers, ds.truth, ds.sigma

    out = _run_reps(
        make, experiment=experiment, point=sparsity, epsilons=epsilons, methods=methods,
        repetitions=r, seed=seed, domain_size=domain_size, d=d, mechanisms=mechanisms,
        inference=inference, max_batch_cells=max_batch_cells,
    )
    out.insert(0, "sparsity", sparsity)
    out.insert(0, "tasks", n)
    out.insert(0, "workers", m)
    out.insert(0, "experiment", experiment)
    return out


def run_real_dataset(
    answers, truth, *, dataset: str, epsilons, methods, repetitions: int, seed: int,
    domain_size: int = 5, d: int = 10, mechanisms=None, inference=None,
    max_batch_cells: float = 2e7,
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
    methods = _check_methods(methods, (mechanisms or {}).get("extra", {}))
    out = _run_reps(
        lambda rep: (a, t, None), experiment="fig5", point=dataset, epsilons=epsilons,
        methods=methods, repetitions=r, seed=seed, domain_size=domain_size, d=d,
        mechanisms=mechanisms or {}, inference=inference or {}, max_batch_cells=max_batch_cells,
        fixed_data=True,
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
    max_batch_cells: float = 2e7,
) -> pd.DataFrame:
    """MF's MAE change vs the factorisation parameter d and a ridge term λ (not in the paper).

    Diagnoses the gap to LDP-sparse Fig. 3: every (d, λ) runs :func:`run_synthetic_point` with
    method MF on the same datasets (same seeds), so the curves differ only by d and λ. The
    ``method`` column reads "MF, λ=<ridge>".
    """
    frames = []
    for d in ds:
        for ridge in ridges:
            mech = {**(mechanisms or {}), "mf_ridge": float(ridge)}
            df = run_synthetic_point(
                experiment="mf_sensitivity", n_workers=n_workers, n_tasks=n_tasks,
                sparsity=sparsity, epsilons=epsilons, methods=["MF"], repetitions=repetitions,
                seed=seed, domain_size=domain_size, d=int(d), generator=generator,
                mechanisms=mech, inference=inference, max_batch_cells=max_batch_cells,
            )
            df.insert(4, "ridge", float(ridge))
            df.insert(4, "d", int(d))
            df["method"] = f"MF, λ={float(ridge):g}"
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def summarise(raw: pd.DataFrame, by) -> pd.DataFrame:
    """Mean, standard deviation (ddof=1) and R of the MAE change per point and method.

    Also carries the means of MAE_O, MAE_P and of the theorem bound.
    """
    by = list(by)
    g = raw.groupby(by, sort=True)
    out = g["mae_change"].agg(mean="mean", std="std", R="count").reset_index()
    out["mae_original_mean"] = g["mae_original"].mean().to_numpy()
    out["mae_perturbed_mean"] = g["mae_perturbed"].mean().to_numpy()
    out["bound_mean"] = g["bound"].mean().to_numpy()
    if "mae_zero" in raw:
        out["mae_zero_mean"] = g["mae_zero"].mean().to_numpy()
    return out


def answer_distribution(answers, truth, *, domain_size: int = 5) -> pd.DataFrame:
    """Answer distribution of a real dataset (LDP-sparse Fig. 1).

    Counts of answers per answer value, for all answers and split by the gold label of the
    task (``truth`` = "all" or the gold value), with the fraction within each group; plus the
    gold labels of the answered tasks (``truth`` = "task_gold", ``count`` = number of tasks).
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
    # Gold labels of the answered tasks (group "task_gold": count = tasks whose gold is `answer`).
    gold = t[answered.any(0) & ~np.isnan(t)].astype(int)
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
    head = pd.DataFrame([
        dict(experiment="paper_example", setting=(
            "q=1/m, sigma=1, mu=0, s_i=0.1 answered, |Gamma|=10" if meth != "MF"
            else "n=1000, d=100, |Gamma|=10, q=1/m"),
            sparsity=0.9 if meth != "MF" else np.nan, epsilon=1.0, method=meth,
            bound=val, paper_bound=paper_examples.get(meth, np.nan),
            mae_perturbed_mean=np.nan, mae_change_mean=np.nan, R=0)
        for meth, val in ex.items()
    ])
    body = summaries.rename(columns={"bound_mean": "bound", "mean": "mae_change_mean"})
    body = body[body["method"] != "2-Layer"]
    body = body.assign(paper_bound=np.nan)[
        ["experiment", "setting", "sparsity", "epsilon", "method", "bound", "paper_bound",
         "mae_perturbed_mean", "mae_change_mean", "R"]
    ]
    out = pd.concat([head, body], ignore_index=True)
    out["bound_holds"] = np.where(
        out["mae_perturbed_mean"].isna(), "", np.where(out["mae_perturbed_mean"] <= out["bound"], "yes", "no")
    )
    return out


def round_floats(df: pd.DataFrame, digits: int = 10) -> pd.DataFrame:
    """Round float columns to ``digits`` significant digits (byte-stable CSVs)."""
    out = df.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col]):
            x = out[col].to_numpy(dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                mag = np.where((x != 0) & np.isfinite(x), np.floor(np.log10(np.abs(x))), 0)
                scale = 10.0 ** (digits - 1 - mag)
                out[col] = np.where(np.isfinite(x), np.round(x * scale) / scale, x)
    return out


def _fmt(x):
    return f"{x:.3g}"


def markdown_table(df: pd.DataFrame, *, digits: int = 4) -> str:
    """A Markdown table of ``df`` ending in a newline (:func:`crowdpriv.runtime.markdown_table`)."""
    return _markdown_table(df, digits=digits) + "\n"


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


def evaluate_claims(
    fig2, fig3, fig4, fig5, *, tolerance: float = 0.0, bounds=None, fig1=None
) -> pd.DataFrame:
    """Decide the qualitative claims of LDP-sparse Sec. VI from the figure summaries.

    Each summary has columns sparsity, epsilon, method, mean (MAE change) (and dataset for
    ``fig5``). ``tolerance`` is the slack allowed in monotonicity checks (MAE-change units).
    Returns rows (claim, status, evidence) with status holds / fails / not testable.
    """
    rows = []

    def add(claim, ok, evidence, figure=None):
        # the paper's figure the claim is read from: "(Fig. N" in its text, unless given
        if figure is None:
            match = re.search(r"\(Fig\. (\d)", claim)
            figure = f"Fig. {match.group(1)}" if match else ""
        status = "not testable" if ok is None else ("holds" if ok else "fails")
        rows.append(dict(claim=claim, figure=figure, status=status, evidence=evidence))

    def piv(df, index, cols="method"):
        return df.pivot_table(index=index, columns=cols, values="mean", aggfunc="first")

    # 1. MF smallest in most settings (all synthetic + real points).
    wins, total, where_not = 0, 0, []
    for name, df, idx in (("fig2", fig2, ["sparsity", "epsilon"]), ("fig3", fig3, ["sparsity", "epsilon"]),
                          ("fig4", fig4, ["sparsity", "epsilon"]), ("fig5", fig5, ["dataset", "epsilon"])):
        if df is None or df.empty or "MF" not in set(df["method"]):
            continue
        p = piv(df, idx)
        best = p.idxmin(axis=1)
        wins += int((best == "MF").sum())
        total += len(best)
        where_not += [f"{name}{k}: {b}" for k, b in best[best != "MF"].items()][:4]
    add("MF has the smallest MAE change in most settings (Sec. VI-C, VI-D)",
        None if total == 0 else wins > total / 2,
        f"MF smallest at {wins}/{total} points" + (f"; e.g. not at {'; '.join(where_not)}" if where_not else ""),
        "Figs. 2-5")

    # 2. MF never exceeds 0.5 even at sparsity 0.9 (Fig. 3, 2000 x 200).
    mf3 = fig3[fig3["method"] == "MF"] if fig3 is not None else None
    if mf3 is None or mf3.empty:
        add("MF's MAE change never exceeds 0.5, even at sparsity 0.9 (Fig. 3)", None, "no MF points")
    else:
        worst = mf3.loc[mf3["mean"].idxmax()]
        add("MF's MAE change never exceeds 0.5, even at sparsity 0.9 (Fig. 3)",
            bool(mf3["mean"].max() <= 0.5),
            f"max MF MAE change {_fmt(worst['mean'])} at sparsity {worst['sparsity']:g}, "
            f"eps {worst['epsilon']:g}; at sparsity 0.9: "
            + ", ".join(f"eps {e:g}: {_fmt(v)}" for e, v in
                        mf3[np.isclose(mf3['sparsity'], 0.9)][["epsilon", "mean"]].itertuples(index=False)))

    # 3. LP drops from eps 0.1 to 1 then stays flat (Fig. 2).
    lp = fig2[fig2["method"] == "LP"]
    ok_all, ev = [], []
    for s, g in lp.groupby("sparsity"):
        g = g.set_index("epsilon")["mean"].sort_index()
        if not ({0.1, 1.0} <= set(np.round(g.index, 12))) or (g.index > 1).sum() < 1:
            continue
        drop = g.loc[0.1] - g.loc[1.0]
        after = g[g.index >= 1.0]
        spread = after.max() - after.min()
        ok_all.append(drop > 0 and spread < 0.5 * drop)
        ev.append(f"sparsity {s:g}: drop 0.1->1 = {_fmt(drop)}, range over eps>=1 = {_fmt(spread)}")
    add("LP drops sharply from eps = 0.1 to 1, then stays flat (Fig. 2)",
        None if not ok_all else all(ok_all), "; ".join(ev) + " (flat: range < half the drop)" if ev else "eps 0.1/1 not in sweep")

    # 4. RR keeps decreasing with eps (Fig. 2).
    rr = fig2[fig2["method"] == "RR"]
    ok_all, ev = [], []
    for s, g in rr.groupby("sparsity"):
        g = g.set_index("epsilon")["mean"].sort_index()
        diffs = np.diff(g.to_numpy())
        ok_all.append(bool((diffs <= tolerance).all()) and g.iloc[-1] < g.iloc[0])
        ev.append(f"sparsity {s:g}: " + " > ".join(_fmt(x) for x in g.to_numpy()))
    add("RR's MAE change keeps decreasing as eps grows (Fig. 2)", None if not ok_all else all(ok_all),
        "; ".join(ev))

    # 5. MF insensitive to sparsity; LP and RR grow with it (Fig. 3).
    ok_all, ev = [], []
    for e, g in fig3.groupby("epsilon"):
        p = piv(g, "sparsity").sort_index()
        if "MF" not in p:  # the claim is about MF: without it, not testable
            continue
        mf_range = p["MF"].max() - p["MF"].min()
        for meth in ("LP", "RR"):
            if meth in p:
                grow = p[meth].iloc[-1] - p[meth].iloc[0]
                ok_all.append(grow > 0 and grow > mf_range)
                ev.append(f"eps {e:g}: {meth} {_fmt(p[meth].iloc[0])}->{_fmt(p[meth].iloc[-1])}")
        ev.append(f"eps {e:g}: MF range {_fmt(mf_range)}")
    add("MF is insensitive to sparsity while LP and RR grow with it (Fig. 3)",
        None if not ok_all else all(ok_all),
        "; ".join(ev) + " (holds if LP and RR grow from the lowest to the highest sparsity by more than MF's range)")

    # 6. 10,000 x 1,000 resembles 2,000 x 200 (Fig. 4 vs Fig. 3).
    if fig4 is None or fig4.empty:
        add("Results at 10,000 x 1,000 resemble 2,000 x 200 (Fig. 4 vs Fig. 3)", None, "fig4 not run")
    else:
        a = piv(fig3, ["sparsity", "epsilon"])
        b = piv(fig4, ["sparsity", "epsilon"])
        common = a.index.intersection(b.index)
        same_rank = (a.loc[common].idxmin(axis=1) == b.loc[common].idxmin(axis=1))
        diff = (a.loc[common] - b.loc[common]).abs()
        add("Results at 10,000 x 1,000 resemble 2,000 x 200 (Fig. 4 vs Fig. 3)",
            bool(same_rank.mean() >= 0.75) if len(common) else None,
            f"same best method at {int(same_rank.sum())}/{len(common)} common points; "
            f"median |difference| {_fmt(float(np.nanmedian(diff.to_numpy())))}, "
            f"max {_fmt(float(np.nanmax(diff.to_numpy())))} (holds if the best method agrees at >= 75%)")

    # 7. LP smaller at eps 0.1 on the larger data (Fig. 4 vs Fig. 3).
    if fig4 is not None and not fig4.empty:
        a = piv(fig3[np.isclose(fig3["epsilon"], 0.1)], "sparsity")
        b = piv(fig4[np.isclose(fig4["epsilon"], 0.1)], "sparsity")
        common = a.index.intersection(b.index)
        if "LP" in a and len(common):
            smaller = (b.loc[common, "LP"] < a.loc[common, "LP"])
            add("At eps = 0.1, LP's MAE change is smaller on 10,000 x 1,000 than on 2,000 x 200 (Sec. VI-C)",
                bool(smaller.all()),
                "; ".join(f"sparsity {s:g}: {_fmt(a.loc[s, 'LP'])} vs {_fmt(b.loc[s, 'LP'])}" for s in common),
                "Fig. 4")

    # 8. 2-Layer comparable to RR on real data (Fig. 5).
    if fig5 is None or fig5.empty or not {"RR", "2-Layer"} <= set(fig5["method"]):
        add("On the real data 2-Layer is comparable to RR (Fig. 5)", None, "RR or 2-Layer not run")
    else:
        p = piv(fig5, ["dataset", "epsilon"])
        rel = (p["2-Layer"] - p["RR"]).abs() / p[["RR", "2-Layer"]].abs().max(axis=1)
        ev = [f"{ds}: median relative difference {_fmt(g.median())}, max {_fmt(g.max())}"
              for ds, g in rel.groupby(level=0)]
        add("On the real data 2-Layer is comparable to RR (Fig. 5)", bool(rel.median() <= 0.25),
            "; ".join(ev) + " (holds if the median relative difference is <= 25%)")

    # 9. RR on AdultContent drops sharply once eps > 3 (Fig. 5).
    if fig5 is not None and not fig5.empty and "adultcontent" in set(fig5.get("dataset", [])):
        g = fig5[(fig5["dataset"] == "adultcontent") & (fig5["method"] == "RR")].set_index("epsilon")["mean"].sort_index()
        lo, hi = g[g.index <= 3], g[g.index > 3]
        if len(lo) >= 2 and len(hi) >= 1:
            slope_lo = (lo.iloc[0] - lo.iloc[-1]) / (lo.index[-1] - lo.index[0])
            slope_hi = (lo.iloc[-1] - hi.iloc[-1]) / (hi.index[-1] - lo.index[-1])
            add("On AdultContent RR's MAE change drops sharply once eps > 3 (Fig. 5)",
                bool(slope_hi > 2 * max(slope_lo, 0)),
                f"mean drop per unit eps: {_fmt(slope_lo)} up to eps 3, {_fmt(slope_hi)} beyond "
                "(holds if the drop beyond 3 is more than twice as steep)")
        else:
            add("On AdultContent RR's MAE change drops sharply once eps > 3 (Fig. 5)", None,
                "sweep lacks points on both sides of eps = 3")

    # 12-13. Fig. 1: gold label 0 for > 72 % of tasks; most answers equal the gold label.
    if fig1 is not None and not fig1.empty:
        gold = fig1[fig1["truth"] == "task_gold"]
        share0 = gold[gold["answer"] == 0].set_index("dataset")["fraction"]
        add("The ground truth of more than 72% of the tasks is 0 in both real datasets (Sec. VI-B)",
            bool((share0 > 0.72).all()) if len(share0) else None,
            "; ".join(f"{ds}: {v:.1%} of answered gold tasks have gold 0" for ds, v in share0.items()),
            "Fig. 1")
        per = fig1[~fig1["truth"].isin(["all", "task_gold"])].copy()
        per["correct"] = per["truth"].astype(int) == per["answer"]
        frac = per[per["correct"]].groupby("dataset")["count"].sum() / per.groupby("dataset")["count"].sum()
        add("The majority of answers equal the ground truth in both real datasets (Sec. VI-B)",
            bool((frac > 0.5).all()) if len(frac) else None,
            "; ".join(f"{ds}: {v:.1%} of answers on gold tasks are correct" for ds, v in frac.items()),
            "Fig. 1")

    # 10-11. Theorem bounds: paper examples reproduced; simulated MAE_P below the bounds.
    if bounds is not None and not bounds.empty:
        ex = bounds[bounds["experiment"] == "paper_example"]
        diff = (ex["bound"] - ex["paper_bound"]).abs()
        add("Theorem bounds of the worked examples: LP 14.13, RR 3.551, MF 1.8 (Sec. IV-V)",
            bool((diff <= 0.01).all()) if diff.notna().all() else None,
            "; ".join(f"{r.method}: {r.bound:.4g} vs paper {r.paper_bound:.4g}" for r in ex.itertuples()),
            "Theorems")
        sim = bounds[bounds["experiment"] != "paper_example"]
        for meth, g in sim.groupby("method", sort=False):
            below = g["mae_perturbed_mean"] <= g["bound"]
            worst = g.loc[(g["mae_perturbed_mean"] - g["bound"]).idxmax()]
            add(f"Simulated E[MAE] after {meth} stays below its theorem bound (Theorem "
                f"{ {'LP': 2, 'RR': 3, 'MF': 5}.get(meth, '?') })",
                bool(below.all()),
                f"below at {int(below.sum())}/{len(g)} points; largest excess: MAE_P "
                f"{_fmt(worst['mae_perturbed_mean'])} vs bound {_fmt(worst['bound'])} "
                f"({worst['experiment']}, {worst['setting']}, sparsity {worst['sparsity']:.3g}, eps {worst['epsilon']:g})",
                "Theorems")
    return pd.DataFrame(rows)
