"""Tag titles: trimmed, at most 100 characters, unique regardless of case."""

from __future__ import annotations

import pytest

from engage_core.contacts.tags import TITLE_MAX, clean_title, title_key


@pytest.mark.parametrize("variant", ["VIP", "vip", " Vip ", "vIp\t"])
def test_title_key_ignores_case_and_surrounding_space(variant: str) -> None:
    """`VIP`, `vip` and ` Vip ` share one uniqueness key."""
    assert title_key(variant) == title_key("vip")


def test_title_key_casefolds() -> None:
    """Case-folding, not just lower-casing: `STRASSE` and `straße` are one tag."""
    assert title_key("STRASSE") == title_key("straße")


def test_title_key_keeps_inner_differences() -> None:
    """Different words are different keys."""
    assert title_key("vip") != title_key("v ip")


def test_clean_title_trims() -> None:
    """A title is stored trimmed, with its case kept."""
    assert clean_title("  Big Spender ") == "Big Spender"


def test_clean_title_rejects_blank() -> None:
    """A blank title is refused."""
    with pytest.raises(ValueError, match="required"):
        clean_title("   ")


def test_clean_title_accepts_the_maximum_length() -> None:
    """A 100-character title is accepted."""
    assert clean_title("x" * TITLE_MAX) == "x" * 100


def test_clean_title_rejects_101_characters() -> None:
    """A 101-character title is refused."""
    with pytest.raises(ValueError, match="100"):
        clean_title("x" * (TITLE_MAX + 1))
