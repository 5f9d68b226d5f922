"""Exact tests of the mechanism family's base (scripts/crowdpriv/mechanisms/_base.py): the
channel's checks, the base class's documented defaults, the settings' error, the stacked draws."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from crowdpriv._checks import ParameterError
from crowdpriv.mechanisms import Channel, Mechanism


def test_channel_refuses_non_square_matrices_even_with_the_right_weights():
    """A channel is (G, S, S): a (1, 2, 3) stack with one weight is refused by the shape check
    (its columns do sum to 1, so only the shape check can refuse it)."""
    m = np.full((1, 2, 3), 0.5)
    with pytest.raises(ValueError, match=r"\(G, S, S\) matrices with G weights, got \(1, 2, 3\)"):
        Channel(m, np.array([1.0]), observes_null=False)
    # the same columns in a square stack are a channel
    assert Channel(np.full((1, 2, 2), 0.5), np.array([1.0]), observes_null=False).symbols == 2


def test_channel_column_and_weight_sums_tolerance():
    """Columns and weights must sum to 1 within 1e-12 absolutely (rtol=0: numpy's default
    relative 1e-5 would pass a column off by that much). 1e-13 off is accepted; 1.25e-12 off
    (between 1e-12 and 1.5e-12, so a looser bound would pass it) is not."""
    def channel_summing_to(column_total, weight_total=1.0):
        m = np.array([[[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]]])
        m[0, 0, 0] = column_total - 0.5  # exact: the total is in [1, 2), so total − 0.5 is
        assert m[0, :, 0].sum() == column_total  # a double, and the sum gives it back
        w = np.array([0.5, weight_total - 0.5])
        assert w.sum() == weight_total
        return Channel(m, w, observes_null=False)

    channel_summing_to(1.0 + 1e-13, 1.0 + 1e-13)
    for off in (1.25e-12, -1.25e-12, 1e-5):
        with pytest.raises(ValueError, match="must sum to 1"):
            channel_summing_to(1.0 + off)
        with pytest.raises(ValueError, match="must sum to 1"):
            channel_summing_to(1.0, 1.0 + off)


class _Bare(Mechanism):
    id = "bare"
    label = "Bare"


def test_a_subclass_inherits_the_documented_defaults():
    """The base class's attribute comments (_base.py, class Mechanism): a member that says
    nothing draws ε-free common draws, releases NULL cells' outputs, and releases values (not
    labels), with the ``perturb`` CLI command and no settings."""
    bare = _Bare()
    assert bare.common_draws is True
    assert bare.fills_nulls is True
    assert bare.releases_labels is False
    assert bare.float_safe is False
    assert bare.cli_command == "perturb"
    assert bare.defaults() == {}


def test_an_unknown_setting_of_a_member_without_settings_names_none():
    with pytest.raises(ParameterError, match=r"bare has no setting 'k' \(settings: none\)") as err:
        _Bare().settings(k=3)
    assert (err.value.parameter, err.value.value) == ("k", 3)


class _Stacked(Mechanism):
    """A toy member whose draws are uniform numbers, one array (``arrays`` = 1) or two."""

    id = "stacked"
    label = "Stacked"

    def __init__(self, arrays, spec=True):
        self.arrays, self.spec, self.states = arrays, spec, []

    def draw_spec(self, shape, settings, dtype):
        return tuple((shape, dtype) for _ in range(self.arrays)) if self.spec else None

    def draws(self, codes, settings, *, rng, domain_size, state=None, dtype=np.float32,
              out=None):
        self.states.append(state)
        made = tuple(rng.random(codes.shape).astype(dtype) for _ in range(self.arrays))
        if out is None:
            return made[0] if self.arrays == 1 else made
        for o, d in zip(out, made):
            o[...] = d
        return out


def _expected(codes, seeds, arrays):
    out = []
    for b, seed in enumerate(seeds):
        rng = np.random.default_rng(seed)
        out.append([rng.random(codes[b].shape).astype(np.float32) for _ in range(arrays)])
    return [np.stack([o[a] for o in out]) for a in range(arrays)]


def test_draws_stacked_one_array_is_returned_bare():
    """With a spec of one array the stacked draws are that array (repetitions first), each
    repetition's draws from its own generator; no states given: each draw gets None."""
    codes = np.zeros((2, 3, 4), dtype=np.int8)
    mech = _Stacked(1)
    got = mech.draws_stacked(codes, None, rngs=[np.random.default_rng(s) for s in (1, 2)],
                             domain_size=2)
    assert isinstance(got, np.ndarray)
    assert got.shape == (2, 3, 4) and got.dtype == np.float32
    assert_array_equal(got, _expected(codes, (1, 2), 1)[0])
    assert mech.states == [None, None]


def test_draws_stacked_two_arrays_and_no_spec():
    codes = np.zeros((3, 2, 2), dtype=np.int8)
    seeds = (5, 6, 7)
    two = _Stacked(2).draws_stacked(codes, None, rngs=[np.random.default_rng(s) for s in seeds],
                                    domain_size=2)
    assert isinstance(two, tuple) and len(two) == 2
    for got, want in zip(two, _expected(codes, seeds, 2)):
        assert_array_equal(got, want)
    # no spec: a list of each repetition's own draws, with the states given
    mech = _Stacked(1, spec=False)
    listed = mech.draws_stacked(codes, None, rngs=[np.random.default_rng(s) for s in seeds],
                                domain_size=2, states=["a", "b", "c"])
    assert isinstance(listed, list) and len(listed) == 3
    for got, want in zip(listed, _expected(codes, seeds, 1)[0]):
        assert_array_equal(got, want)
    assert mech.states == ["a", "b", "c"]
