"""Request bodies of the partner's own webhook subscriptions (SPEC 6, Partner events).

Responses reuse the workspace webhook classes (`Webhook`, `WebhookWithSecret`): a partner
subscription has the same fields, and its secret too is shown once, on creation.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import attrs

from engage_core.kernel.events import EVENTS_MAX, PARTNER_CATALOGUE
from engage_core.kernel.unset import UNSET, Unset
from engage_core.partners.partner_service import PartnerWebhookInput, PartnerWebhookPatch
from engage_http.constraints import Doc, Items, Text
from engage_http.converter import structures_into
from engage_http.fields import Name
from engage_http.webhooks.schemas import TargetUrl

PARTNER_EVENT_PATTERN = "^(" + "|".join(re.escape(name) for name in PARTNER_CATALOGUE) + ")$"
PartnerEventName = Annotated[
    str,
    Text(pattern=PARTNER_EVENT_PATTERN, message="The {field} must be a partner event name."),
    Doc(description="A `partner.client.*` event name.", example="partner.client.created"),
]


@structures_into(PartnerWebhookInput)
@attrs.frozen
class PartnerWebhookCreate:
    """A subscription to the partner's events. Its signing secret is generated and shown once."""

    name: Name
    url: TargetUrl
    events: Annotated[tuple[PartnerEventName, ...], Items(max_items=EVENTS_MAX)] = attrs.field(
        default=(), metadata={"description": "Partner event names it receives; empty means every one."}
    )
    is_active: bool = attrs.field(default=True, metadata={"description": "A disabled subscription queues nothing."})

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        items = schema["properties"]["events"]["items"]
        schema["properties"]["events"]["items"] = {**items, "enum": list(PARTNER_CATALOGUE)}
        return schema


@structures_into(PartnerWebhookPatch)
@attrs.frozen
class PartnerWebhookUpdate:
    """Any subset of the fields; fields left out keep their value."""

    name: Name | Unset = UNSET
    is_active: bool | Unset = UNSET
