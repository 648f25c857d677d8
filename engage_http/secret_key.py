"""The key of secrets at rest: `ENGAGE_SECRET_KEY`, or on SQLite a development key kept beside the database.

`secret_cipher` is what every process sharing a database encrypts webhook and channel secrets
with; `copy_development_key` keeps a backup's key beside it (`engage db backup`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from pathlib import Path

from engage_connectors.secrets import FernetCipher
from engage_core.kernel.errors import EngageError
from engage_core.settings import Settings
from engage_sql import Database

logger = logging.getLogger("engage.secret_key")

KEY_FILE_SUFFIX = ".secret-key"


class SecretKeyRequired(EngageError):
    """`ENGAGE_SECRET_KEY` is unset where no development key can stand in for it."""

    def __init__(self) -> None:
        super().__init__(
            "ENGAGE_SECRET_KEY must be set when the database is PostgreSQL: it encrypts webhook secrets, "
            "and every process sharing the database needs the same key."
        )


def secret_cipher(settings: Settings, database: Database) -> FernetCipher:
    """The cipher of secrets at rest: `ENGAGE_SECRET_KEY`, else (SQLite only) the development key file."""
    if settings.secret_key:
        return FernetCipher(settings.secret_key)
    url = database.engine.url
    if url.get_backend_name() != "sqlite" or not url.database:
        raise SecretKeyRequired()
    path = Path(url.database + KEY_FILE_SUFFIX)
    logger.warning(
        "ENGAGE_SECRET_KEY is not set: webhook secrets are encrypted with the development key in %s. "
        "Production must set ENGAGE_SECRET_KEY.",
        path,
    )
    return FernetCipher(development_key(path))


def development_key(path: Path) -> str:
    """The key kept in `path`, generated (mode 0600) on first use. Safe against concurrent first starts:
    a reader never sees a partial key, and the first writer wins."""
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    _write_private(path, (secrets.token_urlsafe(48) + "\n").encode("ascii"), replace=False)
    return _read_key(path)


def copy_development_key(database: Database, target: Path) -> Path | None:
    """Copy the development key of `database` (SQLite) beside `target` as its key file, readable by its
    owner only; the copy's path, or None when the database has no key file."""
    source = Path(str(database.engine.url.database) + KEY_FILE_SUFFIX)
    if not source.exists():
        return None
    copy = target.with_name(target.name + KEY_FILE_SUFFIX)
    _write_private(copy, source.read_bytes(), replace=True)
    return copy


def _write_private(path: Path, data: bytes, *, replace: bool) -> None:
    """`data` in `path`, mode 0600, whole or not at all: written to a private temporary file beside it,
    then renamed over it (`replace`) or linked into place, where an existing file wins."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            with contextlib.suppress(FileExistsError):  # another process created it first: use theirs
                os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _read_key(path: Path) -> str:
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 16:
        raise ValueError(f"The development key file {path} is damaged; delete it or set ENGAGE_SECRET_KEY.")
    return key
