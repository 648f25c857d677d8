"""Settings: one object read from `ENGAGE_*` environment variables. CLI options override them.

Every default makes `engage serve` work with nothing set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import attrs

DEFAULT_DATABASE_URL = "sqlite:///./engage.db"


@attrs.frozen
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    """`ENGAGE_DATABASE_URL`: `sqlite:///path.db` or `postgresql://user@host/db`."""

    secret_key: str | None = None
    """`ENGAGE_SECRET_KEY`: derives the keys that encrypt stored secrets. Required in production."""

    log_level: str = "info"
    """`ENGAGE_LOG_LEVEL`: `debug`, `info`, `warning` or `error`."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("ENGAGE_DATABASE_URL") or DEFAULT_DATABASE_URL,
            secret_key=env.get("ENGAGE_SECRET_KEY") or None,
            log_level=(env.get("ENGAGE_LOG_LEVEL") or "info").lower(),
        )
