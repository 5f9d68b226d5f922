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
from scipy.stats import spearmanr

from .._checks import check_in_interval, check_int_at_least, check_positive
from ..seeds import derive_rng
from ._mechanism import average_noise, expected_average_noise, perturb
from ._synthetic import generate_synthetic
from ._theory import epsilon_from_lambda2, lambda2_from_epsilon, utility_alpha
from ._truth import crh, crh_weights, truth_discovery

__all__ = [
    "tradeoff_sweep",
    "synthetic_tradeoff",
    "real_tradeoff",
    "estimate_lambda1",
    "weight_comparison",
    "runtime_study",
]


def _summ(values: np.ndarray) -> tuple[float, float, int]:
    v = np.asarray(values, dtype=float).ravel()
    v = v[~np.isnan(v)]
    if v.size == 0:
        return np.nan, np.nan, 0
    return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0, int(v.size)


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
    method: str = "crh",
    td_kwargs: dict | None = None,
    utility_beta: float = 0.1,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Utility–privacy trade-off (PPTD Figs. 2–6) on R original datasets.

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
        β of Theorem 4.3 for the reported α bound and the fraction of repetitions with MAE ≥ α.
    rng : numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        Long format: one row per ε and measure (``mae``, ``noise``, ``mae_over_noise``,
        ``iterations_original``, ``iterations_perturbed``, ``alpha_thm43_printed``,
        ``alpha_thm43_exact``, ``frac_mae_ge_alpha_printed``, ``frac_mae_ge_alpha_exact``)
        with ``mean``, ``std`` (over repetitions, ddof=1) and ``R``.
    """
    eps = _check_epsilons(epsilons)
    lam1 = check_positive("lam1", lam1)
    utility_beta = check_in_interval("utility_beta", utility_beta, 0, 1, closed_low=False)
    x = np.asarray(claims, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"claims must have shape (R, S, N), got {x.shape}")
    kw = dict(td_kwargs or {})
    lam2 = lambda2_from_epsilon(eps, lam1, b=b, eta=eta, delta=delta)
    orig = truth_discovery(x, method=method, **kw)
    pert = perturb(x, lam2, rng=rng)
    res = truth_discovery(pert.claims, method=method, **kw)
    mae = np.nanmean(np.abs(res.truths - orig.truths[None]), axis=-1)  # (E, R)
    noise = average_noise(pert.noise)  # (E, R)
    n_users = x.shape[1]
    rows = []
    for i, e in enumerate(eps):
        c = lam1 / lam2[i]
        base = {
            "epsilon": float(e),
            "lambda2": float(lam2[i]),
            "c": float(c),
            "expected_noise": float(expected_average_noise(lam2[i])),
        }
        measures = {
            "mae": mae[i],
            "noise": noise[i],
            "mae_over_noise": mae[i] / noise[i],
            "iterations_original": orig.iterations,
            "iterations_perturbed": res.iterations[i],
        }
        for form in ("printed", "exact"):
            alpha = float(utility_alpha(lam1, c, utility_beta, n_users, form=form))
            measures[f"alpha_thm43_{form}"] = np.full(mae.shape[1], alpha)
            measures[f"frac_mae_ge_alpha_{form}"] = np.array([np.mean(mae[i] >= alpha)])
        for name, vals in measures.items():
            m, s, r = _summ(vals)
            if name.startswith("frac_"):
                r = mae.shape[1]
            rows.append({**base, "measure": name, "mean": m, "std": s, "R": r})
    return pd.DataFrame(rows)


def synthetic_tradeoff(
    *,
    seed: int,
    n_users,
    lam1,
    n_objects: int = 30,
    epsilons,
    n_reps: int,
    b: float,
    eta: float,
    delta: float,
    method: str = "crh",
    td_kwargs: dict | None = None,
    utility_beta: float = 0.1,
    truth_low: float = 0.0,
    truth_high: float = 10.0,
) -> pd.DataFrame:
    """PPTD Figs. 2–5: :func:`tradeoff_sweep` on synthetic data for each (λ1, S) given.

    ``n_users`` and ``lam1`` may be scalars or lists (Fig. 3 varies λ1, Fig. 4 varies S); all
    combinations are run. Data for (S, N, λ1) come from stream
    ``("pptd", "synthetic", S, N, λ1)``, perturbations from ``("pptd", "perturb", ...)``.
    """
    r = check_int_at_least("n_reps", n_reps, 1)
    n = check_int_at_least("n_objects", n_objects, 1)
    frames = []
    for l1 in np.atleast_1d(np.asarray(lam1, dtype=float)):
        for s in np.atleast_1d(n_users):
            s = check_int_at_least("n_users", s, 1)
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
                method=method,
                td_kwargs=td_kwargs,
                utility_beta=utility_beta,
                rng=derive_rng(seed, "pptd", "perturb", "synthetic", s, n, l1),
            )
            df.insert(0, "n_objects", n)
            df.insert(0, "n_users", s)
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
    n_reps: int,
    b: float,
    eta: float,
    delta: float,
    method: str = "crh",
    td_kwargs: dict | None = None,
    utility_beta: float = 0.1,
) -> pd.DataFrame:
    """PPTD Fig. 6: :func:`tradeoff_sweep` on one real (or surrogate) claims matrix.

    The original data are fixed; the R repetitions are R independent perturbations.
    ``lam1=None`` estimates λ1 from the ground truth (:func:`estimate_lambda1`); it is needed
    only to turn ε into λ2.
    """
    r = check_int_at_least("n_reps", n_reps, 1)
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
        method=method,
        td_kwargs=td_kwargs,
        utility_beta=utility_beta,
        rng=derive_rng(seed, "pptd", "perturb", dataset),
    )
    df.insert(0, "n_objects", x.shape[1])
    df.insert(0, "n_users", x.shape[0])
    df.insert(0, "lambda1", l1)
    df.insert(0, "lambda1_source", "estimated" if lam1 is None else "config")
    df.insert(0, "method", method)
    df.insert(0, "dataset", dataset)
    return df


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
    n_shown: int = 7,
    min_claims: int = 10,
    n_reps: int = 20,
    td_kwargs: dict | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """PPTD Fig. 7: CRH's estimated vs true weights on original and perturbed data.

    "True" weights apply CRH's weight step (PPTD Eq. 3) with the ground truth in place of the
    aggregated results (Sec. 5.2). ``n_shown`` users are drawn at random among those with at
    least ``min_claims`` claims; the figure shows the first of ``n_reps`` perturbations at
    privacy level ``epsilon``. Over all users and all repetitions the function also measures
    how well estimated and true weights agree (Spearman ρ) and whether users who added more
    noise lost weight (Spearman ρ between δ_s² and the weight change).

    Returns
    -------
    shown : pandas.DataFrame
        One row per shown user and panel (``original``/``perturbed``): ``user``, ``source``,
        ``n_claims``, ``noise_variance``, ``estimated_weight``, ``true_weight``.
    agreement : pandas.DataFrame
        Rows ``measure`` in (``spearman_estimated_true_original``,
        ``spearman_estimated_true_perturbed``, ``spearman_noise_variance_weight_change``) with
        ``mean``, ``std``, ``R``.
    """
    x = np.asarray(values, dtype=float)
    t = np.asarray(truth, dtype=float)
    n_shown = check_int_at_least("n_shown", n_shown, 1)
    min_claims = check_int_at_least("min_claims", min_claims, 1)
    r = check_int_at_least("n_reps", n_reps, 1)
    kw = dict(td_kwargs or {})
    l1 = estimate_lambda1(x, t) if lam1 is None else check_positive("lam1", lam1)
    lam2 = float(lambda2_from_epsilon(epsilon, l1, b=b, eta=eta, delta=delta))
    n_claims = (~np.isnan(x)).sum(axis=1)
    eligible = np.flatnonzero(n_claims >= min_claims)
    if eligible.size < n_shown:
        raise ValueError(
            f"min_claims={min_claims} leaves {eligible.size} users, fewer than n_shown={n_shown}"
        )
    shown = np.sort(derive_rng(seed, "pptd", "fig7", "users", dataset).choice(
        eligible, size=n_shown, replace=False
    ))
    orig = crh(x, **kw)
    true_orig = crh_weights(x, t)
    pert = perturb(np.broadcast_to(x, (r,) + x.shape), lam2,
                   rng=derive_rng(seed, "pptd", "fig7", "perturb", dataset, float(epsilon)))
    res = crh(pert.claims, **kw)
    true_pert = crh_weights(pert.claims, np.broadcast_to(t, (r,) + t.shape))
    rows = []
    for k, u in enumerate(shown):
        for panel, est, tru, var in (
            ("original", orig.weights[u], true_orig[u], 0.0),
            ("perturbed", res.weights[0, u], true_pert[0, u], pert.variance[0, u]),
        ):
            rows.append(
                {
                    "dataset": dataset,
                    "epsilon": float(epsilon),
                    "lambda1": l1,
                    "lambda2": lam2,
                    "panel": panel,
                    "user": k + 1,
                    "source_index": int(u),
                    "n_claims": int(n_claims[u]),
                    "noise_variance": float(var),
                    "estimated_weight": float(est),
                    "true_weight": float(tru),
                }
            )
    rho_orig = spearmanr(orig.weights, true_orig).statistic
    rho_pert = np.array([spearmanr(res.weights[i], true_pert[i]).statistic for i in range(r)])
    rho_var = np.array(
        [spearmanr(pert.variance[i], res.weights[i] - orig.weights).statistic for i in range(r)]
    )
    agreement = []
    for name, vals in (
        ("spearman_estimated_true_original", np.array([rho_orig])),
        ("spearman_estimated_true_perturbed", rho_pert),
        ("spearman_noise_variance_weight_change", rho_var),
    ):
        m, s, n = _summ(vals)
        agreement.append(
            {"dataset": dataset, "epsilon": float(epsilon), "lambda1": l1, "lambda2": lam2,
             "measure": name, "mean": m, "std": s, "R": n}
        )
    return pd.DataFrame(rows), pd.DataFrame(agreement)


def runtime_study(
    *,
    seed: int,
    n_users: int,
    n_objects: int,
    lam1: float,
    epsilons,
    n_reps: int,
    n_timing: int,
    b: float,
    eta: float,
    delta: float,
    method: str = "crh",
    td_kwargs: dict | None = None,
    truth_low: float = 0.0,
    truth_high: float = 10.0,
) -> pd.DataFrame:
    """PPTD Fig. 8: truth-discovery run time on original vs perturbed data (same threshold).

    For each of ``n_reps`` synthetic datasets (same stream as Figs. 2–5) and each noise level,
    the truth-discovery call alone is timed ``n_timing`` times with ``time.perf_counter``; the
    median of those is that repetition's run time. Rows summarise, per condition, the run time,
    the iterations to convergence and the average noise over repetitions. Run times depend on
    the machine and its load and are the only non-deterministic numbers in the pipeline.
    """
    r = check_int_at_least("n_reps", n_reps, 1)
    n_timing = check_int_at_least("n_timing", n_timing, 1)
    s = check_int_at_least("n_users", n_users, 1)
    n = check_int_at_least("n_objects", n_objects, 1)
    l1 = check_positive("lam1", lam1)
    eps = _check_epsilons(epsilons)
    kw = dict(td_kwargs or {})
    data = generate_synthetic(
        s, n, l1, n_datasets=r, truth_low=truth_low, truth_high=truth_high,
        rng=derive_rng(seed, "pptd", "synthetic", s, n, l1),
    )
    lam2 = lambda2_from_epsilon(eps, l1, b=b, eta=eta, delta=delta)
    pert = perturb(data.claims, lam2, rng=derive_rng(seed, "pptd", "perturb", "synthetic", s, n, l1))
    noise = average_noise(pert.noise)

    def timed(claims):
        times = np.empty(n_timing)
        for k in range(n_timing):
            t0 = time.perf_counter()
            res = truth_discovery(claims, method=method, **kw)
            times[k] = time.perf_counter() - t0
        return float(np.median(times)), int(res.iterations)

    conditions = [("original", np.nan, np.nan, data.claims, np.zeros(r))]
    for i, e in enumerate(eps):
        conditions.append(("perturbed", float(e), float(lam2[i]), pert.claims[i], noise[i]))
    timed(data.claims[0])  # warm-up: the first call pays for imports and cold caches
    # interleave conditions within each repetition so that drifts in machine load hit all alike
    t_all = np.array([[timed(c[3][j]) for c in conditions] for j in range(r)])  # (R, C, 2)
    rows = []
    for k, (cond, e, l2, _claims, nz) in enumerate(conditions):
        t_i = t_all[:, k, :]
        for name, vals in (("runtime_s", t_i[:, 0]), ("iterations", t_i[:, 1]), ("noise", nz)):
            m, sd, nr = _summ(vals)
            rows.append({"dataset": "synthetic", "method": method, "n_users": s,
                         "n_objects": n, "lambda1": l1, "condition": cond, "epsilon": e,
                         "lambda2": l2, "measure": name, "mean": m, "std": sd, "R": nr,
                         "n_timing": n_timing})
    return pd.DataFrame(rows)
