"""Money: exact two-place Decimals, currency codes, and amounts as JSON numbers."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.money import PRICE_MAX, TOTAL_MAX, as_number, parse_currency, parse_price


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("19.99", "19.99"), (19.99, "19.99"), (20, "20.00"), (Decimal("0.1"), "0.10"), (" 7.5 ", "7.50"), (0, "0.00")],
)
def test_a_price_is_a_two_place_decimal(raw: object, expected: str) -> None:
    """Numbers and numeric text become Decimals with exactly two places."""
    assert str(parse_price("price", raw)) == expected


def test_a_float_price_is_read_through_its_shortest_text() -> None:
    """0.1 + 0.2 as a float is 0.30000000000000004; the price is 0.30, not a binary fraction."""
    assert parse_price("price", 0.1 + 0.2) == Decimal("0.30")


@pytest.mark.parametrize(("raw", "expected"), [("0.005", "0.01"), ("0.015", "0.02"), ("2.344", "2.34")])
def test_extra_places_round_half_up(raw: str, expected: str) -> None:
    """More than two places are rounded half up to the minor unit."""
    assert str(parse_price("price", raw)) == expected


@pytest.mark.parametrize("raw", ["NaN", "nan", "Infinity", "-inf", float("nan"), float("inf"), "abc", "", True, None])
def test_a_price_must_be_a_finite_number(raw: object) -> None:
    """NaN, infinity, text, booleans and null are refused on the field."""
    with pytest.raises(ValidationFailed) as caught:
        parse_price("price", raw)
    assert list(caught.value.errors) == ["price"]


def test_a_price_may_not_be_negative() -> None:
    """-0.01 is refused."""
    with pytest.raises(ValidationFailed, match="at least 0"):
        parse_price("price", "-0.01")


def test_a_price_has_a_ceiling() -> None:
    """PRICE_MAX is accepted, one cent more is not."""
    assert parse_price("price", PRICE_MAX) == PRICE_MAX
    with pytest.raises(ValidationFailed):
        parse_price("price", PRICE_MAX + Decimal("0.01"))


def test_a_price_far_beyond_the_ceiling_is_a_validation_error() -> None:
    """1e30, too long to quantize to cents, is refused as too large, not an arithmetic error."""
    with pytest.raises(ValidationFailed, match="greater than"):
        parse_price("price", 1e30)


def test_a_price_that_rounds_down_to_the_ceiling_is_accepted() -> None:
    """PRICE_MAX plus 0.004 rounds to PRICE_MAX; plus 0.005 rounds above it and is refused."""
    assert parse_price("price", PRICE_MAX + Decimal("0.004")) == PRICE_MAX
    with pytest.raises(ValidationFailed):
        parse_price("price", PRICE_MAX + Decimal("0.005"))


def test_the_default_currency_is_usd() -> None:
    """A missing or blank currency is USD."""
    assert (parse_currency("currency", None), parse_currency("currency", "  ")) == ("USD", "USD")


def test_a_currency_is_upper_cased() -> None:
    """`sar` is stored as `SAR`."""
    assert parse_currency("currency", " sar ") == "SAR"


@pytest.mark.parametrize("raw", ["US", "USDX", "U5D", "€", "us d"])
def test_a_currency_is_three_letters(raw: str) -> None:
    """Anything but three letters is refused on the field."""
    with pytest.raises(ValidationFailed) as caught:
        parse_currency("currency", raw)
    assert list(caught.value.errors) == ["currency"]


@given(cents=st.integers(min_value=0, max_value=int(TOTAL_MAX * 100)))
def test_every_amount_survives_json_exactly(cents: int) -> None:
    """Any amount up to TOTAL_MAX, sent as a JSON number, reads back as the same Decimal."""
    amount = Decimal(cents) / 100
    text = json.dumps({"total": as_number(amount)})
    assert json.loads(text, parse_float=Decimal)["total"] == amount
