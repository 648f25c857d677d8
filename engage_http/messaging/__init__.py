"""Channels, messages and conversations over HTTP (`create_app` adds the sandbox's controls and the
hosted provider's callback route when in use)."""

from __future__ import annotations

from engage_http.messaging import channel_routes, conversation_routes, routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (*channel_routes.OPERATIONS, *routes.OPERATIONS, *conversation_routes.OPERATIONS)
"""In routing order."""
