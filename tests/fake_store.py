"""A local store connector for tests: real HTTP on 127.0.0.1 (a `receiver.Receiver` underneath)
that speaks the connector contract of `docs/stores.md`.

It checks the bearer token (a wrong or missing one gets 401 with a JSON message), answers 404 to
anything but `POST {base}/orders/{reference}/status`, records every request it reads, and answers
status pushes as it is told: `accept()` (200, the default), `reject(message, status=422)`,
`fail(status=500)` or `hang(seconds)` (no answer until then, or until the store is closed).

    with FakeStore() as store:
        platform = HttpStorePlatform(store.url, store.token)
        store.reject("Order 1001 has shipped already.")
        ...
        [call] = store.calls
        assert call.body["status"] == "canceled"
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from loopback import Closing
from receiver import Answer, Received, Receiver

TOKEN = "store-token-9f2c71d0"
BASE_PATH = "/connector/v1"
_JSON = {"Content-Type": "application/json"}


@dataclass(frozen=True)
class StoreCall:
    """One request as the store read it."""

    method: str
    path: str
    reference: str | None
    """The order reference from a status path, percent-decoded; None for any other path."""
    authorization: str | None
    body: Any
    """The parsed JSON body (None when it is not JSON)."""


class FakeStore(Closing):
    """A store connector on 127.0.0.1 that records requests and answers status pushes as told."""

    def __init__(self, *, token: str = TOKEN) -> None:
        self.token = token
        self._status_path = re.compile("^" + re.escape(BASE_PATH) + "/orders/([^/?]+)/status$")
        self._answer = _json_answer(200, {"status": "accepted"})
        self._receiver = Receiver()
        self._receiver.respond_with(self._respond)

    @property
    def url(self) -> str:
        """The base URL to configure (`ENGAGE_STORE_URL`)."""
        return self._receiver.url(BASE_PATH)

    @property
    def calls(self) -> list[StoreCall]:
        """Every request read so far, oldest first."""
        return [self._call(request) for request in list(self._receiver.requests)]

    def accept(self) -> None:
        """Answer status pushes with 200 (the default)."""
        self._answer = _json_answer(200, {"status": "accepted"})

    def reject(self, message: str, *, status: int = 422) -> None:
        """Answer status pushes with `status` and `{"message": message}`."""
        self._answer = _json_answer(status, {"message": message})

    def answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        """Answer status pushes with exactly this status, body and headers."""
        self._answer = Answer(status, body, headers or {})

    def fail(self, status: int = 500) -> None:
        """Answer status pushes with a server error."""
        self._answer = _json_answer(status, {"message": "Internal server error."})

    def hang(self, seconds: float = 30.0) -> None:
        """Answer status pushes only after `seconds` (or never, if the store is closed first)."""
        self._answer = Answer(200, b"{}", dict(_JSON), delay=seconds)

    def wait_for(self, count: int, timeout: float = 5.0) -> list[StoreCall]:
        """The first `count` requests, waiting up to `timeout` seconds for them."""
        return [self._call(request) for request in self._receiver.wait_for(count, timeout)]

    def close(self) -> None:
        self._receiver.close()

    def _respond(self, request: Received) -> Answer:
        if request.header("authorization") != f"Bearer {self.token}":
            return _json_answer(401, {"message": "Invalid or missing token."})
        if request.method != "POST" or self._status_path.match(request.path) is None:
            return _json_answer(404, {"message": "No such endpoint."})
        return self._answer

    def _call(self, request: Received) -> StoreCall:
        match = self._status_path.match(request.path)
        try:
            body = json.loads(request.body) if request.body else None
        except ValueError:
            body = None
        return StoreCall(
            method=request.method,
            path=request.path,
            reference=unquote(match.group(1)) if match else None,
            authorization=request.header("authorization"),
            body=body,
        )


def _json_answer(status: int, payload: dict[str, Any]) -> Answer:
    return Answer(status, json.dumps(payload).encode(), dict(_JSON))
