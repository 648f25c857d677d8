"""Keep credentials out of the access log.

uvicorn's access log line names the request path with its query string, and a client may put a
credential in either: a key sent as `?api_key=...` (refused with 401, but already logged), a key
pasted into a path, a login link (`/impersonate/<token>`, a credential until used or five minutes
old). `install()` adds a filter to the `uvicorn.access` logger that rewrites every record before any
handler formats it (`redact`):

- the token of every `/impersonate/<token>` path;
- every string shaped like an engage credential, wherever it appears: workspace and partner keys
  (`eng_` or `enp_` and at least 8 base62 characters, `engage_core.accounts.keys`) and webhook
  signing secrets (`whsec_...`);
- the value of every query parameter whose name, lower-cased, percent-decoded and with `-` read as
  `_`, is in `SENSITIVE_NAMES` or ends with one of `SENSITIVE_SUFFIXES` (`api_key`, `partner_key`,
  `access_token`, `client_secret`, `x-api-key`, ...).

Each becomes `[redacted]`; the rest of the line stays, so the request can still be told apart. The
composition root installs the filter when the app is built, in each server process.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote

ACCESS_LOGGER = "uvicorn.access"
REDACTED = "[redacted]"

SENSITIVE_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "signature",
        "sig",
        "auth",
        "authorization",
        "session",
        "credential",
        "credentials",
        "code",
    }
)
"""Query parameter names whose values never reach the log."""

SENSITIVE_SUFFIXES = ("key", "token", "secret", "password", "signature")
"""A parameter named `<anything>key` (`api_key`, `x_partner_key`), `...token`, ... is sensitive too."""

_TOKEN_IN_PATH = re.compile(r"/impersonate/[^/?#\s\"]+")
_CREDENTIAL = re.compile(r"(?<![0-9A-Za-z])(?:(?:eng|enp)_[0-9A-Za-z]{8,}|whsec_[0-9A-Za-z+/=%]{8,})")
_PARAMETER = re.compile(r"(?P<lead>[?&;])(?P<name>[^=&;#\s\"?]+)=(?P<value>[^&;#\s\"]*)")


def redact(text: str) -> str:
    """`text` with every login-link token, credential-shaped string and sensitive query value replaced."""
    text = _TOKEN_IN_PATH.sub("/impersonate/" + REDACTED, text)
    text = _CREDENTIAL.sub(REDACTED, text)
    return _PARAMETER.sub(_redact_parameter, text)


def is_sensitive(name: str) -> bool:
    """Whether a query parameter of this name carries a credential (see the module docstring)."""
    normal = unquote(name).strip().lower().replace("-", "_")
    return normal in SENSITIVE_NAMES or normal.endswith(SENSITIVE_SUFFIXES)


def _redact_parameter(match: re.Match[str]) -> str:
    if not match["value"] or not is_sensitive(match["name"]):
        return match[0]
    return f"{match['lead']}{match['name']}={REDACTED}"


class RedactCredentials(logging.Filter):
    """Rewrites a record's message and string arguments; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
        return True


def install(logger_name: str = ACCESS_LOGGER) -> None:
    """Add the filter to the logger (once, however often it is called)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(existing, RedactCredentials) for existing in logger.filters):
        logger.addFilter(RedactCredentials())
