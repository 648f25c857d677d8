"""Accounts (workspaces) and the origin whitelist."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

import attrs

from engage_core.kernel.errors import Forbidden, NotFound, ValidationFailed
from engage_core.plans.model import Plan

DEFAULT_LOCALE = "en"
SUSPENDED_CODE = "workspace_suspended"
ORIGIN_NOT_ALLOWED_CODE = "origin_not_allowed"
"""The 403 code of a request from an origin the account does not whitelist (SPEC 5 item 4)."""


@attrs.frozen
class Account:
    """A workspace. Its API key is never held here, only the digest in storage."""

    id: int
    name: str
    is_active: bool
    allowed_origins: tuple[str, ...]
    key_hint: str
    created_at: datetime
    updated_at: datetime
    locale: str = DEFAULT_LOCALE
    """A BCP 47 language tag as `parse_locale` normalises it."""


LOCALE_PATTERN = "^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$"
"""A BCP 47 language tag of the shape the workspace's locale may take: a language of 2-3 letters,
an optional 4-letter script, an optional region of 2 letters or 3 digits (no variants, extensions
or private use). Written for JSON Schema too: no `\\d`, `$` is the end of the string."""

_LOCALE = re.compile(r"([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|[0-9]{3}))?")


def parse_locale(field: str, value: str) -> str:
    """A language tag in its canonical case: `en-us` -> `en-US`, `ZH-hant-tw` -> `zh-Hant-TW`."""
    match = _LOCALE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ValidationFailed.on(field, f"The {field} must be a language tag such as en, en-US or ar-SA.")
    language, script, region = match.groups()
    parts = [language.lower()]
    if script is not None:
        parts.append(script.title())
    if region is not None:
        parts.append(region.upper())
    return "-".join(parts)


@attrs.frozen
class Admission:
    """What a workspace request needs to know before it runs, read in one go with its key
    (`AccountService.admit`): the account, whether its workspace is suspended, and the plan in force
    (None only when no plan of that slug is stored)."""

    account: Account
    suspended: bool
    plan: Plan | None
    changes_at: datetime | None = None
    """When the plan in force changes next (a scheduled change still ahead when it was read), if ever."""

    def holds_at(self, now: datetime) -> bool:
        """Whether the plan read is still the plan in force at `now`."""
        return self.changes_at is None or now < self.changes_at

    def plan_to_run_on(self) -> Plan:
        """The plan in force. Raises the 403 of a suspended workspace (`workspace_suspended`), then
        NotFound for a plan not stored: the refusals, in the order `Entitlements.plan_of` after
        `PartnerClientService.ensure_not_suspended` gives them."""
        if self.suspended:
            raise suspended_refusal()
        if self.plan is None:
            raise NotFound("Plan")
        return self.plan


_HOST = re.compile(r"[a-z0-9_.\-]+|[0-9a-f:.]+", re.ASCII)
"""A host name or address as `urlsplit` lowers it (an IPv6 literal without its brackets)."""


def normalise_origin(value: str) -> str:
    """`https://Example.com:443/path` -> `https://example.com`; `*` stays `*`. Raises ValueError."""
    value = value.strip()
    if value == "*":
        return value
    if "@" in value:  # `user@host`, `mailto:x@y`: not an origin, and guessing a host from it would be wrong
        raise ValueError(f"not an origin: {value!r}")
    parts = urlsplit(value if "://" in value else "https://" + value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an origin: {value!r}")
    host = parts.hostname
    try:
        host = host.encode("idna").decode("ascii")  # `bücher.example` as browsers send it: `xn--bcher-kva.example`
    except UnicodeError as exc:
        raise ValueError(f"not an origin: {value!r}") from exc
    if host == "null" or not _HOST.fullmatch(host):  # no spaces, wildcards or other stray characters
        raise ValueError(f"not an origin: {value!r}")
    default_port = {"http": 80, "https": 443}[parts.scheme]
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not an origin: {value!r}") from exc
    if ":" in host:
        host = f"[{host}]"  # IPv6 literals keep their brackets
    suffix = "" if port in (None, default_port) else f":{port}"
    return f"{parts.scheme}://{host}{suffix}"


def origin_allowed(allowed: tuple[str, ...], origin: str | None, referer: str | None) -> bool:
    """SPEC 5.4: an empty whitelist or `*` allows everything; otherwise every origin the request
    names (`Origin`, and `Referer` reduced to its origin) must be listed. A request naming none is
    allowed: server-to-server calls carry no origin."""
    if not allowed or "*" in allowed:
        return True
    for candidate in (origin, referer):
        if candidate is None or candidate == "":
            continue
        try:
            if normalise_origin(candidate) not in allowed:
                return False
        except ValueError:
            return False
    return True


def suspended_refusal() -> Forbidden:
    """The 403 of any API call or sign-in of a suspended client workspace (SPEC 5 item 8)."""
    return Forbidden("This workspace is suspended. Contact your provider.", code=SUSPENDED_CODE)
