"""What a real `engage serve` writes to its output: never a key or secret a client sent in a URL, and a
warning when its processes cannot share rate limits."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from engage_core.accounts.keys import PARTNER_PREFIX, generate_key

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 30.0
PER_PROCESS_WARNING = "rate limits are counted per process"


def wait_for_log(server: Any, text: str, count: int = 1) -> str:
    """The server's output once `text` appears in it `count` times; fail after WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        output: str = server.log.read_text(errors="replace")
        if output.count(text) >= count:
            return output
        assert time.monotonic() < deadline, f"{text!r} not logged {count} times:\n{output}"
        time.sleep(0.05)


def test_keys_and_secrets_in_urls_never_reach_the_access_log(start_server: Callable[..., Any]) -> None:
    """A workspace key, a partner key and a webhook secret sent in query strings and paths, and a value
    under each sensitive parameter name, are absent from the access log, whose lines still show the
    requests."""
    server = start_server()
    key = server.create_account("Logs")
    partner_key = generate_key(PARTNER_PREFIX).plaintext
    webhook_secret = "whsec_c2VjcmV0LXNpZ25pbmcta2V5LXZhbHVl"
    plain = "hunter2-plain-value"
    targets = [
        f"/api/v1/contacts?api_key={key}",
        f"/api/v1/contacts?limit=5&X-Partner-Key={partner_key}",
        f"/api/v1/contacts/{key}",
        f"/api/v1/partner/clients/{partner_key}",
        f"/api/v1/webhooks?q={webhook_secret}",
        *(f"/api/v1/tags?{name}={plain}&page=1" for name in ("token", "password", "secret", "signature", "key")),
    ]
    with httpx.Client(base_url=server.base_url, timeout=10.0) as client:
        statuses = {client.get(target).status_code for target in targets}

    output = wait_for_log(server, '"GET /api/v1/', len(targets))

    assert statuses <= {401, 404}
    assert [secret for secret in (key, partner_key, webhook_secret, plain) if secret in output] == []
    assert output.count("[redacted]") >= len(targets) and "page=1" in output


def test_several_processes_without_redis_warn_that_limits_are_per_process(start_server: Callable[..., Any]) -> None:
    """`--workers 2` without ENGAGE_REDIS_URL logs a warning naming the per-process rate limits."""
    server = start_server("--workers", "2", "--no-worker")

    output = wait_for_log(server, PER_PROCESS_WARNING)

    assert "ENGAGE_REDIS_URL" in output


def test_one_process_without_redis_does_not_warn(start_server: Callable[..., Any]) -> None:
    """One process counts every request itself: no warning."""
    server = start_server("--no-worker")
    httpx.get(f"{server.base_url}/api/v1/contacts", timeout=10.0)

    output = wait_for_log(server, '"GET /api/v1/contacts')

    assert PER_PROCESS_WARNING not in output
