"""UNSET: "leave this field alone", distinct from an explicit None."""

from __future__ import annotations

from engage_core.kernel.unset import UNSET, pick


def test_pick_keeps_the_current_value_when_unset() -> None:
    """`pick(UNSET, current)` is `current`."""
    assert pick(UNSET, "old") == "old"


def test_pick_takes_an_explicit_none() -> None:
    """`pick(None, current)` is None: an explicit null is a value, not "unset"."""
    assert pick(None, "old") is None


def test_pick_takes_a_given_value() -> None:
    """`pick(value, current)` is `value` when a value was given."""
    assert pick("new", "old") == "new"


def test_unset_is_falsy() -> None:
    """UNSET is falsy, like a missing value."""
    assert not UNSET


def test_unset_repr_is_its_name() -> None:
    """UNSET reads as `UNSET` in reprs and test failures."""
    assert repr(UNSET) == "UNSET"
