"""Every error becomes one line on stderr and a non-zero exit, mapped in one place.

`EngageGroup` is the root command's class: whatever a subcommand raises reaches its `invoke`,
which turns it into a `click.ClickException` (printed as `Error: <message>`, exit status 1).
Click's own exceptions (usage errors, `--help`, aborts) pass through untouched. An error that
is not anticipated here is still reported on one line; `ENGAGE_LOG_LEVEL=debug` shows its traceback.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click
from alembic.util.exc import CommandError
from sqlalchemy import exc as sa_exc

from engage_core import DISTRIBUTION_NAME
from engage_core.kernel.errors import EngageError, NotFound, ValidationFailed

_PASSWORD_IN_URL = re.compile(r"(://[^/:@\s]*:)[^@\s]*@")
_POSTGRES_DRIVERS = frozenset({"psycopg", "psycopg2", "psycopg_binary"})


class EngageGroup(click.Group):
    """A click group that maps every exception of its subcommands to a one-line `ClickException`."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            if _debug() and describe(exc, _database_url(ctx)) is None:
                raise
            raise click.ClickException(message_for(exc, _database_url(ctx))) from exc


@contextmanager
def naming_missing(resource: str, ident: int) -> Iterator[None]:
    """Name the missing `resource` in the error: `Account 7 not found.`; other misses pass through."""
    try:
        yield
    except NotFound as exc:
        if exc.resource != resource:
            raise
        raise click.ClickException(f"{resource} {ident} not found.") from exc


def message_for(exc: Exception, database_url: str | None = None) -> str:
    """The one line shown for `exc`."""
    known = describe(exc, database_url)
    if known is not None:
        return known
    return (
        f"Unexpected error ({type(exc).__name__}): {one_line(str(exc)) or 'no details'}. "
        "Set ENGAGE_LOG_LEVEL=debug to see the traceback."
    )


def describe(exc: Exception, database_url: str | None = None) -> str | None:
    """A message for the errors we anticipate, or None."""
    where = f" at {redact(database_url)}" if database_url else ""
    which = f" {redact(database_url)}" if database_url else ""
    if isinstance(exc, ValidationFailed):
        details = [f"{field}: {msg}" for field, messages in exc.errors.items() for msg in messages]
        return one_line("; ".join(details) if details else exc.message)
    if isinstance(exc, EngageError):
        return one_line(exc.message)
    if isinstance(exc, sa_exc.NoSuchModuleError | sa_exc.ArgumentError):
        return f"Invalid database URL{which}: {_sqlalchemy_text(exc)}"
    if isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError):
        return f"Cannot use the database{where}: {_driver_text(exc)}"
    if isinstance(exc, sa_exc.DBAPIError):
        return f"Database error{where}: {_driver_text(exc)}"
    if isinstance(exc, sa_exc.SQLAlchemyError):
        return f"Database error{where}: {_sqlalchemy_text(exc)}"
    if isinstance(exc, CommandError):
        return f"Migration failed{where}: {one_line(str(exc))}"
    if isinstance(exc, ImportError):
        module = exc.name or one_line(str(exc))
        if module.split(".")[0] in _POSTGRES_DRIVERS:
            install = f"pip install '{DISTRIBUTION_NAME}[postgres]'"
            return f"The PostgreSQL driver is not installed ({module}). Install it with: {install}"
        return f"A required module is missing: {module}"
    return None


def one_line(text: str) -> str:
    """Collapse a possibly multi-line message into one line."""
    return " ".join(text.split())


def redact(url: str) -> str:
    """The URL with any password replaced by `***`, safe to print."""
    return _PASSWORD_IN_URL.sub(r"\1***@", url)


def _sqlalchemy_text(exc: sa_exc.SQLAlchemyError) -> str:
    lines = [line for line in str(exc).splitlines() if not line.startswith("(Background on this error")]
    return one_line(" ".join(lines)) or type(exc).__name__


def _driver_text(exc: sa_exc.DBAPIError) -> str:
    return one_line(str(exc.orig)) or type(exc.orig).__name__


def _database_url(ctx: click.Context) -> str | None:
    url = getattr(ctx.find_root().obj, "database_url", None)
    return url if isinstance(url, str) else None


def _debug() -> bool:
    return os.environ.get("ENGAGE_LOG_LEVEL", "").lower() == "debug"
