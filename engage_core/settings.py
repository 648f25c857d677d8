"""Settings: one object read from `ENGAGE_*` environment variables. CLI options override them.

Every default makes `engage serve` work with nothing set.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TypeVar

import attrs

DEFAULT_DATABASE_URL = "sqlite:///./engage.db"
N = TypeVar("N", int, float)


@attrs.frozen
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    """`ENGAGE_DATABASE_URL`: `sqlite:///path.db` or `postgresql://user@host/db`."""

    secret_key: str | None = None
    """`ENGAGE_SECRET_KEY`: derives the keys that encrypt stored secrets. Required in production."""

    log_level: str = "info"
    """`ENGAGE_LOG_LEVEL`: `debug`, `info`, `warning` or `error`."""

    run_worker: bool = True
    """`ENGAGE_RUN_WORKER`: `0` stops `engage serve` from running the delivery worker in-process."""

    worker_concurrency: int = 4
    """`ENGAGE_WORKER_CONCURRENCY`: deliveries a worker sends at once."""

    webhook_allowed_hosts: str = ""
    """`ENGAGE_WEBHOOK_ALLOWED_HOSTS`: hosts or CIDRs exempt from the SSRF guard (development, tests)."""

    webhook_timeout_seconds: float = 30.0
    """`ENGAGE_WEBHOOK_TIMEOUT`: seconds a receiver has to answer (SPEC 6: 30)."""

    webhook_lease_seconds: float = 60.0
    """`ENGAGE_WEBHOOK_LEASE`: seconds a worker holds a claimed attempt; must exceed the timeout."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("ENGAGE_DATABASE_URL") or DEFAULT_DATABASE_URL,
            secret_key=env.get("ENGAGE_SECRET_KEY") or None,
            log_level=(env.get("ENGAGE_LOG_LEVEL") or "info").lower(),
            run_worker=(env.get("ENGAGE_RUN_WORKER") or "1").strip().lower() not in ("0", "false", "no", "off"),
            worker_concurrency=_number(env, "ENGAGE_WORKER_CONCURRENCY", 4, int),
            webhook_allowed_hosts=env.get("ENGAGE_WEBHOOK_ALLOWED_HOSTS") or "",
            webhook_timeout_seconds=_number(env, "ENGAGE_WEBHOOK_TIMEOUT", 30.0, float),
            webhook_lease_seconds=_number(env, "ENGAGE_WEBHOOK_LEASE", 60.0, float),
        )


def _number(env: Mapping[str, str], name: str, default: N, kind: Callable[[str], N]) -> N:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, not {raw!r}") from exc
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0")
    return value
