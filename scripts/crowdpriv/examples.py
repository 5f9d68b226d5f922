"""Worked example of adding a mechanism (README "Extending"): RR on the answered cells only.

``rr_answers_only`` perturbs each non-NULL answer by randomized response over Γ (keep with
probability e^ε/(|Γ| − 1 + e^ε), else one of the other |Γ| − 1 labels uniformly) and leaves
NULLs as they are. It is ε-LDP for the answer *values* but, unlike LDP-sparse's RR, it reveals
which tasks a worker answered — which is exactly why it is a useful contrast: the difference
between the two is the price of protecting NULLs.

Enable it with ``config/examples/add_mechanism.yaml``::

    ldp_sparse:
      mechanisms:
        extra: {RR-answers-only: "crowdpriv.examples:rr_answers_only"}
      fig2: {methods: [LP, RR, MF, RR-answers-only]}
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int_at_least, check_positive

__all__ = ["rr_answers_only"]


def rr_answers_only(answers, epsilon, *, rng: np.random.Generator, domain_size: int):
    """Randomized response over Γ on answered cells; NULL (``NaN``) stays NULL.

    Parameters
    ----------
    answers : array_like, shape (m, n)
        Labels in {0, ..., domain_size − 1}, ``NaN`` = NULL.
    epsilon : float
        ε > 0.
    rng : numpy.random.Generator
    domain_size : int
        |Γ| ≥ 2.
    """
    eps = check_positive("epsilon", epsilon)
    k = check_int_at_least("domain_size", domain_size, 2)
    a = np.asarray(answers, dtype=float)
    answered = ~np.isnan(a)
    keep = 1.0 / (1.0 + (k - 1) * np.exp(-eps))  # e^ε / (k − 1 + e^ε), overflow-free
    flip = answered & (rng.random(a.shape) >= keep)
    shift = rng.integers(1, k, size=a.shape)  # another label, uniformly
    out = a.copy()
    out[flip] = (a[flip] + shift[flip]) % k
    return out
