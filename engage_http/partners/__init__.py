"""The partner API (`/partner/...`, `X-Partner-Key`)."""

from __future__ import annotations

from engage_http.operations import Operation
from engage_http.partners import client_routes, routes, webhook_routes

OPERATIONS: tuple[Operation, ...] = (*routes.OPERATIONS, *client_routes.OPERATIONS, *webhook_routes.OPERATIONS)
"""In routing order."""
