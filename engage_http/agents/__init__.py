"""AI agents over HTTP."""

from __future__ import annotations

from engage_http.agents import memories, routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS + memories.OPERATIONS
"""In routing order."""
