"""The registry of mechanisms: one id per mechanism, aliases at the edge, user registrations.

Built-in members register when :mod:`crowdpriv.mechanisms` is imported. A user's mechanism
registers from a ``"module:object"`` path (config ``ldp_sparse.mechanisms.extra``, the CLI's
``--register``) or from an installed package's entry point in the group
``crowdpriv.mechanisms``. The object is a :class:`~crowdpriv.mechanisms.Mechanism` subclass
or instance. A plain function ``f(answers, epsilon, *, rng, domain_size)`` (the form of
earlier versions) is still accepted and wrapped (:class:`FunctionMechanism`).
"""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np

from .._checks import ParameterError
from ._base import PARTS, Claimed, DataShape, Guarantee, Mechanism, Perturbed

__all__ = ["register", "get", "ids", "members", "load", "load_entry_points", "resolve",
           "FunctionMechanism", "ENTRY_POINT_GROUP", "snapshot", "restore"]

#: Entry-point group an installed package registers its mechanisms under
#: (``[project.entry-points."crowdpriv.mechanisms"] name = "module:object"``).
ENTRY_POINT_GROUP = "crowdpriv.mechanisms"

_MEMBERS: dict[str, Mechanism] = {}
_NAMES: dict[str, str] = {}  # id, label and aliases -> id
_LOADED: dict[str, str] = {}  # "module:object" -> id


def snapshot() -> tuple:
    """The registry's state (for tests that register a mechanism and must not leak it)."""
    return dict(_MEMBERS), dict(_NAMES), dict(_LOADED)


def restore(state: tuple) -> None:
    """Put back a :func:`snapshot`."""
    for table, saved in zip((_MEMBERS, _NAMES, _LOADED), state):
        table.clear()
        table.update(saved)


def _check_member(mech: Mechanism) -> None:
    if not isinstance(mech, Mechanism):
        raise TypeError(f"a mechanism must be a crowdpriv.mechanisms.Mechanism, got {mech!r}")
    if not mech.id or not isinstance(mech.id, str) or mech.id != mech.id.strip():
        raise ValueError(f"mechanism {mech!r} needs an id (a non-empty string)")
    if not mech.label:
        raise ValueError(f"mechanism {mech.id!r} needs a display label")
    unknown = set(mech.parts) - set(PARTS)
    if unknown:
        raise ValueError(f"mechanism {mech.id!r} declares unknown parts {sorted(unknown)} "
                         f"(known: {list(PARTS)})")
    if not dataclasses.is_dataclass(mech.Settings):
        raise ValueError(f"mechanism {mech.id!r}: Settings must be a dataclass")
    if mech.answer_type not in ("categorical", "continuous"):
        raise ValueError(f"mechanism {mech.id!r}: answer_type must be 'categorical' or "
                         f"'continuous', got {mech.answer_type!r}")


def register(mech, *, replace: bool = False) -> Mechanism:
    """Register a mechanism (an instance, or a subclass to instantiate) under its id, its
    label and its aliases; a name already taken by another mechanism is an error unless
    ``replace``."""
    if isinstance(mech, type) and issubclass(mech, Mechanism):
        mech = mech()
    _check_member(mech)
    names = dict.fromkeys([mech.id, mech.label, *mech.aliases])
    for name in names:
        owner = _NAMES.get(name)
        if owner is not None and owner != mech.id and not replace:
            raise ValueError(f"mechanism name {name!r} of {mech.id!r} is taken by {owner!r}")
    old = _MEMBERS.get(mech.id)
    if old is not None and type(old) is not type(mech) and not replace:
        raise ValueError(f"mechanism id {mech.id!r} is already registered ({old!r})")
    _MEMBERS[mech.id] = mech
    for name in names:
        _NAMES[name] = mech.id
    return mech


def get(name: str) -> Mechanism:
    """The mechanism of an id, label or alias; an unknown name is an error listing the ids."""
    key = _NAMES.get(str(name))
    if key is None:
        raise ParameterError("mechanism", name, f"unknown mechanism {name!r}; registered: "
                                                f"{', '.join(ids())} (register your own with "
                                                "'module:object')")
    return _MEMBERS[key]


def resolve(name: str) -> str:
    """The id of an id, label or alias."""
    return get(name).id


