"""A `curl` command line of the docs, sent with httpx: the options the docs use, and no others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import httpx


@attrs.frozen
class Request:
    method: str
    url: str
    headers: dict[str, str]
    body: str | None = None
    form: tuple[tuple[str, Any], ...] = ()


def parse(argv: list[str], cwd: Path) -> Request:
    """The request `curl ARGS` makes; an option the docs do not use fails, so none is ignored silently."""
    method: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}
    body: str | None = None
    form: list[tuple[str, Any]] = []
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-s", "-S", "-sS", "--silent", "-i"):
            continue
        if arg in ("-X", "--request"):
            method = next(args)
        elif arg in ("-H", "--header"):
            name, _, value = next(args).partition(":")
            headers[name.strip()] = value.strip()
        elif arg in ("-d", "--data", "--data-raw"):
            body = next(args)
        elif arg in ("-F", "--form"):
            form.append(_form_part(next(args), cwd))
        elif arg.startswith("-"):
            raise ValueError(f"curl option {arg} is not understood by the docs harness")
        else:
            url = arg
    if url is None:
        raise ValueError("curl without a URL")
    return Request(method or ("POST" if body is not None or form else "GET"), url, headers, body, tuple(form))


def _form_part(spec: str, cwd: Path) -> tuple[str, Any]:
    name, _, value = spec.partition("=")
    content_type = None
    if ";type=" in value:
        value, _, content_type = value.rpartition(";type=")
    if value.startswith("@"):
        path = cwd / value[1:]
        return name, (path.name, path.read_bytes(), content_type or "text/csv")
    return name, (None, value.encode(), content_type) if content_type else (None, value.encode())


def send(client: httpx.Client, request: Request) -> httpx.Response:
    return client.request(
        request.method,
        request.url,
        headers=request.headers,
        content=request.body.encode() if request.body is not None else None,
        files=list(request.form) or None,
    )
