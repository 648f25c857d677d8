"""The log of a real `engage serve`: engage's own lines are kept, each line of a request carries its id,
and `ENGAGE_LOG_FORMAT=json` makes every line one JSON object."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 30.0
MEMBER = {"name": "Lee", "email": "lee@example.com", "role": "agent", "password": "a-long-enough-password"}


def invite(server: Any, request_id: str) -> httpx.Response:
    """Add a team member: with no mail server configured, engage logs `Mail not sent` in the request."""
    key = server.create_account("Logs")
    headers = {"X-Api-Key": key, "X-Request-Id": request_id}
    return httpx.post(f"{server.base_url}/api/v1/team", json=MEMBER, headers=headers, timeout=10.0)


def json_lines(server: Any, request_id: str, count: int) -> list[dict[str, Any]]:
    """Every line of the server's output parsed as JSON, once `count` of them carry `request_id`."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        text: str = server.log.read_text(errors="replace")
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        if sum(line["request_id"] == request_id for line in lines) >= count:
            return lines
        assert time.monotonic() < deadline, f"{count} lines of {request_id} not logged:\n{text}"
        time.sleep(0.05)


def test_json_lines_carry_the_request_id(start_server: Callable[..., Any]) -> None:
    """With ENGAGE_LOG_FORMAT=json every line is a JSON object; engage's mail line and the access line
    of one request both carry its id, and the access line names method, path and status."""
    server = start_server(env={"ENGAGE_LOG_FORMAT": "json"})

    response = invite(server, "json-e2e-1")
    lines = json_lines(server, "json-e2e-1", 2)

    mine = {line["logger"]: line for line in lines if line["request_id"] == "json-e2e-1"}
    assert response.status_code == 201
    assert response.headers["x-request-id"] == "json-e2e-1"
    assert mine["engage.mail"]["message"].startswith("Mail not sent")
    assert (mine["uvicorn.access"]["method"], mine["uvicorn.access"]["path"]) == ("POST", "/api/v1/team")
    assert mine["uvicorn.access"]["status"] == 201


def test_json_lines_outside_requests_have_no_id(start_server: Callable[..., Any]) -> None:
    """Start-up lines (uvicorn's, engage's worker starting at INFO) are JSON too, with request id `-`."""
    server = start_server(env={"ENGAGE_LOG_FORMAT": "json"})

    invite(server, "json-e2e-2")
    lines = json_lines(server, "json-e2e-2", 2)

    started = [line for line in lines if line["logger"] == "engage.worker"]
    assert started and {line["request_id"] for line in started} == {"-"}
    assert {"time", "level", "logger", "message", "request_id"} <= set(lines[0])


def test_text_lines_carry_the_request_id(start_server: Callable[..., Any]) -> None:
    """By default the lines are text; engage's own INFO lines are kept and a request's lines show its id."""
    server = start_server()

    invite(server, "text-e2e-1")
    deadline = time.monotonic() + WAIT_SECONDS
    while (output := server.log.read_text(errors="replace")).count("[text-e2e-1]") < 2:
        assert time.monotonic() < deadline, output
        time.sleep(0.05)

    tagged = [line for line in output.splitlines() if "[text-e2e-1]" in line]
    assert any(" engage.mail " in line and "Mail not sent" in line for line in tagged)
    assert any(" uvicorn.access " in line and '"POST /api/v1/team HTTP/1.1" 201' in line for line in tagged)
    assert "INFO engage.worker [-]: Delivery worker started" in output
