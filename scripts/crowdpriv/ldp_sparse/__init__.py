"""LDP-sparse (Sun et al., IEEE BigData 2018): truth inference on sparse answers under LDP.

Core of the reproduction: truth inference (Alg. 1), the theorem bounds, the synthetic generator
and the experiment drivers. The LP/RR/MF/2-Layer perturbations are members of
:mod:`crowdpriv.mechanisms`. Plain numpy.
"""

from ._claims import *  # noqa: F401,F403
from ._claims import __all__ as _c
from ._bounds import *  # noqa: F401,F403
from ._bounds import __all__ as _b
from ._experiments import *  # noqa: F401,F403
from ._experiments import __all__ as _e
from ._inference import *  # noqa: F401,F403
from ._inference import __all__ as _i
from ._plots import *  # noqa: F401,F403
from ._readings import *  # noqa: F401,F403
from ._readings import __all__ as _r
from ._plots import __all__ as _p
from ._synthetic import *  # noqa: F401,F403
from ._synthetic import __all__ as _s

__all__ = [*_i, *_b, *_s, *_e, *_p, *_c, *_r]
