"""The synthetic-data generators of the three papers, in one place.

Each takes an ``rng: np.random.Generator`` keyword and is documented in its paper's module:

- :func:`ldp_sparse_answers` — LDP-sparse Sec. VI-A: workers × tasks answers with NULLs at a
  given sparsity, truth ~ N(0, 1) rounded into the domain, worker noise σ_i ∈ {1, 5}.
- :func:`pptd_sensing` — PPTD Sec. 5.1: users × objects claims with error variances
  σ_s² ~ Exp(λ1).
- :func:`priscrowd_simulated` — PrisCrowd Appendix E: a fraction p of unreliable users
  (U(0, 10)) among reliable ones (N(5, 0.5²)).
"""

from .ldp_sparse import generate_synthetic as ldp_sparse_answers
from .pptd import generate_synthetic as pptd_sensing
from .priscrowd import simulate_claims as priscrowd_simulated

__all__ = ["ldp_sparse_answers", "pptd_sensing", "priscrowd_simulated"]
