"""Keep impersonation tokens out of the access log.

A login link (`/impersonate/<token>`) is a credential until used or five minutes old, and uvicorn's
access log line names the request path. `install()` adds a filter to the `uvicorn.access` logger
that replaces the token with `[redacted]` in every record before any handler formats it. The
composition root installs it when the app is built, in each server process.
"""

from __future__ import annotations

import logging
import re

ACCESS_LOGGER = "uvicorn.access"
REDACTED = "[redacted]"
_TOKEN_IN_PATH = re.compile(r"/impersonate/[^/?#\s\"]+")


def redact(text: str) -> str:
    """`text` with the token of every `/impersonate/<token>` path replaced."""
    return _TOKEN_IN_PATH.sub("/impersonate/" + REDACTED, text)


class RedactImpersonationTokens(logging.Filter):
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
    if not any(isinstance(existing, RedactImpersonationTokens) for existing in logger.filters):
        logger.addFilter(RedactImpersonationTokens())
