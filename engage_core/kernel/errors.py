"""Errors of the domain, mapped once per adapter (HTTP status, CLI message).

EngageError
 ├── NotFound           the resource does not exist in this account      (404)
 ├── ValidationFailed   input breaks a rule; field path -> messages       (422)
 ├── Conflict           the request collides with the current state       (409)
 ├── Forbidden          authenticated but not allowed; machine `code`     (403)
 ├── Unauthenticated    missing, malformed or unknown credentials         (401)
 ├── RateLimited        too many requests; seconds until the window opens (429)
 └── Unavailable        an outside service or the storage cannot serve now; retry (503)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class EngageError(Exception):
    """Base of every error the domain raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(EngageError):
    """The resource is absent, or belongs to another account (which is the same to the caller)."""

    def __init__(self, resource: str) -> None:
        super().__init__(f"{resource} not found.")
        self.resource = resource


class ValidationFailed(EngageError):
    """Input breaks a rule. `errors` maps a field path (`phone`, `items.0.quantity`) to messages."""

    def __init__(self, errors: Mapping[str, Sequence[str]], message: str = "The given data was invalid.") -> None:
        super().__init__(message)
        self.errors: dict[str, list[str]] = {field: list(msgs) for field, msgs in errors.items()}

    @classmethod
    def on(cls, field: str, message: str) -> ValidationFailed:
        """One message on one field; the summary message is that message."""
        return cls({field: [message]}, message)


class Conflict(EngageError):
    """The request collides with the current state (for example: already connected)."""


class Forbidden(EngageError):
    """Authenticated, but this action is not allowed. `code` is machine-readable."""

    def __init__(self, message: str, code: str = "forbidden") -> None:
        super().__init__(message)
        self.code = code


class Unauthenticated(EngageError):
    """Missing, malformed or unknown credentials. One message for all three, on purpose."""

    def __init__(self, message: str = "Unauthenticated. Provide a valid API key.") -> None:
        super().__init__(message)


class RateLimited(EngageError):
    """Too many requests in the current window."""

    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__("Too many requests. Retry later.")
        self.limit = limit
        self.retry_after = retry_after


class Unavailable(EngageError):
    """An outside service (a channel provider, ...) could not be reached or failed on its side, or
    this server cannot take the work now (busy, storage full or read-only). Nothing was changed; the
    same request may succeed later, after `retry_after` seconds when that is known."""

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FeatureUnavailable(Forbidden):
    """The workspace's plan does not include `feature` (403). `code` is `feature_not_in_plan`, or
    `linkedin_upgrade_required` for `linkedin_access` (SPEC 5 item 7)."""

    def __init__(self, feature: str, code: str = "feature_not_in_plan") -> None:
        super().__init__(f"Your plan does not include {feature}. Upgrade the plan to use it.", code=code)
        self.feature = feature


class PlanLimitReached(Forbidden):
    """The write would take the workspace past its plan's `limit` (403, code `plan_limit_reached`:
    SPEC 7 puts "not permitted by the plan" and the media file limit under 403)."""

    def __init__(self, limit: str, maximum: int) -> None:
        super().__init__(
            f"Your plan allows at most {maximum} {limit.replace('_', ' ')}. Upgrade the plan for more.",
            code="plan_limit_reached",
        )
        self.limit = limit
        self.maximum = maximum
