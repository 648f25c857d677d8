"""Web chat over HTTP: the workspace's routes (the operation table), the visitor's routes and the live stream."""

from __future__ import annotations

from engage_http.operations import Operation
from engage_http.webchat import routes

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS
"""In routing order."""
