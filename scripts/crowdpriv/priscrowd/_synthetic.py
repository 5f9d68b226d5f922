"""Simulated crowdsourced data of PrisCrowd App. E (Table 2)."""

from __future__ import annotations

import numpy as np

from .._checks import ParameterError, check_in_interval, check_int_at_least, check_positive

__all__ = ["check_simulation", "simulate_claims"]


def check_simulation(*, n_users, n_objects, p, sigma, low, high):
    """The settings :func:`simulate_claims` accepts (config ``priscrowd.table2``: workers,
    tasks, p, sigma, low, high); returns them as numbers."""
    n_users = check_int_at_least("n_users", n_users, 2)
    n_objects = check_int_at_least("n_objects", n_objects, 1)
    p = check_in_interval("p", p, 0.0, 1.0, closed_high=True)
    sigma = check_positive("sigma", sigma)
    if not high > low:
        raise ParameterError("high", high, f"high must exceed low={low!r} (unreliable users "
                             f"claim U(low, high)), got {high!r}")
    return n_users, n_objects, p, sigma


def simulate_claims(
    n_users=30, n_objects=50, p=0.1, *, mu=5.0, sigma=0.5, low=0.0, high=10.0, rng
):
    """Claims of reliable and unreliable users (PrisCrowd App. E, "Data Generation").

    ``round(n_users * p)`` users, chosen at random, are unreliable and claim ``U(low, high)``;
    the others claim ``N(mu, sigma^2)``. Every user claims every object.

    Parameters
    ----------
    n_users, n_objects : int
        Paper: 30 and 50.
    p : float
        Fraction of unreliable users, in [0, 1] (paper: 0.1 ... 0.5).
    mu, sigma, low, high : float
        Paper: N(5, 0.5) and U(0, 10).
    rng : numpy.random.Generator

    Returns
    -------
    values : ndarray (n_objects, n_users)
    unreliable : ndarray (n_users,) bool
    """
    n_users, n_objects, p, sigma = check_simulation(n_users=n_users, n_objects=n_objects, p=p,
                                                     sigma=sigma, low=low, high=high)
    n_bad = int(round(n_users * p))
    unreliable = np.zeros(n_users, dtype=bool)
    unreliable[rng.permutation(n_users)[:n_bad]] = True
    good = rng.normal(mu, sigma, size=(n_objects, n_users))
    bad = rng.uniform(low, high, size=(n_objects, n_users))
    return np.where(unreliable[None, :], bad, good), unreliable
