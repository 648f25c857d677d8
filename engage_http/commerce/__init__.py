"""Products, orders and the store connector's inbound route over HTTP."""

from __future__ import annotations

from engage_http.commerce import product_routes, routes, store_routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (*product_routes.OPERATIONS, *routes.OPERATIONS, *store_routes.OPERATIONS)
"""In routing order."""
