"""The knowledge base over HTTP."""

from __future__ import annotations

from engage_http.knowledge import routes, website_routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (*routes.OPERATIONS, *website_routes.OPERATIONS)
"""In routing order."""
