"""PrisCrowd (Huai et al., IJCAI 2019): privacy-aware synthesizing for crowdsourced data.

Phase 1 learns per-object weighted KDEs from global (Eq. 1-2), local (Eq. 3-4, Hampel IRWLS)
and combined (Eq. 5-6) user weights; phase 2 releases synthetic claims that pass a randomised
privacy test (Algorithm 1, Theorem 2). Baselines Uniform and Basic; ISE/SISE in closed form.
Algorithm 1 and Basic are members of :mod:`crowdpriv.mechanisms` (``priscrowd``, ``basic``).
"""

from ._claims import *  # noqa: F401,F403
from ._claims import __all__ as _claims_all
from ._experiments import *  # noqa: F401,F403
from ._experiments import __all__ as _exp_all
from ._flat import *  # noqa: F401,F403
from ._flat import __all__ as _flat_all
from ._kde import *  # noqa: F401,F403
from ._kde import __all__ as _kde_all
from ._metrics import *  # noqa: F401,F403
from ._plots import *  # noqa: F401,F403
from ._plots import __all__ as _plots_all
from ._metrics import __all__ as _metrics_all
from ._readings import *  # noqa: F401,F403
from ._readings import __all__ as _readings_all
from ._report import *  # noqa: F401,F403
from ._report import __all__ as _report_all
from ._synthetic import *  # noqa: F401,F403
from ._synthetic import __all__ as _synthetic_all
from ._weights import *  # noqa: F401,F403
from ._weights import __all__ as _weights_all

__all__ = [*_flat_all, *_kde_all, *_weights_all, *_metrics_all, *_synthetic_all, *_exp_all,
           *_report_all, *_plots_all, *_claims_all, *_readings_all]
