"""crowdpriv: numeric core for reproducing PrisCrowd, PPTD and LDP-sparse.

Plain numpy/scipy/pandas; nothing here imports Snakemake. Rules call thin adapter scripts in
``scripts/*.py`` which call into this package.
"""

__version__ = "0.1.0"
