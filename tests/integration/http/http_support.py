"""Helpers of the HTTP tests: a tenant as a caller sees it, and a client that sends its key."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import httpx

from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_core.unit_of_work import WorkspaceUnitOfWork

if TYPE_CHECKING:
    from starlette.testclient import TestClient

API = "/api/v1"


@attrs.frozen
class Tenant:
    """An account as a caller sees it: its id and its API key."""

    account_id: int
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Api-Key": self.key}


class Api:
    """A test client that sends one tenant's key and prefixes paths with `/api/v1`."""

    def __init__(self, client: TestClient, headers: Mapping[str, str]) -> None:
        self.client = client
        self.headers = dict(headers)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {**self.headers, **kwargs.pop("headers", {})}
        return self.client.request(method, API + path, headers=headers, **kwargs)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)


def validation_errors(response: httpx.Response) -> tuple[int, dict[str, list[str]]]:
    """The status and the `errors` map of a response, an OpenAI-format validation failure (400,
    `error.param`, `Dialect.OPENAI` operations) read as the API's own (422, `errors`), so checks of
    the edge that run over every operation read both alike."""
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    if response.status_code == 400 and isinstance(error, dict):
        return 422, {error.get("param") or "body": [error["message"]]}
    return response.status_code, body.get("errors", {})


@attrs.frozen
class PartnerCaller:
    """A partner as a caller sees it: its id, its key, and a client that sends the key in `X-Partner-Key`."""

    partner_id: int
    key: str
    api: Api = attrs.field(repr=False)


class ThreadRecordingUnitOfWork(InMemoryUnitOfWorkFactory):
    """The in-memory storage, noting the thread each workspace unit of work is opened on."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork:
        self.threads.append(threading.current_thread().name)
        return super().workspace(account_id, readonly=readonly)
