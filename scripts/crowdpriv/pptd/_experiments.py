"""PPTD experiments (Sec. 5): every figure's numbers from one function call.

Random streams are derived from ``seed`` with :func:`crowdpriv.seeds.derive_rng`, keyed by what
they generate, not by the figure: the synthetic data for (S, N, λ1) and its perturbations are the
same in every figure that uses that setting (e.g. Fig. 2, the λ1 = 2 curve of Fig. 3, the
S = 150 curve of Fig. 4 and Fig. 5 see identical data and noise), so figures differ only where
their settings differ.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..aggregate import summarise
from .._checks import ParameterError, check_in_interval, check_int_at_least, check_positive
from ..seeds import derive_rng
from ._mechanism import average_noise, expected_average_noise, perturb
from ._synthetic import generate_synthetic
from ._theory import (
    exact_record_epsilon,
    lambda2_from_epsilon,
    lemma48_sensitivity,
    utility_alpha,
)
from ._truth import crh, crh_weights, truth_discovery

__all__ = [
    "MIN_TIMING_CALLS",
    "tradeoff_sweep",
    "synthetic_tradeoff",
    "real_tradeoff",
    "estimate_lambda1",
    "weight_comparison",
    "runtime_study",
    "summarise_tradeoff",
    "summarise_runtime",
    "TRADEOFF_MEASURES",
]


def _check_epsilons(epsilons) -> np.ndarray:
    eps = np.asarray(epsilons, dtype=float).ravel()
    if eps.size == 0:
        raise ValueError("epsilons must contain at least one value, got []")
    for e in eps:
        check_positive("epsilon", e)
    return eps


def tradeoff_sweep(
    claims,
    epsilons,
    *,
    lam1: float,
    b: float,
    eta: float,
    delta: float,
    sensitivity: str = "printed",
    method: str = "crh",
    td_kwargs: dict | None = None,
    utility_beta: float = 0.1,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Utility–privacy trade-off (PPTD Figs. 2–6) on R original datasets, per repetition.

    For each ε, λ2 follows from Theorem 4.10 (:func:`lambda2_from_epsilon`); every dataset is
    perturbed with Alg. 2 (all ε share the standard draws, see :func:`perturb`), truth discovery
    runs on original and perturbed claims, and MAE = mean_n |x*_n - x̂*_n| (PPTD Eq. 6 / Sec. 5.1)
    and the average added noise mean |ξ| are recorded per repetition.

    Parameters
    ----------
    claims : array_like, shape (R, S, N)
        Original claims of R repetitions (``NaN`` = missing).
    epsilons : sequence of float
        Privacy levels ε of Theorem 4.10 (the paper sweeps λ2; this is the same one-to-one map).
    lam1, b, eta, delta : float
        λ1 and the constants of Lemma 4.8 / Theorem 4.10.
    method : {"crh", "gtm"}
    td_kwargs : dict, optional
        Passed to the truth-discovery method (tol, max_iter, ...).
    utility_beta : float
        β of Theorem 4.3 for the reported α bounds (printed and exact E(Y)).
    rng : numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        One row per ε and repetition ``rep``: ``epsilon``, ``lambda2``, ``c``,
        ``expected_noise``, ``alpha_thm43_printed``, ``alpha_thm43_exact`` (per ε), and the
        measures ``mae``, ``noise``, ``mae_over_noise``, ``iterations_original``,
        ``iterations_perturbed``.
    """
    eps = _check_epsilons(epsilons)
    lam1 = check_positive("lam1", lam1)
    utility_beta = check_in_interval("utility_beta", utility_beta, 0, 1, closed_low=False)
    x = np.asarray(claims, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"claims must have shape (R, S, N), got {x.shape}")
    kw = dict(td_kwargs or {})
    lam2 = lambda2_from_epsilon(eps, lam1, b=b, eta=eta, delta=delta,
                                sensitivity=sensitivity)
    orig = truth_discovery(x, method=method, **kw)
    pert = perturb(x, lam2, rng=rng)
    res = truth_discovery(pert.claims, method=method, **kw)
    mae = np.nanmean(np.abs(res.truths - orig.truths[None]), axis=-1)  # (E, R)
    # Baseline (not in the paper): the plain mean of the claims per object, original vs
    # perturbed, so a reader sees how much of "MAE << noise" is averaging alone.
    with np.errstate(invalid="ignore"):
        plain = np.nanmean(x, axis=-2)
        plain_pert = np.nanmean(pert.claims, axis=-2)
    mae_plain = np.nanmean(np.abs(plain_pert - plain[None]), axis=-1)  # (E, R)
    noise = average_noise(pert.noise)  # (E, R)
    n_eps, n_reps = mae.shape
    c = lam1 / lam2
    alpha = {form: np.array([utility_alpha(lam1, ci, utility_beta, x.shape[1], form=form)
                             for ci in c]) for form in ("printed", "exact")}
    per_eps = np.repeat(np.arange(n_eps), n_reps)
    return pd.DataFrame({
        "epsilon": eps[per_eps],
        "lambda2": lam2[per_eps],
        "c": c[per_eps],
        "expected_noise": expected_average_noise(lam2)[per_eps],
        "exact_epsilon": exact_record_epsilon(
            lam2, lemma48_sensitivity(lam1, b=b, eta=eta, sensitivity=sensitivity))[per_eps],
        "alpha_thm43_printed": alpha["printed"][per_eps],
        "alpha_thm43_exact": alpha["exact"][per_eps],
        "rep": np.tile(np.arange(n_reps), n_eps),
        "mae": mae.ravel(),
        "noise": noise.ravel(),
        "mae_over_noise": (mae / noise).ravel(),
        "mae_plain_mean": mae_plain.ravel(),
        "iterations_original": np.tile(np.asarray(orig.iterations).ravel(), n_eps),
        "iterations_perturbed": np.asarray(res.iterations).ravel(),
    })


