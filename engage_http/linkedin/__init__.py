"""LinkedIn sourcing over HTTP."""

from __future__ import annotations

from engage_http.linkedin import routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS
"""In routing order."""
