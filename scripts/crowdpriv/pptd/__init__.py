"""PPTD: Li et al., "Towards Differentially Private Truth Discovery for Crowd Sensing Systems",
KDD 2018.

Truth discovery (CRH, GTM), the Gaussian perturbation of Alg. 2, the privacy level of
Theorem 4.10, the utility bound of Theorem 4.3, the synthetic data of Sec. 5.1 and the
experiments behind Figs. 2–8.
"""

from ._claims import *  # noqa: F403
from ._claims import __all__ as _claims_all
from ._experiments import *  # noqa: F403
from ._experiments import __all__ as _experiments_all
from ._laplace import *  # noqa: F403
from ._laplace import __all__ as _laplace_all
from ._plots import *  # noqa: F403
from ._plots import __all__ as _plots_all
from ._mechanism import *  # noqa: F403
from ._mechanism import __all__ as _mechanism_all
from ._readings import *  # noqa: F403
from ._readings import __all__ as _readings_all
from ._synthetic import *  # noqa: F403
from ._synthetic import __all__ as _synthetic_all
from ._theory import *  # noqa: F403
from ._theory import __all__ as _theory_all
from ._truth import *  # noqa: F403
from ._truth import __all__ as _truth_all

__all__ = [
    *_truth_all,
    *_mechanism_all,
    *_theory_all,
    *_synthetic_all,
    *_experiments_all,
    *_laplace_all,
    *_claims_all,
    *_plots_all,
    *_readings_all,
]
