"""Phone numbers: validated and stored in E.164."""

from __future__ import annotations

import phonenumbers


def to_e164(raw: str) -> str:
    """Normalise `raw` to E.164. Raises ValueError with a readable reason when it is not a valid number.

    Numbers must carry their country code (`+966...`, or `00966...`); without one there is no
    telling which country a national number belongs to.
    """
    text = raw.strip()
    if text.startswith("00"):
        text = "+" + text[2:]
    if not text.startswith("+"):
        # Without a country code a national number could belong to any country: refuse to guess.
        raise ValueError(
            "The phone must be a valid international number in E.164 format, starting with + and the country code."
        )
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException as exc:
        raise ValueError("The phone must be a valid international number in E.164 format.") from exc
    if not phonenumbers.is_valid_number(number):
        raise ValueError("The phone must be a valid international number in E.164 format.")
    if number.extension:
        raise ValueError("The phone must be a valid international number without an extension.")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
