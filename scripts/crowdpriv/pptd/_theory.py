"""PPTD's utility bound (Theorem 4.3); its privacy law (Theorem 4.10, Lemma 4.8) is the
mechanism's own (:mod:`crowdpriv.mechanisms.pptd`) and is re-exported here.

Notation: λ1 is the rate of the users' error variances ``σ_s² ~ Exp(λ1)``, λ2 the rate of the
noise variances ``δ_s² ~ Exp(λ2)``, ``c = λ1/λ2`` the noise level (``1/λ2 = c/λ1``).
"""

from __future__ import annotations

import numpy as np

from .._checks import check_in_interval, check_int_at_least, check_positive
from ..mechanisms.pptd import (
    SENSITIVITY_READINGS,
    epsilon_from_lambda2,
    exact_record_epsilon,
    gamma_s,
    lambda2_from_epsilon,
    lemma48_probability,
    lemma48_sensitivity,
)

__all__ = [
    "gamma_s",
    "SENSITIVITY_READINGS",
    "lemma48_sensitivity",
    "exact_record_epsilon",
    "lemma48_probability",
    "epsilon_from_lambda2",
    "lambda2_from_epsilon",
    "expected_y",
    "utility_alpha_lower",
    "utility_c_upper",
    "utility_alpha",
]


def _pos_array(name, value):
    arr = np.asarray(value, dtype=float)
    for v in arr.ravel():
        check_positive(name, v)
    return arr


def expected_y(lam1: float, lam2: float) -> float:
    """``E(Y)``, ``Y = sqrt(σ_s² + σ_s'² + δ_s'²)``, in closed form (PPTD proof of Thm. 4.3).

    ``X = Y² ~ Gamma(2, rate λ1) + Exp(rate λ2)`` (independent). Its Laplace transform
    ``(λ1/(λ1+t))² λ2/(λ2+t)`` splits into partial fractions, so for λ1 ≠ λ2 its density is
    ``λ1²λ2/(λ1−λ2)² (e^{−λ2 x} − e^{−λ1 x} − (λ1−λ2) x e^{−λ1 x})``; integrating ``√x``
    against it (``∫ x^{1/2} e^{−ax} = Γ(3/2) a^{−3/2}``, ``∫ x^{3/2} e^{−ax} = Γ(5/2) a^{−5/2}``)
    and writing ``s = √(λ1/λ2)`` (``s² = c``), the double root at ``s = 1`` cancels exactly::

        E(Y) = (√π / 2) (s³ + 2s² + 3s + 3/2) / ((1 + s)² √λ1)

    a sum of positive terms, with no cancellation at any c (λ1 = λ2: Gamma(3, λ1), whose
    ``E√X = 15√π / (16√λ1)``, the same value; λ2 → ∞: Gamma(2, λ1), ``3√π / (4√λ1)``). It
    agrees with quadrature of ``E√X = (1/(2√π)) ∫ (1 − E e^{−tX}) t^{−3/2} dt`` (the form
    this function evaluated before) to 1e-10 and with Monte Carlo (tests/test_pptd.py). The
    closed form printed in the proof disagrees with both, see :func:`utility_alpha_lower`.
    """
    l1 = check_positive("lam1", lam1)
    l2 = check_positive("lam2", lam2)
    s = np.sqrt(l1 / l2)
    return float(np.sqrt(np.pi) / 2.0 * (((s + 2.0) * s + 3.0) * s + 1.5)
                 / ((1.0 + s) ** 2 * np.sqrt(l1)))


