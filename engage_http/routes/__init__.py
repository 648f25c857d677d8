"""The route table of the workspace API (`/api/v1`): every operation, in routing order.

To add routes, write a module here with an `OPERATIONS` tuple of `Operation`s (handlers are plain
functions of a `Call`; request and response classes live in `engage_http.schemas`) and append it
below. The Starlette routes, the OpenAPI document and the tenant-isolation test all read this table.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from engage_http.operations import Operation
from engage_http.routes import (
    account,
    booking_setup,
    bookings,
    channels,
    contacts,
    conversations,
    knowledge_base,
    lists,
    messages,
    orders,
    partner,
    partner_clients,
    partner_webhooks,
    products,
    segments,
    store,
    tags,
    team,
    tickets,
    webhooks,
)

FEATURE_AREAS: Mapping[str, str] = {
    "Webhooks": "webhooks",
    "Bookings": "booking",
    "Booking setup": "booking",
}
"""The plan feature each gated area (an operation tag) needs: a workspace whose plan lacks it gets
403 `feature_not_in_plan` on every operation of the area. The AI agent, campaign and voice-cloning
areas join here (`ai_agents`, `campaigns`, `voice_cloning_enabled`) with their routes; LinkedIn is
gated inside the channel service (`linkedin_upgrade_required`), its routes sharing paths with the
other channels'."""


WRITE_LANE_AREAS: frozenset[str] = frozenset(
    {"Contacts", "Tags", "Lists", "Segments", "Support tickets", "Bookings", "Booking setup"}
)
"""The areas whose writes may run on the write lane (`Operation.write_lane`): their services do
nothing but short database work. Not here: anything that sends (messages, channels, mail to team
members, webhooks' target checks, the store connector), hashes passwords, or imports in bulk. An
operation of another area may set `write_lane` itself (`POST /orders`)."""

READ_METHODS = frozenset({"GET", "HEAD"})


def _gated(operations: tuple[Operation, ...]) -> tuple[Operation, ...]:
    """The operations with the feature of their area (an operation's own `feature` wins), and the
    writes of the write lane's areas marked for it."""
    return tuple(
        attrs.evolve(
            op,
            feature=op.feature if op.feature is not None else FEATURE_AREAS.get(op.tag),
            write_lane=op.write_lane or (op.tag in WRITE_LANE_AREAS and op.method not in READ_METHODS),
        )
        for op in operations
    )


OPERATIONS: tuple[Operation, ...] = _gated(
    (
        *contacts.OPERATIONS,  # first: Starlette tries the routes in order, and these are the busiest
        *account.OPERATIONS,
        *lists.OPERATIONS,
        *segments.OPERATIONS,
        *tags.OPERATIONS,
        *webhooks.OPERATIONS,
        *knowledge_base.OPERATIONS,
        *products.OPERATIONS,
        *orders.OPERATIONS,
        *store.OPERATIONS,
        *tickets.OPERATIONS,
        *team.OPERATIONS,
        *channels.OPERATIONS,
        *messages.OPERATIONS,
        *conversations.OPERATIONS,
        *booking_setup.OPERATIONS,
        *bookings.OPERATIONS,
    )
)

PARTNER_OPERATIONS: tuple[Operation, ...] = (
    *partner.OPERATIONS,
    *partner_clients.OPERATIONS,
    *partner_webhooks.OPERATIONS,
)
"""The partner API (`/api/v1/partner/...`, `X-Partner-Key`): a table of its own, so that the
workspace tenant-isolation test and schemathesis run (`OPERATIONS`) stay keyed to workspaces, and
the partner's own (test_http_partner_isolation.py) to partners."""

__all__ = ["FEATURE_AREAS", "OPERATIONS", "PARTNER_OPERATIONS", "WRITE_LANE_AREAS"]
