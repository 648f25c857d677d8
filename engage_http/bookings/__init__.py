"""Bookings, their setup and availability over HTTP."""

from __future__ import annotations

from engage_http.bookings import routes, setup_routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (*setup_routes.OPERATIONS, *routes.OPERATIONS)
"""In routing order."""
