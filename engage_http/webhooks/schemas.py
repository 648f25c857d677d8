"""Request and response bodies of the webhook management endpoints (SPEC 2, Webhook records; SPEC 4, 6).

A target must be an absolute `https://` URL. The published pattern is RFC 3986 itself (host a
registered name or a bracketed IPv6 address, port 0-65535, path, query and fragment of URI
characters, anything else percent-encoded), no user information; the converter enforces the same
pattern, so every URL the document calls valid passes the core's `check_target`, and every one it
refuses is a 422. Where the host points (the SSRF guard) can only be checked at run time.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.kernel.events import EVENTS_MAX
from engage_core.kernel.unset import UNSET, Unset
from engage_core.partners.partner_service import RevealedPartnerSecret
from engage_core.webhooks import model as domain
from engage_core.webhooks.service import RevealedSecret, WebhookInput, WebhookPatch, WebhookService
from engage_http.constraints import Doc, Items, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Name

# -- the https URL of RFC 3986, as an ECMA-262 and Python pattern --------------------------------------

_HEX = "[0-9A-Fa-f]"
_PCT = f"%{_HEX}{_HEX}"
_UNRESERVED = r"A-Za-z0-9._~\-"
_SUB_DELIMS = "!$&'()*+,;="
_DEC_OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = rf"{_DEC_OCTET}(\.{_DEC_OCTET}){{3}}"
_H16 = f"{_HEX}{{1,4}}"
_LS32 = f"({_H16}:{_H16}|{_IPV4})"
_IPV6 = (
    "("
    + "|".join(
        (
            f"({_H16}:){{6}}{_LS32}",
            f"::({_H16}:){{5}}{_LS32}",
            f"({_H16})?::({_H16}:){{4}}{_LS32}",
            f"(({_H16}:){{0,1}}{_H16})?::({_H16}:){{3}}{_LS32}",
            f"(({_H16}:){{0,2}}{_H16})?::({_H16}:){{2}}{_LS32}",
            f"(({_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
            f"(({_H16}:){{0,4}}{_H16})?::{_LS32}",
            f"(({_H16}:){{0,5}}{_H16})?::{_H16}",
            f"(({_H16}:){{0,6}}{_H16})?::",
        )
    )
    + ")"
)
_REG_NAME = f"([{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})+"
_PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)"
_PCHAR = f"([{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_QUERY = f"([{_UNRESERVED}{_SUB_DELIMS}:@/?]|{_PCT})*"

HTTPS_URL_PATTERN = rf"^https://(\[{_IPV6}\]|{_REG_NAME})(:{_PORT})?(/{_PCHAR}*)*(\?{_QUERY})?(#{_QUERY})?$"
"""An absolute `https://` URI (RFC 3986) with a non-empty host, a port of at most 65535 and no user information."""

TargetUrl = Annotated[
    str,
    Text(
        max_length=domain.URL_MAX,
        pattern=HTTPS_URL_PATTERN,
        format="uri",
        message="The {field} must be a valid https:// URL (percent-encode spaces and other special characters).",
    ),
    Doc(
        description="The receiver: an absolute `https://` URL (plain `http` is refused). Hosts that are or "
        "resolve to loopback, private or other internal addresses are refused.",
        example="https://example.com/hooks/engage",
    ),
]

EVENT_NAME_PATTERN = "^(" + "|".join(re.escape(name) for name in WebhookService.event_names()) + ")$"
EventName = Annotated[
    str,
    Text(pattern=EVENT_NAME_PATTERN, message="The {field} must be an event name listed by GET /webhooks/events."),
    Doc(description="An event name of `GET /webhooks/events`.", example="contact.created"),
]
EventNames = Annotated[tuple[EventName, ...], Items(max_items=EVENTS_MAX)]
DeliveryStatus = Literal["pending", "delivered", "failed"]

_EVENTS_DESCRIPTION = "Event names the subscription receives (`GET /webhooks/events`); empty means every event."


def _with_event_enum(schema: dict[str, Any]) -> dict[str, Any]:
    """Publish the event catalogue as the `enum` of `events` items as well as their pattern."""
    schema["properties"]["events"]["items"] = {
        **schema["properties"]["events"]["items"],
        "enum": WebhookService.event_names(),
    }
    return schema


@structures_into(WebhookInput)
@attrs.frozen
class WebhookCreate:
    """A new subscription. Its signing secret is generated and shown once, in the response."""

    name: Name
    url: TargetUrl
    events: EventNames = attrs.field(default=(), metadata={"description": _EVENTS_DESCRIPTION})
    is_active: bool = attrs.field(default=True, metadata={"description": "A disabled subscription queues nothing."})

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _with_event_enum(schema)


@structures_into(WebhookPatch)
@attrs.frozen
class WebhookUpdate:
    """Any subset of the create fields; fields left out keep their value. `events` replaces the list."""

    name: Name | Unset = UNSET
    url: TargetUrl | Unset = UNSET
    events: EventNames | Unset = attrs.field(default=UNSET, metadata={"description": _EVENTS_DESCRIPTION})
    is_active: bool | Unset = UNSET

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _with_event_enum(schema)


@renders(domain.Subscription)
@attrs.frozen
class Webhook:
    """A webhook subscription. Its secret is never shown again after creation or regeneration."""

    id: int
    name: str
    url: str
    events: tuple[str, ...] = attrs.field(metadata={"description": "Empty: every event."})
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, subscription: domain.Subscription) -> Webhook:
        # Kept for the partner webhook routes (engage_http.partners), which still build their bodies by hand.
        return cls(
            id=subscription.id,
            name=subscription.name,
            url=subscription.url,
            events=subscription.events,
            is_active=subscription.is_active,
            created_at=subscription.created_at,
            updated_at=subscription.updated_at,
        )


@attrs.frozen
class WebhookWithSecret(Webhook):
    """A subscription with its signing secret: only in the responses of create and regenerate-secret."""

    secret: str = attrs.field(
        metadata={"description": "The 64-character HMAC-SHA256 signing secret. Store it now: it is not shown again."}
    )

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["properties"]["secret"] = {**schema["properties"]["secret"], "minLength": 64, "maxLength": 64}
        return schema

    @classmethod
    def from_revealed(cls, revealed: RevealedSecret | RevealedPartnerSecret) -> WebhookWithSecret:
        """A workspace's or a partner's subscription, with the secret it was just given."""
        # The wire flattens the subscription and its secret into one object.
        subscription = {field.name: getattr(revealed.subscription, field.name) for field in attrs.fields(Webhook)}
        return cls(**subscription, secret=revealed.secret)


@renders(domain.Attempt)
@attrs.frozen
class Delivery:
    """One attempt of the delivery log. Attempts of one delivery share `delivery_id` (the receiver's
    deduplication key). `error`, `due_at` and `completed_at` are additions to the SPEC fields."""

    id: int
    event_type: str
    delivery_id: str
    attempt_number: int
    response_status_code: int | None
    response_body: str | None = attrs.field(metadata={"description": "The first 2048 characters of the answer."})
    status: DeliveryStatus
    created_at: datetime
    error: str | None = attrs.field(metadata={"description": "Why the attempt failed without an answer."})
    due_at: datetime = attrs.field(metadata={"description": "When the attempt is (or was) due to be sent."})
    completed_at: datetime | None


@attrs.frozen
class DeliveryFilters:
    """Query filters of `GET /webhooks/{id}/deliveries`."""

    status: DeliveryStatus | None = attrs.field(default=None, metadata={"description": "Only attempts in this state."})


__all__ = [
    "HTTPS_URL_PATTERN",
    "Delivery",
    "DeliveryFilters",
    "Webhook",
    "WebhookCreate",
    "WebhookUpdate",
    "WebhookWithSecret",
]
