"""OpenAI-compatible chat completions over HTTP: the models, and completions."""

from __future__ import annotations

from engage_http.completions import routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS
"""In routing order."""
