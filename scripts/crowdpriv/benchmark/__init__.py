"""The inference benchmark, registered like a paper: truth inference after each mechanism on
the standard crowdsourcing benchmark datasets and LDP-sparse's (docs/inference.md)."""

from ._claims import *  # noqa: F401,F403
from ._claims import __all__ as _claims_all
from ._experiments import *  # noqa: F401,F403
from ._jobs import *  # noqa: F401,F403
from ._jobs import __all__ as _jobs_all
from ._experiments import __all__ as _experiments_all
from ._plots import *  # noqa: F401,F403
from ._plots import __all__ as _plots_all

__all__ = [*_experiments_all, *_claims_all, *_plots_all, *_jobs_all]
