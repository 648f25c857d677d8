"""Voice over HTTP."""

from __future__ import annotations

from engage_http.operations import Operation
from engage_http.voice import routes

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS
"""In routing order."""
