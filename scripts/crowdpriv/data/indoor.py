"""Indoor floorplan surrogate (PrisCrowd and PPTD both use Li et al. 2014's indoor data).

No public copy exists, so this generates a **surrogate** with the structure the papers describe:
hallway segments with true lengths, and users who measure a segment as
``step length × step count`` with a per-user biased step-length calibration and user-specific
step-count noise; how many segments a user walks follows a long-tailed distribution.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import check_int_at_least, check_nonnegative, check_positive

__all__ = ["simulate_indoor"]


def simulate_indoor(
    *,
    n_tasks: int = 129,
    n_workers: int = 247,
    length_range: tuple[float, float] = (3.0, 40.0),
    step_length_mean: float = 0.7,
    step_length_sd: float = 0.08,
    calibration_bias_sd: float = 0.08,
    step_noise_range: tuple[float, float] = (0.1, 1.5),
    walks_lognormal: tuple[float, float] = (2.0, 0.9),
    min_claims_per_segment: int = 2,
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Generate the indoor floorplan surrogate.

    Model, per user u: true step length ℓ_u ~ N(step_length_mean, step_length_sd²) (floored at
    0.3 m); the phone's calibrated step length is ℓ_u·(1 + b_u), b_u ~ N(0, calibration_bias_sd²)
    (a per-user bias); the step-count noise scale is τ_u ~ U(step_noise_range). User u walks
    n_u = clip(round(LogNormal(μ, σ)), 1, n_segments) distinct segments chosen uniformly (long
    tail: most users walk a few segments, some walk many). Walking segment j of true length
    L_j ~ U(length_range) gives step count c = max(1, round(L_j/ℓ_u + N(0, τ_u²·L_j/ℓ_u)))
    and the reported distance ℓ_u·(1 + b_u)·c. Segments left with fewer than
    ``min_claims_per_segment`` claims get walks from randomly chosen further users.

    Returns
    -------
    claims, truth, users
        Claims (``object``, ``source``, ``value``), truth (``object``, ``truth``) and per-user
        parameters (``step_length``, ``calibration_bias``, ``step_noise``, ``n_walks``, and the
        realised ``error_sd`` of the user's claims), the latter for plots of true user quality.
    """
    n_segments = check_int_at_least("tasks", n_tasks, 1)
    n_users = check_int_at_least("workers", n_workers, 2)
    min_claims = check_int_at_least("min_claims_per_segment", min_claims_per_segment, 1)
    if min_claims > n_users:
        raise ValueError(f"min_claims_per_segment={min_claims} exceeds n_users={n_users}")
    lo, hi = length_range
    check_positive("length_range low", lo)
    if hi <= lo:
        raise ValueError(f"length_range must be increasing, got {length_range!r}")
    check_positive("step_length_mean", step_length_mean)
    check_nonnegative("step_length_sd", step_length_sd)
    check_nonnegative("calibration_bias_sd", calibration_bias_sd)
    n_lo, n_hi = step_noise_range
    check_nonnegative("step_noise_range low", n_lo)
    if n_hi < n_lo:
        raise ValueError(f"step_noise_range must be increasing, got {step_noise_range!r}")
    mu, sigma = walks_lognormal
    check_nonnegative("walks_lognormal sigma", sigma)

    lengths = rng.uniform(lo, hi, n_segments)
    step = np.maximum(rng.normal(step_length_mean, step_length_sd, n_users), 0.3)
    bias = rng.normal(0.0, calibration_bias_sd, n_users)
    noise = rng.uniform(n_lo, n_hi, n_users)
    n_walks = np.clip(np.rint(rng.lognormal(mu, sigma, n_users)), 1, n_segments).astype(int)

    # Distinct segments per user: rank random keys and keep each user's n_u smallest.
    keys = rng.random((n_users, n_segments))
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    walked = ranks < n_walks[:, None]
    for seg in np.flatnonzero(walked.sum(axis=0) < min_claims):
        free = np.flatnonzero(~walked[:, seg])
        need = min_claims - int(walked[:, seg].sum())
        walked[rng.choice(free, size=need, replace=False), seg] = True
    n_walks = walked.sum(axis=1)

    users_idx, seg_idx = np.nonzero(walked)
    true_steps = lengths[seg_idx] / step[users_idx]
    counts = np.rint(true_steps + rng.normal(0.0, 1.0, users_idx.size) * noise[users_idx]
                     * np.sqrt(true_steps))
    counts = np.maximum(counts, 1.0)
    value = step[users_idx] * (1.0 + bias[users_idx]) * counts

    seg_names = np.array([f"seg{j + 1:03d}" for j in range(n_segments)])
    user_names = np.array([f"u{i + 1:03d}" for i in range(n_users)])
    claims = pd.DataFrame(
        {"task": seg_names[seg_idx], "worker": user_names[users_idx], "value": value}
    ).sort_values(["task", "worker"], kind="stable", ignore_index=True)
    truth = pd.DataFrame({"task": seg_names, "truth": lengths})
    err = value - lengths[seg_idx]
    err_sd = np.sqrt(np.bincount(users_idx, err**2, n_users) / np.maximum(n_walks, 1))
    users = pd.DataFrame(
        {
            "worker": user_names,
            "step_length": step,
            "calibration_bias": bias,
            "step_noise": noise,
            "n_walks": n_walks,
            "error_sd": err_sd,
        }
    )
    return claims, truth, users
