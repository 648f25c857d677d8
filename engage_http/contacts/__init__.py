"""Contacts, tags, lists and segments over HTTP."""

from __future__ import annotations

from engage_http.contacts import list_routes, routes, segment_routes, tag_routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (
    *routes.OPERATIONS,
    *list_routes.OPERATIONS,
    *segment_routes.OPERATIONS,
    *tag_routes.OPERATIONS,
)
"""In routing order."""
