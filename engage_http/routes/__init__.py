"""The route table of the workspace API (`/api/v1`): every operation, in routing order.

To add routes, write a module here with an `OPERATIONS` tuple of `Operation`s (handlers are plain
functions of a `Call`; request and response classes live in `engage_http.schemas`) and append it
below. The Starlette routes, the OpenAPI document and the tenant-isolation test all read this table.
"""

from __future__ import annotations

from engage_http.operations import Operation
from engage_http.routes import (
    booking_setup,
    bookings,
    channels,
    contacts,
    conversations,
    knowledge_base,
    lists,
    messages,
    orders,
    products,
    segments,
    store,
    tags,
    team,
    tickets,
    webhooks,
)

OPERATIONS: tuple[Operation, ...] = (
    *lists.OPERATIONS,
    *segments.OPERATIONS,
    *contacts.OPERATIONS,
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

__all__ = ["OPERATIONS"]
