"""How a person is named on each network, both ways.

WhatsApp names people by phone: the provider's attendee id is the number's digits followed by
`@s.whatsapp.net`. The other networks use their own opaque ids (Instagram's messaging id, a
LinkedIn member id, a Telegram user id), which we only ever learn from the provider, so they are
passed through unchanged.
"""

from __future__ import annotations

from engage_connectors.hosted_messaging.values import Provider
from engage_core.kernel.phones import to_e164

WHATSAPP_USER_SUFFIX = "@s.whatsapp.net"


def attendee_id(provider: Provider, recipient: str) -> str:
    """The provider's id for `recipient`; ValueError for an empty recipient or an invalid WhatsApp phone."""
    handle = recipient.strip()
    if not handle:
        raise ValueError("The recipient must not be empty.")
    if provider is Provider.WHATSAPP and not handle.endswith(WHATSAPP_USER_SUFFIX):
        return to_e164(handle).removeprefix("+") + WHATSAPP_USER_SUFFIX
    return handle


def phone_of(provider: Provider | str, sender_id: str) -> str | None:
    """The E.164 phone a WhatsApp attendee id stands for; None for other networks, groups, or ids
    that are not a valid number."""
    if provider != Provider.WHATSAPP or not sender_id.endswith(WHATSAPP_USER_SUFFIX):
        return None
    digits = sender_id.removesuffix(WHATSAPP_USER_SUFFIX)
    if not digits.isdigit():
        return None
    try:
        return to_e164("+" + digits)
    except ValueError:
        return None
