"""Exact tests of the registry (scripts/crowdpriv/mechanisms/_registry.py): a member's id,
names taken by another member, re-registration, the filters, loading a path twice, and what a
plain function's wrapper declares. The conftest puts the registry back after each test."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import DataShape, Mechanism
from crowdpriv.mechanisms._registry import (
    FunctionMechanism,
    get,
    ids,
    load,
    members,
    register,
)

EXAMPLE = "crowdpriv.examples:RRAnswersOnly"  # README "Extending": a Mechanism subclass
FUNCTION = "crowdpriv.examples:rr_answers_only"  # the same as a plain function


def _member(mid, label=None, aliases=()):
    return type("Member", (Mechanism,), {"id": mid, "label": label or mid.upper(),
                                          "aliases": aliases})


@pytest.mark.parametrize("mid", ["", " padded ", "trailing "])
def test_a_member_needs_a_stripped_non_empty_id(mid):
    with pytest.raises(ValueError, match=r"needs an id \(a non-empty string\)"):
        register(_member(mid, label="L"))


def test_a_name_taken_by_another_member_is_refused_unless_replace():
    register(_member("first", "First", ("shared",)))
    second = _member("second", "Second", ("shared",))
    with pytest.raises(ValueError, match="name 'shared' of 'second' is taken by 'first'"):
        register(second)
    assert get("shared").id == "first"
    register(second, replace=True)
    assert get("shared").id == "second"


def test_an_id_registered_by_another_type_is_refused_unless_replace():
    """The same id again: the same type re-registers (a reload), another type is refused."""
    a_type, b_type = _member("dup", "Dup"), _member("dup", "Dup")
    register(a_type)
    again = register(a_type)  # same type: accepted, the new instance is the member
    assert get("dup") is again
    with pytest.raises(ValueError, match="mechanism id 'dup' is already registered"):
        register(b_type)
    assert type(get("dup")) is a_type
    assert type(register(b_type, replace=True)) is b_type
    assert type(get("dup")) is b_type


def test_the_filters_of_members():
    """Basic (PrisCrowd Sec. 5) has the audit and law parts only, takes continuous claims;
    LP (LDP-sparse) is categorical with a sweep. Every filter keeps registration order."""
    everything = ids()
    law, sweep = ids(part="law"), ids(part="sweep")
    assert "basic" in law and "basic" not in sweep and "lp" in sweep
    assert all(get(i).parts >= {"law"} for i in law)
    assert [i for i in everything if "law" in get(i).parts] == law
    pris = ids(paper="priscrowd")
    assert {"basic", "basic-snapped"} <= set(pris) and "lp" not in pris
    assert [i for i in everything if get(i).paper == "priscrowd"] == pris
    cont = ids(answer_type="continuous")
    assert "basic" in cont and "lp" not in cont
    assert [m.id for m in members(answer_type="categorical")] == [
        i for i in everything if i not in cont]


@pytest.mark.parametrize("name", [None, "rr-answers-only", "RR-answers-only"])
def test_loading_a_path_twice_returns_the_registered_member(name):
    """load's docstring: the same path twice returns the registered mechanism (a class path is
    not instantiated again), with or without the name it is known by."""
    first = load(EXAMPLE, name=name)
    assert load(EXAMPLE, name=name) is first
    assert get("rr-answers-only") is first


def test_loading_a_class_under_a_name_it_does_not_have_is_an_error():
    with pytest.raises(ParameterError, match="registers mechanism 'rr-answers-only', not "
                                             "'other'") as err:
        load(EXAMPLE, name="other")
    assert (err.value.parameter, err.value.value) == ("mechanism", "other")


def test_a_function_is_wrapped_and_declares_nothing():
    """FunctionMechanism's docstring: it draws anew at each ε (no common draws), declares no
    guarantee (∞, δ 0, not float safe) and claims the ε it is given with δ 0; its settings are
    a frozen dataclass like every member's (_base.py's module docstring)."""
    mech = load(FUNCTION, name="fn")
    assert isinstance(mech, FunctionMechanism) and load(FUNCTION, name="fn") is mech
    assert mech.common_draws is False
    settings = mech.settings()
    assert dataclasses.is_dataclass(settings)
    assert type(settings).__dataclass_params__.frozen
    hash(settings)  # frozen (and eq): hashable
    claim = mech.claimed(settings, 0.5)
    assert (claim.epsilon, claim.delta, claim.unit) == (0.5, 0.0, "not declared")
    g = mech.guarantee(settings, DataShape(2, 3, 3), 0.5)
    assert math.isinf(g.record_epsilon) and math.isinf(g.worker_epsilon)
    assert math.isinf(g.ideal_record_epsilon)
    assert (g.record_delta, g.worker_delta, g.float_safe) == (0.0, 0.0, False)


def test_a_function_of_the_wrong_shape_is_an_error():
    mech = register(FunctionMechanism(lambda a, e, *, rng, domain_size: a[0], "flat", "t:flat"))
    answers = np.array([[0.0, 1.0, np.nan], [1.0, np.nan, 0.0]])
    with pytest.raises(ValueError, match=r"'flat' returned shape \(3,\), expected \(2, 3\)"):
        mech.release(answers, 1.0, mech.settings(), rng=np.random.default_rng(0), domain_size=2)
    same = register(FunctionMechanism(lambda a, e, *, rng, domain_size: a, "same", "t:same"))
    out = same.release(answers, 1.0, same.settings(), rng=np.random.default_rng(0),
                       domain_size=2)
    np.testing.assert_array_equal(out, answers)
