"""engage_core: the domain of engage. Pure Python: no web framework, no database driver.

A shared kernel (`engage_core.kernel`: clock, errors, events, pagination, validation, money,
phones, mail, rate limits) and one subpackage per area (`accounts`, `contacts`, `messaging`,
`bookings`, `commerce`, `knowledge`, `support`, `team`, `webhooks`, `plans`, `partners`), each
holding its entities and rules, its ports (Protocols), its services and its in-memory fakes.
`engage_core.services.Services` wires every service to a unit-of-work factory
(`engage_core.unit_of_work`); `engage_core.testing` gathers the fakes. docs/architecture.md draws
the layout and how to add an area.
"""

from engage_core.kernel.errors import (
    Conflict,
    EngageError,
    Forbidden,
    NotFound,
    RateLimited,
    Unauthenticated,
    ValidationFailed,
)
from engage_core.webhooks.signatures import InvalidSignature, verify_signature

DISTRIBUTION_NAME = "engage-platform"
"""The name on the package index (`pip install engage-platform`); the import packages and the
`engage` command keep the short name, which on the index belongs to an unrelated project."""

__all__ = [
    "DISTRIBUTION_NAME",
    "Conflict",
    "EngageError",
    "Forbidden",
    "InvalidSignature",
    "NotFound",
    "RateLimited",
    "Unauthenticated",
    "ValidationFailed",
    "verify_signature",
]
