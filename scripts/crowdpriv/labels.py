"""How figures name a dataset (config ``dataset_labels``): surrogates and versions that differ
from a paper's are marked wherever the dataset appears.

:func:`crowdpriv.runtime.start_job` installs the run's config mapping, so every figure of a job
uses the same names; outside the pipeline the defaults apply.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["dataset_label", "set_dataset_labels"]

_LABELS: dict[str, str] = {}


def set_dataset_labels(labels: Mapping[str, str] | None) -> None:
    """Use ``labels`` (dataset name -> label) from now on in this process."""
    _LABELS.clear()
    _LABELS.update(dict(labels or {}))


def dataset_label(name) -> str:
    """The label of dataset ``name``: the configured one, else ``<base> (surrogate)`` for a
    ``<base>_surrogate`` name, else the name itself."""
    name = str(name)
    if name in _LABELS:
        return _LABELS[name]
    if name.endswith("_surrogate"):
        return f"{name[: -len('_surrogate')]} (surrogate)"
    return name
