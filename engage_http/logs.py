"""The logging of `engage serve` and `engage worker`: one setup, human-readable or JSON lines.

Every line goes through a handler built by `stream_handler`: the request id filter
(`request_id.RequestIdFilter`) and either the text format (`2026-11-26 10:00:00,123 INFO engage.http
[<request id>]: message`) or, with `ENGAGE_LOG_FORMAT=json`, one JSON object per line. uvicorn's access
log goes to stdout, everything else (engage's loggers, uvicorn's errors, libraries) to stderr, at
`ENGAGE_LOG_LEVEL`.

Plain stdlib `logging`: engage's modules and the libraries under it (uvicorn, Alembic, httpx) already
log through it, so a formatter and a filter reach every line without a second logging API.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import IO, Any

from engage_http.request_id import NONE, RequestIdFilter

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"
ACCESS_LOGGER = "uvicorn.access"
QUIET_LOGGERS = ("alembic", "httpx", "httpcore")
"""Libraries kept at WARNING: the migrations applied are echoed, and httpx would log every request's
URL, which may hold a receiver's token."""


class JsonFormatter(logging.Formatter):
    """One JSON object per record: `time` (UTC), `level`, `logger`, `message`, `request_id`; an access
    line adds `client`, `method`, `path` and `status`; an exception adds `exception` (its traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", NONE),
        }
        if record.name == ACCESS_LOGGER and isinstance(record.args, tuple) and len(record.args) == 5:
            client, method, path, _version, status = record.args  # uvicorn's access record
            entry.update(client=client, method=method, path=path, status=status)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(log_format: str) -> logging.Formatter:
    if log_format == "json":
        return JsonFormatter()
    return logging.Formatter(TEXT_FORMAT, defaults={"request_id": NONE})


def stream_handler(stream: IO[str], log_format: str = "text") -> logging.Handler:
    """A handler writing to `stream` in `log_format`, each record with its request id."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter(log_format))
    handler.addFilter(RequestIdFilter())
    return handler


def level_number(level: str) -> int:
    """`ENGAGE_LOG_LEVEL` as a number; `trace` (uvicorn's) is `debug` for everything else."""
    return logging.DEBUG if level in ("debug", "trace") else logging.getLevelName(level.upper())


def uvicorn_config(level: str, log_format: str) -> dict[str, Any]:
    """The same setup as `logging_to`, as `logging.config.dictConfig` takes it: for uvicorn to apply
    in each process it starts (`--workers` > 1)."""
    numeric = level_number(level)
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {
            "default": {"()": stream_handler, "stream": "ext://sys.stderr", "log_format": log_format},
            "access": {"()": stream_handler, "stream": "ext://sys.stdout", "log_format": log_format},
        },
        "root": {"handlers": ["default"], "level": numeric},
        "loggers": {
            "uvicorn": {"handlers": [], "propagate": True},
            ACCESS_LOGGER: {"handlers": ["access"], "propagate": False},
            **{name: {"level": max(numeric, logging.WARNING)} for name in QUIET_LOGGERS},
        },
    }


@contextlib.contextmanager
def logging_to(level: str, log_format: str) -> Iterator[None]:
    """While the block runs, log as `uvicorn_config` says; the loggers are restored afterwards."""
    root = logging.getLogger()
    access = logging.getLogger(ACCESS_LOGGER)
    quiet = [logging.getLogger(name) for name in QUIET_LOGGERS]
    saved = [(logger, logger.level, logger.handlers[:], logger.propagate) for logger in (root, access, *quiet)]
    numeric = level_number(level)
    root.addHandler(stream_handler(sys.stderr, log_format))
    root.setLevel(numeric)
    access.handlers = [stream_handler(sys.stdout, log_format)]
    access.propagate = False
    for logger in quiet:
        logger.setLevel(max(numeric, logging.WARNING))
    try:
        yield
    finally:
        for logger, logger_level, handlers, propagate in saved:
            logger.setLevel(logger_level)
            logger.handlers = handlers
            logger.propagate = propagate