def synthetic_tradeoff(
    *,
    seed: int,
    workers,
    lam1,
    tasks: int = 30,
    epsilons,
    repetitions: int,
    b: float,
    eta: float,
    delta: float,
    sensitivity: str = "printed",
    method: str = "crh",
    td_kwargs: dict | None = None,
    utility_beta: float = 0.1,
    truth_low: float = 0.0,
    truth_high: float = 10.0,
) -> pd.DataFrame:
    """PPTD Figs. 2–5: :func:`tradeoff_sweep` on synthetic data for each (λ1, S) given.

    ``workers`` (S) and ``lam1`` may be scalars or lists (Fig. 3 varies λ1, Fig. 4 varies S);
    all combinations are run. Data for (S, N, λ1) come from stream
    ``("pptd", "synthetic", S, N, λ1)``, perturbations from ``("pptd", "perturb", ...)``, so
    repetition r is the same dataset for every ε, and the same in every figure that uses that
    (S, N, λ1). One row per (λ1, S, ε, repetition).
    """
    r = check_int_at_least("repetitions", repetitions, 1)
    n = check_int_at_least("tasks", tasks, 1)
    frames = []
    for l1 in np.atleast_1d(np.asarray(lam1, dtype=float)):
        for s in np.atleast_1d(workers):
            s = check_int_at_least("workers", s, 1)
            l1 = float(l1)
            data = generate_synthetic(
                s,
                n,
                l1,
                n_datasets=r,
                truth_low=truth_low,
                truth_high=truth_high,
                rng=derive_rng(seed, "pptd", "synthetic", s, n, l1),
            )
            df = tradeoff_sweep(
                data.claims,
                epsilons,
                lam1=l1,
                b=b,
                eta=eta,
                delta=delta,
                sensitivity=sensitivity,
                method=method,
                td_kwargs=td_kwargs,
                utility_beta=utility_beta,
                rng=derive_rng(seed, "pptd", "perturb", "synthetic", s, n, l1),
            )
            df.insert(0, "tasks", n)
            df.insert(0, "workers", s)
            df.insert(0, "lambda1", l1)
            frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "method", method)
    out.insert(0, "dataset", "synthetic")
    return out


