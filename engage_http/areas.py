"""The route table: every area's operations, in routing order (one line per area).

Each area's folder (`engage_http/<area>/`) holds its route modules (an `OPERATIONS` tuple each,
declaring the plan feature and write lane of its operations, `operations.declare`) and its schemas,
and gathers its operations in its `__init__`. The Starlette routes, the OpenAPI document and the
tenant-isolation test all read this table.
"""

from __future__ import annotations

from engage_http import (
    accounts,
    agents,
    bookings,
    campaigns,
    commerce,
    completions,
    contacts,
    knowledge,
    linkedin,
    media,
    messaging,
    partners,
    support,
    team,
    voice,
    webchat,
    webhooks,
)
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (
    *contacts.OPERATIONS,  # first: Starlette tries the routes in order, and these are the busiest
    *accounts.OPERATIONS,
    *webhooks.OPERATIONS,
    *knowledge.OPERATIONS,
    *media.OPERATIONS,
    *voice.OPERATIONS,
    *commerce.OPERATIONS,
    *support.OPERATIONS,
    *team.OPERATIONS,
    *agents.OPERATIONS,
    *messaging.OPERATIONS,
    *bookings.OPERATIONS,
    *completions.OPERATIONS,
    *campaigns.OPERATIONS,
    *linkedin.OPERATIONS,
    *webchat.OPERATIONS,
)
"""The workspace API (`/api/v1/...`, the workspace key)."""

PARTNER_OPERATIONS: tuple[Operation, ...] = partners.OPERATIONS
"""The partner API (`/api/v1/partner/...`, `X-Partner-Key`): a table of its own, so that the
workspace tenant-isolation test and schemathesis run (`OPERATIONS`) stay keyed to workspaces, and
the partner's own (test_http_partner_isolation.py) to partners."""

__all__ = ["OPERATIONS", "PARTNER_OPERATIONS"]
