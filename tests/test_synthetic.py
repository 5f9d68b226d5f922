"""The three papers' synthetic generators, re-exported from crowdpriv.synthetic."""

from __future__ import annotations

import numpy as np
import pytest

from crowdpriv import synthetic
from crowdpriv.seeds import derive_rng


def test_ldp_sparse_answers_sparsity_and_determinism():
    data = synthetic.ldp_sparse_answers(400, 100, 0.9, rng=derive_rng(1, "s"))
    answered = ~np.isnan(data.answers)
    assert answered.shape == (400, 100)
    # every worker answers exactly round((1 - 0.9) * 100) = 10 tasks, so sparsity is 0.9 exactly
    assert (answered.sum(axis=1) == 10).all()
    assert answered.any(axis=1).all()  # every worker answers at least one task (Sec. III)
    again = synthetic.ldp_sparse_answers(400, 100, 0.9, rng=derive_rng(1, "s"))
    np.testing.assert_array_equal(data.answers, again.answers)
    with pytest.raises(ValueError, match="sparsity"):
        synthetic.ldp_sparse_answers(10, 10, 1.0, rng=derive_rng(1, "s"))


def test_pptd_sensing_error_variances():
    data = synthetic.pptd_sensing(n_users=2000, n_objects=30, lam1=2.0, rng=derive_rng(2, "p"))
    assert data.claims.shape == (1, 2000, 30)
    assert np.mean(data.error_variance) == pytest.approx(1 / 2.0, rel=0.1)  # Exp(rate λ1)


def test_priscrowd_simulated_unreliable_fraction():
    claims, unreliable = synthetic.priscrowd_simulated(30, 50, 0.3, rng=derive_rng(3, "q"))
    assert claims.shape == (50, 30) and unreliable.sum() == 9
    reliable = claims[:, ~unreliable]
    assert abs(reliable.mean() - 5.0) < 0.1 and abs(reliable.std() - 0.5) < 0.05