def utility_alpha_lower(lam1, c, *, form: str = "printed"):
    """``α_{λ1,c}`` of PPTD Theorem 4.3: the smallest α with ``sqrt(2/π) E(Y) < α/2``.

    ``form="printed"``: the paper's expression
    ``α_{λ1,c} = 2√2 / (√λ1 (1-c)) · (3/4 - c(c + √c + 1) / (√2 (1 + √c)))`` (c ≠ 1) and
    Theorem A.1's ``15 √(2 λ1) / 8`` (c = 1), evaluated as is. ``form="exact"``:
    ``2√2/√π · E(Y)`` with :func:`expected_y` (λ2 = λ1/c); the printed E(Y) is not the mean of
    Y (e.g. λ1 = 2, c = 2: printed 2.30, exact 1.35), so the two forms differ.
    """
    l1 = _pos_array("lam1", lam1)
    cc = _pos_array("c", c)
    l1, cc = np.broadcast_arrays(l1, cc)
    if form == "exact":
        out = np.empty(l1.shape)
        for idx in np.ndindex(l1.shape):
            out[idx] = 2 * np.sqrt(2 / np.pi) * expected_y(l1[idx], l1[idx] / cc[idx])
        return out
    if form != "printed":
        raise ValueError(f"form must be 'printed' or 'exact', got {form!r}")
    one = np.isclose(cc, 1.0)
    # any value != 1; the c = 1 entries take Theorem A.1 below
    cs = np.where(one, 0.5, cc)  # pragma: no mutate (equivalent: that value is discarded)
    general = (2 * np.sqrt(2) / (np.sqrt(l1) * (1 - cs))) * (
        0.75 - cs * (cs + np.sqrt(cs) + 1) / (np.sqrt(2) * (1 + np.sqrt(cs)))
    )
    special = 15 * np.sqrt(2 * l1) / 8
    return np.where(one, special, general)


def utility_c_upper(lam1, alpha, beta, n_users):
    """``C_{λ1,α,β,S} = λ1 √π (α²βS²/(4√2) + α²√π/8 + α + 2/√π) - 2`` (PPTD Eq. 15)."""
    l1 = _pos_array("lam1", lam1)
    a = _pos_array("alpha", alpha)
    bt = np.asarray(beta, dtype=float)
    for v in bt.ravel():
        check_in_interval("beta", v, 0.0, 1.0, closed_high=True)
    s = check_int_at_least("n_users", n_users, 1)
    sp = np.sqrt(np.pi)
    return l1 * sp * (a**2 * bt * s**2 / (4 * np.sqrt(2)) + a**2 * sp / 8 + a + 2 / sp) - 2


def utility_alpha(lam1, c, beta, n_users, *, form: str = "printed"):
    """Smallest α for which PPTD Theorem 4.3 guarantees (α, β)-utility at noise level c.

    Theorem 4.3 needs ``α > α_{λ1,c}`` and ``c ≤ C_{λ1,α,β,S}``; C is increasing in α, so the
    second condition is ``α ≥`` the positive root of ``C_{λ1,α,β,S} = c`` (a quadratic in α).
    Returns ``max(α_{λ1,c}, root)``: then ``Pr{MAE ≥ α} ≤ β`` by the theorem. ``form``
    selects the printed or exact ``α_{λ1,c}`` (:func:`utility_alpha_lower`).
    """
    l1 = _pos_array("lam1", lam1)
    cc = _pos_array("c", c)
    bt = check_in_interval("beta", beta, 0.0, 1.0, closed_low=False, closed_high=True)
    s = check_int_at_least("n_users", n_users, 1)
    sp = np.sqrt(np.pi)
    qa = bt * s**2 / (4 * np.sqrt(2)) + sp / 8
    qc = 2 / sp - (cc + 2) / (l1 * sp)
    # a discriminant below 1 (qc > 0) gives a root ≤ 0, clipped to 0 below: any floor in
    # [0, 1] gives the same α
    disc = np.maximum(1 - 4 * qa * qc, 0.0)  # pragma: no mutate (equivalent, above)
    root = (-1 + np.sqrt(disc)) / (2 * qa)
    return np.maximum(utility_alpha_lower(l1, cc, form=form), np.maximum(root, 0.0))
