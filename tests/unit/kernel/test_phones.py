"""Phone numbers: validated and stored in E.164."""

from __future__ import annotations

import pytest

from engage_core.kernel.phones import to_e164


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("+966501234567", "+966501234567"),
        ("+966 50 123 4567", "+966501234567"),
        ("00966501234567", "+966501234567"),
        ("  +966 50-123-4567  ", "+966501234567"),
        ("+1 (415) 555-2671", "+14155552671"),
        ("+44 7911 123456", "+447911123456"),
        ("+49 30 901820", "+4930901820"),
        ("+33 6 12 34 56 78", "+33612345678"),
        ("+7 912 345-67-89", "+79123456789"),
        ("+81 90-1234-5678", "+819012345678"),
        ("+971.50.123.4567", "+971501234567"),
    ],
)
def test_real_formats_normalise_to_e164(raw: str, expected: str) -> None:
    """Spaces, dashes, dots, brackets and a `00` international prefix all come out as E.164."""
    assert to_e164(raw) == expected


def test_e164_is_idempotent() -> None:
    """Normalising an E.164 number gives the same number."""
    assert to_e164(to_e164("+44 7911 123456")) == "+447911123456"


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "abc",
        "12345",
        "+1 415 555 267",  # one digit short
        "+966 50 123 45678901",  # too long
        "0501234567",  # national format, no country code
        "966501234567",  # digits without the leading +: which country is not certain
        "+999 123456789",  # no such country code
    ],
)
def test_invalid_numbers_are_rejected(raw: str) -> None:
    """Text that is not a valid international number raises ValueError with a readable reason."""
    with pytest.raises(ValueError, match="valid international number"):
        to_e164(raw)
