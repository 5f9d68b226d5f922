"""The noise PPTD Alg. 2 adds, as the figures measure it. The perturbation itself (each user
draws ``δ_s² ~ Exp(rate λ2)`` and adds ``N(0, δ_s²)`` to every claim, Eq. 4) is the mechanism's
own (:mod:`crowdpriv.mechanisms.pptd`) and is re-exported here.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_positive
from ..mechanisms.pptd import Perturbation, perturb

__all__ = ["Perturbation", "perturb", "average_noise", "expected_average_noise"]


def average_noise(noise) -> np.ndarray:
    """Average absolute added noise ``mean |ξ_n^s|`` over the claims made, per problem.

    This is the "average noise" of PPTD Figs. 2b–6b, on the same scale as the MAE it is
    compared with (Sec. 5.1: "the same x-axis and ... the same scale of y-axis").

    Parameters
    ----------
    noise : array_like, shape (..., S, N)
        ``NaN`` where no claim was made.

    Returns
    -------
    ndarray, shape (...)
    """
    a = np.abs(np.asarray(noise, dtype=float))
    obs = ~np.isnan(a)
    np.copyto(a, 0.0, where=~obs)  # a is a new array (np.abs): zero the missing in place
    return a.sum(axis=(-2, -1)) / obs.sum(axis=(-2, -1))


def expected_average_noise(lam2) -> np.ndarray:
    """``E|ξ|`` under Alg. 2: ``E|ξ| = sqrt(2/π) E[δ] = 1 / sqrt(2 λ2)`` (δ² ~ Exp(λ2))."""
    lam = np.asarray(lam2, dtype=float)
    for v in lam.ravel():
        check_positive("lam2", v)
    return 1.0 / np.sqrt(2.0 * lam)
