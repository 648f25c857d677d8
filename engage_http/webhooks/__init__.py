"""Webhook subscriptions and their delivery log over HTTP."""

from __future__ import annotations

from engage_http.operations import Operation
from engage_http.webhooks import routes

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS
"""In routing order."""