def members(*, part: str | None = None, paper: str | None = None,
            answer_type: str | None = None) -> list[Mechanism]:
    """Registered mechanisms, in registration order, optionally with a part, of a paper or
    taking an answer type."""
    out = list(_MEMBERS.values())
    if part is not None:
        out = [m for m in out if part in m.parts]
    if paper is not None:
        out = [m for m in out if m.paper == paper]
    if answer_type is not None:
        out = [m for m in out if m.answer_type == answer_type]
    return out


def ids(**filters) -> list[str]:
    """Ids of :func:`members` (same filters)."""
    return [m.id for m in members(**filters)]


def load(spec: str, *, name: str | None = None) -> Mechanism:
    """Import and register a mechanism from ``"module:object"``.

    The object is a :class:`Mechanism` subclass or instance, or (earlier versions' form) a
    function ``f(answers, epsilon, *, rng, domain_size)``, wrapped by
    :class:`FunctionMechanism` under ``name`` (default: the function's name). Loading the same
    path twice returns the registered mechanism.
    """
    spec = str(spec)
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ParameterError("mechanism", spec, f"a mechanism must be given as 'module:object', "
                                                f"got {spec!r}")
    if spec in _LOADED and (name is None or _NAMES.get(name) == _LOADED[spec]):
        return _MEMBERS[_LOADED[spec]]
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise ParameterError("mechanism", spec, f"cannot load mechanism {spec!r}: {err}") from err
    if isinstance(obj, Mechanism) or (isinstance(obj, type) and issubclass(obj, Mechanism)):
        mech = register(obj)
        if name is not None and name not in (mech.id, mech.label, *mech.aliases):
            raise ParameterError("mechanism", name,
                                 f"{spec!r} registers mechanism {mech.id!r}, not {name!r}: use "
                                 f"its id in the config")
    elif callable(obj):
        mech = register(FunctionMechanism(obj, name or attr, spec))
    else:
        raise ParameterError("mechanism", spec, f"mechanism {spec!r} is neither a Mechanism nor "
                                                "a function")
    _LOADED[spec] = mech.id
    return mech


def load_entry_points() -> list[Mechanism]:
    """Register every mechanism installed packages declare in :data:`ENTRY_POINT_GROUP`."""
    from importlib.metadata import entry_points

    return [load(ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP)]


@dataclasses.dataclass(frozen=True)
class _FunctionSettings:
    """A function mechanism has no settings of its own."""


class FunctionMechanism(Mechanism):
    """Earlier versions' form of a user's mechanism: a function
    ``f(answers, epsilon, *, rng, domain_size)`` on a float (workers × tasks) matrix with
    ``NaN`` = NULL, returning the perturbed matrix (``NaN`` where NULL). It draws anew at each
    ε (no ε-free draws) and declares no guarantee: the audit cannot be told what to check,
    so a ledger says nothing is claimed."""

    Settings = _FunctionSettings
    parts = frozenset({"sweep", "release"})
    common_draws = False

    def __init__(self, func, name: str, spec: str):
        self.func, self.id, self.label, self.spec = func, str(name), str(name), spec
        self.summary = f"a user's function {spec}"

    def perturb(self, codes, epsilon, settings, *, rng, domain_size, state=None,
                dtype=np.float64):
        from ._codes import codes_to_answers

        answers = codes_to_answers(codes, domain_size)
        out = np.asarray(self.func(answers, epsilon, rng=rng, domain_size=domain_size))
        if out.shape != answers.shape:
            raise ValueError(f"mechanism {self.id!r} returned shape {out.shape}, expected "
                             f"{answers.shape}")
        return Perturbed(out.astype(answers.dtype, copy=False), None)  # pragma: no mutate (equivalent: a copy or not, the values are the same; answers is this call's own array and dense() copies)

    def claimed(self, settings, epsilon, *, domain_size=None) -> Claimed:
        return Claimed(float(epsilon), 0.0, "not declared", f"a user's function {self.spec}",
                       "not declared")

    def guarantee(self, settings, shape: DataShape, epsilon, *, domain_size=None) -> Guarantee:
        return Guarantee(float("inf"), 0.0, "not declared", float("inf"), 0.0, "not declared",
                         float("inf"), False,
                         "a plain function declares no privacy law; register a Mechanism to "
                         "state one", ("nothing is claimed",))
