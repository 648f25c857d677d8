"""The knowledge base over HTTP."""

from __future__ import annotations

from engage_http.knowledge import (
    chunk_routes,
    document_routes,
    entry_routes,
    routes,
    voice_routes,
    website_routes,
)
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = (
    *chunk_routes.OPERATIONS,
    *routes.OPERATIONS,
    *document_routes.OPERATIONS,
    *voice_routes.OPERATIONS,
    *website_routes.OPERATIONS,
    *entry_routes.OPERATIONS,
)
"""In routing order."""
