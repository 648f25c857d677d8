"""Small field checks and the collector that reports every failure at once."""

from __future__ import annotations

import pytest

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.validation import ErrorCollector, one_of, optional_email, optional_text, required_text


def test_required_text_trims() -> None:
    """`required_text` returns the trimmed value."""
    assert required_text("name", "  Ada  ", max_length=10) == "Ada"


@pytest.mark.parametrize("value", ["", "   ", "\t\n"])
def test_required_text_rejects_blank(value: str) -> None:
    """A blank required field fails on that field."""
    with pytest.raises(ValidationFailed) as caught:
        required_text("name", value, max_length=10)
    assert caught.value.errors == {"name": ["The name field is required."]}


def test_required_text_counts_length_after_trimming() -> None:
    """The maximum length applies to the trimmed value."""
    assert required_text("name", "  abc  ", max_length=3) == "abc"


def test_required_text_rejects_too_long() -> None:
    """A value longer than the maximum fails on that field."""
    with pytest.raises(ValidationFailed) as caught:
        required_text("name", "abcd", max_length=3)
    assert list(caught.value.errors) == ["name"]


@pytest.mark.parametrize("value", [None, "", "  "])
def test_optional_text_turns_blank_into_none(value: str | None) -> None:
    """An absent or blank optional field is None."""
    assert optional_text("company", value, max_length=5) is None


def test_optional_text_still_checks_length() -> None:
    """An optional field that is given must respect the maximum."""
    with pytest.raises(ValidationFailed):
        optional_text("company", "abcdef", max_length=5)


@pytest.mark.parametrize("value", ["ada@example.com", " a.b+c@sub.example.org "])
def test_optional_email_accepts_addresses(value: str) -> None:
    """Plausible addresses pass, trimmed."""
    assert optional_email("email", value) == value.strip()


@pytest.mark.parametrize("value", ["ada", "ada@", "@example.com", "ada@example", "a da@example.com"])
def test_optional_email_rejects_non_addresses(value: str) -> None:
    """Values that are not addresses fail on the field."""
    with pytest.raises(ValidationFailed) as caught:
        optional_email("email", value)
    assert caught.value.errors == {"email": ["The email must be a valid email address."]}


def test_optional_email_rejects_overlong_addresses() -> None:
    """An address longer than 255 characters fails."""
    with pytest.raises(ValidationFailed):
        optional_email("email", "a" * 250 + "@example.com")


def test_one_of_lists_the_choices() -> None:
    """A value outside the choices fails with a message naming them."""
    with pytest.raises(ValidationFailed) as caught:
        one_of("type", "sms", ("whatsapp", "telegram"))
    assert caught.value.errors == {"type": ["The type must be one of: whatsapp, telegram."]}


def test_error_collector_reports_every_failure() -> None:
    """The collector raises one ValidationFailed with every field that failed."""
    errors = ErrorCollector()
    errors.run(lambda: required_text("name", "", max_length=5))
    errors.run(lambda: optional_email("email", "nope"))
    with pytest.raises(ValidationFailed) as caught:
        errors.raise_if_any()
    assert set(caught.value.errors) == {"name", "email"}


def test_error_collector_returns_values_of_passing_checks() -> None:
    """A passing check's value comes back, and nothing is raised."""
    errors = ErrorCollector()
    assert errors.run(lambda: required_text("name", " x ", max_length=5)) == "x"
    errors.raise_if_any()


def test_error_collector_returns_none_for_failing_checks() -> None:
    """A failing check gives None so the caller can carry on collecting."""
    assert ErrorCollector().run(lambda: required_text("name", "", max_length=5)) is None
