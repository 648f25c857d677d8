"""The account API: profile, subscription, the account's channels."""

from __future__ import annotations

from engage_http.accounts import routes
from engage_http.operations import Operation

OPERATIONS: tuple[Operation, ...] = routes.OPERATIONS
"""In routing order."""
