"""crowdpriv: numeric core for reproducing PrisCrowd, PPTD and LDP-sparse.

Plain numpy/scipy/pandas; nothing here imports Snakemake. Rules call thin adapter scripts in
``scripts/*.py`` which call into this package. On your own data: ``crowdpriv.perturb``,
``crowdpriv.infer`` and ``crowdpriv.synthesize`` (:mod:`crowdpriv.api`, loaded on first use),
or the ``crowdpriv`` command.
"""

__version__ = "0.1.0"

_API = ("perturb", "infer", "synthesize", "read_answers", "write_release", "Release")


def __getattr__(name):
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'crowdpriv' has no attribute {name!r}")