def estimate_lambda1(values, truth) -> float:
    """Moment estimate of λ1 on data with ground truth: ``1 / mean_s σ̂_s²``.

    ``σ̂_s² = mean_n (x_n^s - truth_n)²`` over the objects user s claimed (PPTD models errors as
    ``N(0, σ_s²)`` with ``σ_s² ~ Exp(λ1)``, whose mean is 1/λ1). The paper does not say which λ1
    it used for the ε of its real-data Fig. 6.
    """
    x = np.asarray(values, dtype=float)
    t = np.asarray(truth, dtype=float)
    obs = ~np.isnan(x)
    sq = np.where(obs, (np.where(obs, x, 0.0) - t[None, :]) ** 2, 0.0).sum(axis=1)
    n_s = obs.sum(axis=1)
    has = n_s > 0
    var = sq[has] / n_s[has]
    mean_var = float(var.mean())
    if not mean_var > 0:
        raise ValueError(f"cannot estimate lambda1: mean error variance is {mean_var!r}")
    return 1.0 / mean_var


def real_tradeoff(
    values,
    truth,
    *,
    seed: int,
    dataset: str,
    lam1: float | None,
    epsilons,
    repetitions: int,
    b: float,
    eta: float,
    delta: float,
    sensitivity: str = "printed",
    method: str = "crh",
    td_kwargs: dict | None = None,
    utility_beta: float = 0.1,
) -> pd.DataFrame:
    """PPTD Fig. 6: :func:`tradeoff_sweep` on one real (or surrogate) claims matrix.

    The original data are fixed; the R repetitions are R independent perturbations (one row
    per ε and repetition).
    ``lam1=None`` estimates λ1 from the ground truth (:func:`estimate_lambda1`); it is needed
    only to turn ε into λ2.
    """
    r = check_int_at_least("repetitions", repetitions, 1)
    x = np.asarray(values, dtype=float)
    l1 = estimate_lambda1(x, truth) if lam1 is None else check_positive("lam1", lam1)
    claims = np.broadcast_to(x, (r,) + x.shape)
    df = tradeoff_sweep(
        claims,
        epsilons,
        lam1=l1,
        b=b,
        eta=eta,
        delta=delta,
        sensitivity=sensitivity,
        method=method,
        td_kwargs=td_kwargs,
        utility_beta=utility_beta,
        rng=derive_rng(seed, "pptd", "perturb", dataset),
    )
    df.insert(0, "tasks", x.shape[1])
    df.insert(0, "workers", x.shape[0])
    df.insert(0, "lambda1", l1)
    df.insert(0, "lambda1_source", "estimated" if lam1 is None else "config")
    df.insert(0, "method", method)
    df.insert(0, "dataset", dataset)
    return df


def _aggregation_errors(claims, truths, truth) -> dict:
    """Mean absolute error against the ground truth of CRH's truths and of the naive mean and
    median of each object's claims (``claims`` (..., S, N), ``truths`` (..., N))."""
    err = {"mae_crh": np.nanmean(np.abs(truths - truth), axis=-1)}
    with np.errstate(all="ignore"):
        err["mae_mean"] = np.nanmean(np.abs(np.nanmean(claims, axis=-2) - truth), axis=-1)
        err["mae_median"] = np.nanmean(np.abs(np.nanmedian(claims, axis=-2) - truth), axis=-1)
    return err


