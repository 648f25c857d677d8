"""engage_core: the domain of engage. Pure Python: no web framework, no database driver.

Entities and rules, the ports (Protocols) the outside world is reached through, the services
(use cases) that call them, and in-memory fakes of every port in `engage_core.testing`.
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

__all__ = [
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
