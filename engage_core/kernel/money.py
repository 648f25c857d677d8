"""Money: exact `Decimal` amounts in one currency's minor unit, and ISO 4217 currency codes.

Every amount is a `decimal.Decimal` with exactly two places (the minor unit of the currencies
engage sells in), rounded half-up when a caller gives more. Arithmetic is exact: a line total is
`unit_price * quantity`, an order's subtotal the sum of its lines; no float is ever computed.

On the wire (webhook payloads, JSON responses) an amount is a JSON number. `as_number()` gives the
float that carries it: the bounds below keep every amount within 15 significant digits, so that
float prints back as exactly the same decimal text (`repr(float("12.34")) == "12.34"`). Storage
uses `NUMERIC(12, 2)` for prices and `NUMERIC(15, 2)` for line and order totals.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from engage_core.kernel.errors import ValidationFailed

CENT = Decimal("0.01")
PRICE_MAX = Decimal("999999999.99")
"""The largest unit price: `NUMERIC(12, 2)`."""
TOTAL_MAX = Decimal("9999999999999.99")
"""The largest line or order total: `NUMERIC(15, 2)`, 15 significant digits, exact as a JSON number."""
DEFAULT_CURRENCY = "USD"

_CURRENCY = re.compile(r"^[A-Z]{3}$")


def quantize(amount: Decimal) -> Decimal:
    """`amount` to the minor unit (two places), rounding half up."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def as_number(amount: Decimal) -> float:
    """The JSON number of an amount (exact for every amount within the bounds above)."""
    return float(amount)


def parse_price(field: str, value: object) -> Decimal:
    """A unit price from JSON or CSV: a number or numeric text, finite, not negative, at most
    `PRICE_MAX`, quantized to two places. A float is read through its shortest text (`19.99`, not
    the binary `19.989999...`). Booleans are refused although Python counts them as integers."""
    message = f"The {field} must be a number."
    if isinstance(value, bool) or not isinstance(value, Decimal | int | float | str):
        raise ValidationFailed.on(field, message)
    try:
        amount = Decimal(
            repr(value) if isinstance(value, float) else value.strip() if isinstance(value, str) else value
        )
    except InvalidOperation as exc:
        raise ValidationFailed.on(field, message) from exc
    if not amount.is_finite():
        raise ValidationFailed.on(field, message)
    if amount < 0:
        raise ValidationFailed.on(field, f"The {field} must be at least 0.")
    # Checked before quantizing: quantizing 1e30 to cents needs more digits than the context has.
    # Anything from half a cent above the maximum rounds above it.
    if amount >= PRICE_MAX + CENT / 2:
        raise ValidationFailed.on(field, f"The {field} may not be greater than {PRICE_MAX}.")
    return quantize(amount)


def parse_currency(field: str, value: str | None) -> str:
    """An ISO 4217 alphabetic code, upper-cased (`usd` is `USD`); None or blank is `DEFAULT_CURRENCY`."""
    if value is None or not value.strip():
        return DEFAULT_CURRENCY
    code = value.strip().upper()
    if not _CURRENCY.match(code):
        raise ValidationFailed.on(field, f"The {field} must be a three-letter ISO 4217 code such as USD.")
    return code