def _average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks 1 .. n, each tie the mean of its ranks, as ``scipy.stats.rankdata`` (method
    ``average``) gives them: integers and halves, exact in float64."""
    order = np.argsort(a, kind="stable")
    y = a[order]
    first = np.concatenate([[True], y[:-1] != y[1:]])
    starts = np.flatnonzero(first)
    counts = np.diff(starts, append=y.size)
    ranks = np.empty(y.size)
    ranks[order] = np.repeat((starts + 1) + (counts - 1) / 2, counts)
    return ranks


def _spearman(a, b) -> float:
    """Spearman's ρ of two 1-D samples as ``scipy.stats.spearmanr(a, b).statistic`` computes
    it (the Pearson correlation of their average ranks by ``np.corrcoef``, the same bits; NaN
    for a constant sample or one with a NaN), without importing scipy.stats (~0.8 CPU-s)."""
    x = np.column_stack((np.asarray(a, dtype=float), np.asarray(b, dtype=float)))
    if x.shape[0] <= 1 or (x[:, 0][0] == x[:, 0]).all() or (x[:, 1][0] == x[:, 1]).all():
        return np.float64(np.nan)  # spearmanr warns (constant input) and gives NaN
    if np.isnan(x).any():
        return np.float64(np.nan)
    ranked = np.column_stack((_average_ranks(x[:, 0]), _average_ranks(x[:, 1])))
    return np.corrcoef(ranked, rowvar=False)[1, 0]


def weight_comparison(
    values,
    truth,
    *,
    seed: int,
    dataset: str,
    epsilon: float,
    lam1: float | None,
    b: float,
    eta: float,
    delta: float,
    sensitivity: str = "printed",
    shown: int = 7,
    min_claims: int = 10,
    repetitions: int = 20,
    td_kwargs: dict | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """PPTD Fig. 7: CRH's estimated vs true weights on original and perturbed data.

    "True" weights apply CRH's weight step (PPTD Eq. 3) with the ground truth in place of the
    aggregated results (Sec. 5.2). ``shown`` workers are drawn at random among those with at
    least ``min_claims`` claims; the figure shows the first of ``repetitions`` perturbations at
    privacy level ``epsilon``. Over all workers the function also measures how well estimated
    and true weights agree (Spearman ρ), whether workers who added more noise lost weight
    (Spearman ρ between δ_s² and the weight change), and the error against the ground truth of
    CRH's weighted aggregation and of the naive mean and median ("weighted aggregation can
    outperform naive aggregation solutions such as mean or median").

    Returns
    -------
    shown : pandas.DataFrame
        One row per shown worker and panel (``original``/``perturbed``): ``user`` (1 ... shown),
        ``worker_index``, ``n_claims``, ``noise_variance``, ``estimated_weight``,
        ``true_weight``.
    perturbed : pandas.DataFrame
        One row per repetition ``rep``: ``spearman_estimated_true``,
        ``spearman_noise_variance_weight_change``, ``mae_crh``, ``mae_mean``, ``mae_median``.
    original : pandas.DataFrame
        One row (the original data, nothing random): ``spearman_estimated_true``, ``mae_crh``,
        ``mae_mean``, ``mae_median``.
    """
    x = np.asarray(values, dtype=float)
    t = np.asarray(truth, dtype=float)
    n_shown = check_int_at_least("shown", shown, 1)
    min_claims = check_int_at_least("min_claims", min_claims, 1)
    r = check_int_at_least("repetitions", repetitions, 1)
    kw = dict(td_kwargs or {})
    l1 = estimate_lambda1(x, t) if lam1 is None else check_positive("lam1", lam1)
    lam2 = float(lambda2_from_epsilon(epsilon, l1, b=b, eta=eta, delta=delta,
                                             sensitivity=sensitivity))
    n_claims = (~np.isnan(x)).sum(axis=1)
    eligible = np.flatnonzero(n_claims >= min_claims)
    if eligible.size < n_shown:
        raise ParameterError(
            "min_claims", min_claims, f"min_claims={min_claims} leaves {eligible.size} workers "
            f"with that many claims, fewer than shown={n_shown}; lower min_claims or shown"
        )
    picked = np.sort(derive_rng(seed, "pptd", "fig7", "users", dataset).choice(
        eligible, size=n_shown, replace=False
    ))
    orig = crh(x, **kw)
    true_orig = crh_weights(x, t)
    pert = perturb(np.broadcast_to(x, (r,) + x.shape), lam2,
                   rng=derive_rng(seed, "pptd", "fig7", "perturb", dataset, float(epsilon)))
    res = crh(pert.claims, **kw)
    true_pert = crh_weights(pert.claims, np.broadcast_to(t, (r,) + t.shape))
    setting = {"dataset": dataset, "epsilon": float(epsilon), "lambda1": l1, "lambda2": lam2}
    rows = []
    for k, u in enumerate(picked):
        for panel, est, tru, var in (
            ("original", orig.weights[u], true_orig[u], 0.0),
            ("perturbed", res.weights[0, u], true_pert[0, u], pert.variance[0, u]),
        ):
            rows.append({**setting, "panel": panel, "user": k + 1, "worker_index": int(u),
                         "n_claims": int(n_claims[u]), "noise_variance": float(var),
                         "estimated_weight": float(est), "true_weight": float(tru)})
    perturbed = pd.DataFrame({
        **setting,
        "rep": np.arange(r),
        "spearman_estimated_true": [_spearman(res.weights[i], true_pert[i])
                                    for i in range(r)],
        "spearman_noise_variance_weight_change": [
            _spearman(pert.variance[i], res.weights[i] - orig.weights)
            for i in range(r)],
        **_aggregation_errors(pert.claims, res.truths, t),
    })
    original = pd.DataFrame([{
        **setting,
        "spearman_estimated_true": _spearman(orig.weights, true_orig),
        **{k: float(v) for k, v in _aggregation_errors(x, orig.truths, t).items()},
    }])
    return pd.DataFrame(rows), perturbed, original


#: Fewest timed calls whose median is reported as a wall-clock time (after one warm-up call).
MIN_TIMING_CALLS = 5


def runtime_study(
    *,
    seed: int,
    workers: int,
    tasks: int,
    lam1: float,
    epsilons,
    repetitions: int,
    timing_calls: int,
    b: float,
    eta: float,
    delta: float,
    sensitivity: str = "printed",
    method: str = "crh",
    td_kwargs: dict | None = None,
    truth_low: float = 0.0,
    truth_high: float = 10.0,
    timed_calls: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """PPTD Fig. 8: truth discovery on original vs perturbed data (same threshold).

    For each of ``repetitions`` synthetic datasets (same stream as Figs. 2–5) and each noise
    level, records the iterations to convergence (deterministic: the paper explains run time by
    them, "we check if the number of iterations is affected by noise level") and the wall-clock
    time of the truth-discovery call alone: the median of ``timing_calls`` calls timed with
    ``time.perf_counter`` after one warm-up call, the conditions interleaved within each
    repetition so that drifts in machine load hit all alike. Times depend on the machine and
    its load: they are plotted but never judged. With ``timed_calls=False`` (a reading's
    re-run, which judges only the iterations) each condition runs once, untimed, and the
    timings table is empty: the iterations are the same, since truth discovery is
    deterministic.

    Returns
    -------
    work : pandas.DataFrame
        One row per condition (``original`` / ``perturbed`` at each ε) and repetition:
        ``iterations``, ``noise`` (average |added noise|).
    timings : pandas.DataFrame
        The same rows with ``calls``, ``seconds`` (median), ``min_seconds``, ``max_seconds``.
    """
    r = check_int_at_least("repetitions", repetitions, 1)
    calls = check_int_at_least("timing_calls", timing_calls, MIN_TIMING_CALLS)
    s = check_int_at_least("workers", workers, 1)
    n = check_int_at_least("tasks", tasks, 1)
    l1 = check_positive("lam1", lam1)
    eps = _check_epsilons(epsilons)
    kw = dict(td_kwargs or {})
    data = generate_synthetic(
        s, n, l1, n_datasets=r, truth_low=truth_low, truth_high=truth_high,
        rng=derive_rng(seed, "pptd", "synthetic", s, n, l1),
    )
    lam2 = lambda2_from_epsilon(eps, l1, b=b, eta=eta, delta=delta, sensitivity=sensitivity)
    pert = perturb(data.claims, lam2, rng=derive_rng(seed, "pptd", "perturb", "synthetic", s, n, l1))
    noise = average_noise(pert.noise)

    def timed(claims):
        if not timed_calls:
            return None, int(truth_discovery(claims, method=method, **kw).iterations)
        times = np.empty(calls)
        for k in range(calls):
            t0 = time.perf_counter()
            res = truth_discovery(claims, method=method, **kw)
            times[k] = time.perf_counter() - t0
        return times, int(res.iterations)

    conditions = [("original", np.nan, np.nan, data.claims, np.zeros(r))]
    for i, e in enumerate(eps):
        conditions.append(("perturbed", float(e), float(lam2[i]), pert.claims[i], noise[i]))
    if timed_calls:
        timed(data.claims[0])  # warm-up: the first call pays for imports and cold caches
    setting = {"dataset": "synthetic", "method": method, "workers": s, "tasks": n,
               "lambda1": l1}
    work, timings = [], []
    for j in range(r):
        for cond, e, l2, claims, nz in conditions:
            times, iterations = timed(claims[j])
            row = {**setting, "condition": cond, "epsilon": e, "lambda2": l2, "rep": j}
            work.append({**row, "iterations": iterations, "noise": float(nz[j])})
            if times is not None:
                timings.append({**row, "calls": calls, "seconds": float(np.median(times)),
                                "min_seconds": float(times.min()),
                                "max_seconds": float(times.max())})
    return pd.DataFrame(work), pd.DataFrame(timings)


#: Per-repetition measures of the trade-off tables, summarised into each figure's CSV.
TRADEOFF_MEASURES = ("mae", "noise", "mae_over_noise", "mae_plain_mean", "iterations_original",
                     "iterations_perturbed", "mae_ge_alpha_printed", "mae_ge_alpha_exact")


def summarise_tradeoff(raw: pd.DataFrame) -> pd.DataFrame:
    """Figure table of Figs. 2–6: mean, std and R per setting, ε and measure.

    ``mae_ge_alpha_*`` is 1 in a repetition whose MAE reaches Theorem 4.3's α, so its mean is
    the share of repetitions outside the bound.
    """
    df = raw.assign(
        mae_ge_alpha_printed=(raw["mae"] >= raw["alpha_thm43_printed"]).astype(float),
        mae_ge_alpha_exact=(raw["mae"] >= raw["alpha_thm43_exact"]).astype(float),
    )
    keys = [c for c in df.columns if c not in (*TRADEOFF_MEASURES, "rep")]
    long = df.melt(id_vars=keys + ["rep"], value_vars=list(TRADEOFF_MEASURES),
                   var_name="measure")
    return summarise(long, keys + ["measure"], "value")


def summarise_runtime(work: pd.DataFrame, timings: pd.DataFrame) -> tuple[pd.DataFrame,
                                                                          pd.DataFrame]:
    """Fig. 8's tables: iterations and noise (mean, std, R per condition and ε), and the
    wall-clock medians (mean, std, R of the per-repetition medians)."""
    keys = ["dataset", "method", "workers", "tasks", "lambda1", "condition", "epsilon", "lambda2"]
    long = work.melt(id_vars=keys + ["rep"], value_vars=["iterations", "noise"],
                     var_name="measure")
    fig8 = summarise(long, keys + ["measure"], "value")
    times = summarise(timings, keys + ["calls"], "seconds")
    return fig8, times
