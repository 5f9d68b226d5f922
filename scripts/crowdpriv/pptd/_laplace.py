"""PPTD's Fig. 2 experiment for Alg. 2 and for its float-safe neighbour, i.i.d. Laplace per
record (:mod:`crowdpriv.mechanisms.pptd_laplace`): the same synthetic data, the same ε (λ2 from
Theorem 4.10), the same truth discovery, MAE and average noise per repetition.

Both add noise with the same per-record marginal, Laplace(1/√(2λ2)); Alg. 2 shares one variance
per user, which CRH's weights can read (a noisy user is down-weighted as a whole), the Laplace
release draws every record's noise independently.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import check_int_at_least
from ..seeds import derive_rng
from ._experiments import _check_epsilons, tradeoff_sweep
from ._mechanism import average_noise
from ._synthetic import generate_synthetic
from ._truth import truth_discovery

__all__ = ["laplace_tradeoff", "LAPLACE_TRADEOFF_COLUMNS"]

#: Columns of :func:`laplace_tradeoff`.
LAPLACE_TRADEOFF_COLUMNS = ("mechanism", "epsilon", "rep", "mae", "noise", "mae_over_noise",
                            "record_epsilon")


def laplace_tradeoff(*, seed: int, workers: int, lam1: float, tasks: int = 30, epsilons,
                     repetitions: int, b: float, eta: float, delta: float,
                     sensitivity: str = "printed", method: str = "crh",
                     td_kwargs: dict | None = None, truth_low: float = 0.0,
                     truth_high: float = 10.0) -> pd.DataFrame:
    """MAE and average noise of Alg. 2 and of ``pptd-laplace`` on PPTD's synthetic data.

    The data and Alg. 2's draws come from the streams :func:`synthetic_tradeoff` uses, so the
    ``Alg. 2`` rows are Fig. 2's numbers; the Laplace release draws from
    ``("pptd", "perturb", "pptd-laplace", S, N, λ1)``. One row per mechanism, ε and repetition:
    ``mae`` = mean_n |x*_n − x̂*_n| (PPTD Sec. 5.1), ``noise`` = mean |added noise|,
    ``record_epsilon`` = the exact ε per record at δ = 0 (Alg. 2: of a one-record user; its
    users have N records sharing one variance, for which no pure ε holds).
    """
    from .. import mechanisms

    eps = _check_epsilons(epsilons)
    r = check_int_at_least("repetitions", repetitions, 1)
    s = check_int_at_least("workers", workers, 1)
    n = check_int_at_least("tasks", tasks, 1)
    l1 = float(lam1)
    data = generate_synthetic(s, n, l1, n_datasets=r, truth_low=truth_low,
                              truth_high=truth_high,
                              rng=derive_rng(seed, "pptd", "synthetic", s, n, l1))
    kw = dict(td_kwargs or {})
    alg2 = tradeoff_sweep(data.claims, eps, lam1=l1, b=b, eta=eta, delta=delta,
                          sensitivity=sensitivity, method=method, td_kwargs=kw,
                          rng=derive_rng(seed, "pptd", "perturb", "synthetic", s, n, l1))
    mech = mechanisms.get("pptd-laplace")
    settings = mech.settings(lambda1=l1, b=b, eta=eta, delta=delta, sensitivity=sensitivity)
    rng = derive_rng(seed, "pptd", "perturb", "pptd-laplace", s, n, l1)
    x = np.asarray(data.claims, dtype=float)
    released = np.stack([mech.release(x, e, settings, rng=rng) for e in eps])  # (E, R, S, N)
    orig = truth_discovery(x, method=method, **kw)
    res = truth_discovery(released, method=method, **kw)
    mae = np.nanmean(np.abs(res.truths - orig.truths[None]), axis=-1)  # (E, R)
    noise = average_noise(released - x[None])
    laplace = pd.DataFrame({
        "mechanism": mech.label, "epsilon": np.repeat(eps, r), "rep": np.tile(np.arange(r),
                                                                             eps.size),
        "mae": mae.ravel(), "noise": noise.ravel(), "mae_over_noise": (mae / noise).ravel(),
        "record_epsilon": np.repeat([mech.record_epsilon(settings, e) for e in eps], r)})
    first = pd.DataFrame({"mechanism": mechanisms.get("pptd").label, "epsilon": alg2["epsilon"],
                          "rep": alg2["rep"], "mae": alg2["mae"], "noise": alg2["noise"],
                          "mae_over_noise": alg2["mae_over_noise"],
                          "record_epsilon": alg2["exact_epsilon"]})
    return pd.concat([first, laplace], ignore_index=True)[list(LAPLACE_TRADEOFF_COLUMNS)]
