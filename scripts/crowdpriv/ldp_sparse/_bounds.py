"""Expected-error bounds of LDP-sparse: Theorem 2 (LP), Theorem 3 (RR), Theorem 5 (MF).

The paper's numbering: Theorem 2 bounds LP, Theorem 3 bounds RR and Theorem 5 bounds MF (the
slides number them 1, 2 and 4). In all three, s_i is the fraction of tasks worker i answers
(Table I), i.e. one minus the sparsity used in Sec. VI.
"""

from __future__ import annotations

import numpy as np

from crowdpriv._checks import check_int_at_least, check_positive

__all__ = [
    "lp_error_bound",
    "rr_error_bound",
    "rr_error_bounds",
    "mf_error_bound",
    "paper_example_bounds",
]


def _vec(name, x, size=None):
    arr = np.atleast_1d(np.asarray(x, dtype=np.float64))
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {x!r}")
    if size is not None and arr.size == 1:
        arr = np.full(size, arr[0])
    return arr


def _answered_fraction(s):
    s = _vec("answered_fraction", s)
    if ((s < 0) | (s > 1)).any():
        raise ValueError(f"answered_fraction must lie in [0, 1], got {s!r}")
    return s


def lp_error_bound(*, quality, answered_fraction, sigma, truth, domain_size, epsilon, null_mean=None):
    """Bound on E[MAE] after LP (LDP-sparse Theorem 2).

    E[MAE(A^P)] ≤ (1/n) Σ_j Σ_i q_i e_ij with
    e_ij = (1 − s_i)(φ_j + |Γ|/ε) + s_i(σ_i √(2/π) + |Γ|/ε) and φ_j = |μ_j − E(v)|.

    Parameters
    ----------
    quality : array_like, shape (m,)
        q_i (the paper's examples use 1/m).
    answered_fraction : array_like, shape (m,) or scalar
        s_i, fraction of tasks answered by worker i.
    sigma : array_like, shape (m,) or scalar
        σ_i.
    truth : array_like, shape (n,)
        μ_j.
    domain_size : int
        |Γ|, with Γ = {0, ..., |Γ|-1}.
    epsilon : float
    null_mean : float, optional
        E(v) of the NULL replacement; default the uniform mean (min + max)/2.
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    eps = check_positive("epsilon", epsilon)
    q = _vec("quality", quality)
    s = _answered_fraction(answered_fraction)
    sig = _vec("sigma", sigma)
    mu = _vec("truth", truth)
    ev = (k - 1) / 2.0 if null_mean is None else float(null_mean)
    phi = np.abs(mu - ev)
    q, s, sig = np.broadcast_arrays(q, s, sig)
    # Σ_i q_i e_ij separates into a part proportional to (φ_j + |Γ|/ε) and a constant.
    per_task = (q * (1 - s)).sum() * (phi + k / eps) + (q * s * (sig * np.sqrt(2 / np.pi) + k / eps)).sum()
    return float(per_task.mean())


def rr_error_bound(
    *, quality, answered_fraction, sigma, truth, domain_size, epsilon, answered=None,
    weights="normalized",
):
    """Bound on E[MAE] after RR (LDP-sparse Theorem 3).

    E[MAE(A^P)] ≤ (1/n) Σ_j Σ_{i∈W̄_j} q_i e_ij / Σ_{i∈W̄_j} q_i with
    e_ij = (1 − s_i)|μ_j − Σ_y y/(e^ε+|Γ|)| + s_i Σ_{x∈Γ} N(x; μ_j, σ_i)|μ_j − Σ_y y P_xy|,
    P_xx = e^ε/(|Γ|+e^ε), P_xy = 1/(|Γ|+e^ε) otherwise (Eq. 8).

    Parameters
    ----------
    answered : array_like of bool, shape (m, n), optional
        Who answered which task (W̄_j); default every worker for every task.
    weights : {"normalized", "pdf"}
        "normalized" (default) renormalises N(x; μ_j, σ_i) over x ∈ Γ into a probability of
        picking x, which reproduces the paper's example 3.551 to 0.006; "pdf" uses the raw
        density as printed (3.437 in that example). Other parameters as in
        :func:`lp_error_bound`.
    """
    eps = check_positive("epsilon", epsilon)
    return float(rr_error_bounds(
        quality=quality, answered_fraction=answered_fraction, sigma=sigma, truth=truth,
        domain_size=domain_size, epsilons=[eps], answered=answered, weights=weights)[0])


def rr_error_bounds(
    *, quality, answered_fraction, sigma, truth, domain_size, epsilons, answered=None,
    weights="normalized",
) -> np.ndarray:
    """Theorem 3's bound (:func:`rr_error_bound`) at every ε of ``epsilons`` at once.

    Only P_xy depends on ε, so the sums over workers are done once: with
    c_x(ε) = |μ_j − Σ_y y P_xy(ε)|, the second term of Σ_i q_i e_ij is
    Σ_x c_x(ε) H_xj where H_xj = Σ_{i∈W̄_j} q_i s_i N(x; μ_j, σ_i) does not depend on ε, and the
    first is |μ_j − Σ_y y/(e^ε+|Γ|)| Σ_{i∈W̄_j} q_i (1 − s_i).
    """
    k = check_int_at_least("domain_size", domain_size, 2)
    eps = np.array([check_positive("epsilon", e) for e in np.atleast_1d(epsilons)])
    if weights not in ("normalized", "pdf"):
        raise ValueError(f"weights must be 'normalized' or 'pdf', got {weights!r}")
    q = _vec("quality", quality)
    s = _answered_fraction(answered_fraction)
    sig = _vec("sigma", sigma)
    if (sig <= 0).any():
        raise ValueError(f"sigma must be > 0, got {sig[sig <= 0][0]!r}")
    mu = _vec("truth", truth)
    q, s, sig = np.broadcast_arrays(q, s, sig)
    gamma = np.arange(k, dtype=np.float64)
    # Evaluate the x-sum once per distinct truth value (truths are few answers of Γ).
    mu_u, mu_inv = np.unique(mu, return_inverse=True)
    dens = np.exp(-0.5 * ((gamma[None, None, :] - mu_u[None, :, None]) / sig[:, None, None]) ** 2)
    dens = dens / (np.sqrt(2 * np.pi) * sig[:, None, None])
    if weights == "normalized":
        dens = dens / dens.sum(-1, keepdims=True)
    qs_dens = (q * s)[:, None, None] * dens  # (m, U, |Γ|)
    if answered is None:
        tot = np.full(mu.shape, q.sum())
        first_weight = np.full(mu.shape, (q * (1 - s)).sum())
        h = qs_dens.sum(0)[mu_inv]  # (n, |Γ|)
    else:
        answered = np.asarray(answered)
        w = np.asarray(answered, dtype=np.float64)
        if w.shape != (q.size, mu.size):
            raise ValueError(f"answered must have shape {(q.size, mu.size)}, got {w.shape}")
        tot = q @ w
        first_weight = (q * (1 - s)) @ w
        h = np.empty((mu.size, k))
        for u in range(mu_u.size):
            cols = np.flatnonzero(mu_inv == u)
            # the columns gathered from the 1-byte mask, then cast: the same float64 matrix
            # as w[:, cols] (the same product), for less memory traffic
            h[cols] = (qs_dens[:, u, :].T @ answered[:, cols].astype(np.float64)).T
    p_other = np.exp(-eps) / (1.0 + k * np.exp(-eps))  # 1/(e^ε + |Γ|), overflow-free
    p_keep = 1.0 / (1.0 + k * np.exp(-eps))  # e^ε/(e^ε + |Γ|)
    null_mean = gamma.sum() * p_other  # (E,)
    out_mean = (gamma.sum() - gamma)[None, :] * p_other[:, None] + gamma[None, :] * p_keep[:, None]
    cost = np.abs(mu_u[None, :, None] - out_mean[:, None, :])  # (E, U, |Γ|)
    second = np.einsum("enx,nx->en", cost[:, mu_inv, :], h)
    first = first_weight[None, :] * np.abs(mu[None, :] - null_mean[:, None])
    ok = tot > 0
    return ((first + second)[:, ok] / tot[ok]).mean(1)


def mf_error_bound(*, quality, n_tasks, d, domain_size, epsilon):
    """Bound on E[MAE] after MF (LDP-sparse Theorem 5): q̃ m (√(2/π) + d|Γ|/(nε)).

    q̃ = max_i q_i and m = number of workers (the length of ``quality``).
    """
    n = check_int_at_least("n_tasks", n_tasks, 1)
    d = check_int_at_least("d", d, 1)
    k = check_int_at_least("domain_size", domain_size, 2)
    eps = check_positive("epsilon", epsilon)
    q = _vec("quality", quality)
    return float(q.max() * q.size * (np.sqrt(2 / np.pi) + d * k / (n * eps)))


def paper_example_bounds(m: int = 100, n: int = 1000) -> dict[str, float]:
    """The three worked examples of Sec. IV-V: LP 14.13, RR 3.551, MF 1.8.

    LP and RR: q_i = 1/m, σ_i = 1, μ_j = 0, s_i = 0.1, |Γ| = 10, ε = 1. MF: n = 1,000,
    d = 100, |Γ| = 10, ε = 1, q_i = 1/m. The values do not depend on m.
    """
    q = np.full(m, 1.0 / m)
    mu = np.zeros(n)
    common = dict(quality=q, answered_fraction=0.1, sigma=1.0, truth=mu, domain_size=10, epsilon=1.0)
    return {
        "LP": lp_error_bound(**common),
        "RR": rr_error_bound(**common),
        "MF": mf_error_bound(quality=q, n_tasks=1000, d=100, domain_size=10, epsilon=1.0),
    }
