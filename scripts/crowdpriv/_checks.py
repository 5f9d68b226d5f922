"""Parameter checks shared by every mechanism and estimator.

Each check raises :class:`ParameterError` (a ``ValueError``) whose message names the parameter
and the offending value; inside a pipeline job, :func:`crowdpriv.runtime.start_job` adds the
config key path the value came from (``ldp_sparse.fig2.epsilons[3]``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "ParameterError",
    "check_positive",
    "check_nonnegative",
    "check_in_interval",
    "check_int_at_least",
    "check_greater_than",
]


class ParameterError(ValueError):
    """A parameter value a mechanism or estimator cannot use.

    ``parameter`` is the name the code uses (``epsilon``, ``min_claims``), ``value`` the
    offending value; the message says what is wrong.
    """

    def __init__(self, parameter: str, value: Any, message: str):
        super().__init__(message)
        self.parameter = parameter
        self.value = value


def _as_float(name: str, value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, value, f"{name} must be a number, got {value!r}") from None
    if math.isnan(out):
        raise ParameterError(name, value, f"{name} must be a number, got NaN")
    return out


def check_positive(name: str, value: Any) -> float:
    """Return ``value`` as float, or raise if it is not finite and > 0."""
    out = _as_float(name, value)
    if not (out > 0 and math.isfinite(out)):
        raise ParameterError(name, value, f"{name} must be a finite number > 0, got {value!r}")
    return out


def check_nonnegative(name: str, value: Any) -> float:
    """Return ``value`` as float, or raise if it is not finite and >= 0."""
    out = _as_float(name, value)
    if not (out >= 0 and math.isfinite(out)):
        raise ParameterError(name, value, f"{name} must be a finite number >= 0, got {value!r}")
    return out


def check_greater_than(name: str, value: Any, bound: float) -> float:
    """Return ``value`` as float, or raise unless ``value > bound`` (e.g. PrisCrowd's γ > 1)."""
    out = _as_float(name, value)
    if not (out > bound and math.isfinite(out)):
        raise ParameterError(name, value, f"{name} must be a finite number > {bound}, got {value!r}")
    return out


def check_in_interval(
    name: str,
    value: Any,
    low: float,
    high: float,
    *,
    closed_low: bool = True,
    closed_high: bool = False,
) -> float:
    """Return ``value`` as float, or raise unless it lies in the interval (default ``[low, high)``)."""
    out = _as_float(name, value)
    ok_low = out >= low if closed_low else out > low
    ok_high = out <= high if closed_high else out < high
    if not (ok_low and ok_high):
        interval = f"{'[' if closed_low else '('}{low}, {high}{']' if closed_high else ')'}"
        raise ParameterError(name, value, f"{name} must lie in {interval}, got {value!r}")
    return out


def check_int_at_least(name: str, value: Any, minimum: int) -> int:
    """Return ``value`` as int, or raise unless it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ParameterError(name, value, f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ParameterError(name, value, f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
