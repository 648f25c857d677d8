"""The error hierarchy and the shapes adapters rely on."""

from __future__ import annotations

import pytest

from engage_core.kernel.errors import (
    Conflict,
    EngageError,
    Forbidden,
    NotFound,
    RateLimited,
    Unauthenticated,
    ValidationFailed,
)


def test_on_maps_one_field_to_one_message() -> None:
    """`ValidationFailed.on(field, message)` carries exactly `{field: [message]}`."""
    exc = ValidationFailed.on("items.0.quantity", "Too many.")
    assert exc.errors == {"items.0.quantity": ["Too many."]}


def test_on_uses_the_field_message_as_summary() -> None:
    """`ValidationFailed.on` makes the single message the summary message too."""
    exc = ValidationFailed.on("phone", "The phone is bad.")
    assert exc.message == "The phone is bad."
    assert str(exc) == "The phone is bad."


def test_validation_failed_has_a_generic_summary_by_default() -> None:
    """A ValidationFailed built from a map says `The given data was invalid.`."""
    assert ValidationFailed({"a": ["x"], "b": ["y"]}).message == "The given data was invalid."


def test_validation_failed_copies_the_errors_it_is_given() -> None:
    """Mutating the mapping passed in does not change the error afterwards."""
    source = {"name": ["required"]}
    exc = ValidationFailed(source)
    source["name"].append("changed")
    assert exc.errors == {"name": ["required"]}


def test_validation_failed_turns_message_sequences_into_lists() -> None:
    """Messages given as any sequence (e.g. a tuple) come out as a list."""
    assert ValidationFailed({"name": ("required",)}).errors == {"name": ["required"]}


def test_not_found_names_the_resource() -> None:
    """NotFound says which resource is missing."""
    exc = NotFound("Contact")
    assert exc.resource == "Contact"
    assert exc.message == "Contact not found."


def test_forbidden_has_a_default_code() -> None:
    """Forbidden without a code uses the code `forbidden`."""
    assert Forbidden("no").code == "forbidden"


def test_forbidden_keeps_its_code() -> None:
    """Forbidden keeps the machine-readable code it is given."""
    assert Forbidden("no", code="account_inactive").code == "account_inactive"


def test_unauthenticated_has_one_default_message() -> None:
    """Unauthenticated says the same thing whatever went wrong."""
    assert Unauthenticated().message == Unauthenticated().message == "Unauthenticated. Provide a valid API key."


def test_rate_limited_carries_limit_and_retry_after() -> None:
    """RateLimited exposes the limit and the seconds to wait."""
    exc = RateLimited(120, 7)
    assert (exc.limit, exc.retry_after) == (120, 7)


@pytest.mark.parametrize(
    "exc",
    [NotFound("X"), ValidationFailed({}), Conflict("c"), Forbidden("f"), Unauthenticated(), RateLimited(1, 1)],
)
def test_every_domain_error_is_an_engage_error(exc: EngageError) -> None:
    """Adapters can catch every deliberate domain error as EngageError."""
    assert isinstance(exc, EngageError)
