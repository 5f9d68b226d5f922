"""Synthetic crowd-sensing data of PPTD Sec. 5.1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import ParameterError, check_int_at_least, check_positive

__all__ = ["SyntheticData", "check_truth_range", "generate_synthetic"]


def check_truth_range(truth_low, truth_high) -> None:
    """The truths' range of :func:`generate_synthetic` (config ``pptd.synthetic.truth_range``)
    must be finite and increasing."""
    if not (np.isfinite(truth_low) and np.isfinite(truth_high) and truth_high > truth_low):
        raise ParameterError("truth_range", [truth_low, truth_high], "truth_range must be "
                             f"finite and increasing (low < high), got {[truth_low, truth_high]}")


@dataclass(frozen=True)
class SyntheticData:
    """Original (unperturbed) synthetic claims.

    Attributes
    ----------
    claims : ndarray, shape (R, S, N)
    truths : ndarray, shape (R, N)
    error_variance : ndarray, shape (R, S)
        Each user's σ_s².
    """

    claims: np.ndarray
    truths: np.ndarray
    error_variance: np.ndarray


def generate_synthetic(
    n_users: int = 150,
    n_objects: int = 30,
    lam1: float = 2.0,
    *,
    n_datasets: int = 1,
    truth_low: float = 0.0,
    truth_high: float = 10.0,
    rng: np.random.Generator,
) -> SyntheticData:
    """Generate PPTD's synthetic data (Sec. 5.1, Lemma 4.8's model).

    Truths ``x_n ~ U(truth_low, truth_high)`` (the paper does not say how truths are drawn;
    every method here is shift-equivariant, so only the spread of claims matters), error
    variances ``σ_s² ~ Exp(rate λ1)`` and claims ``x_n^s = x_n + N(0, σ_s²)``; every user claims
    every object.

    Parameters
    ----------
    n_users, n_objects : int
        S and N (paper: 150 and 30).
    lam1 : float
        Rate λ1 > 0 of the error-variance distribution (mean error variance 1/λ1).
    n_datasets : int
        Independent datasets (repetitions) along the leading axis.
    truth_low, truth_high : float
        Range of the uniform truths.
    rng : numpy.random.Generator

    Returns
    -------
    SyntheticData
    """
    s = check_int_at_least("n_users", n_users, 1)
    n = check_int_at_least("n_objects", n_objects, 1)
    r = check_int_at_least("n_datasets", n_datasets, 1)
    lam1 = check_positive("lam1", lam1)
    check_truth_range(truth_low, truth_high)
    truths = rng.uniform(truth_low, truth_high, size=(r, n))
    var = rng.exponential(1.0 / lam1, size=(r, s))
    claims = truths[:, None, :] + np.sqrt(var)[:, :, None] * rng.standard_normal((r, s, n))
    return SyntheticData(claims, truths, var)
