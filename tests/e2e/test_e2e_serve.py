"""A real `engage serve` process on loopback, driven over HTTP like a client would."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

_PHONE_SUFFIXES = itertools.count(100)
"""Every contact of the module's one account gets its own phone number."""


@pytest.fixture(scope="module")
def server(start_server: Callable[..., Any]) -> Any:
    return start_server()


@pytest.fixture(scope="module")
def client(server: Any) -> Iterator[httpx.Client]:
    """An httpx client with a fresh account's key, made with `engage accounts create --json`."""
    headers = {"X-Api-Key": server.create_account()}
    with httpx.Client(base_url=f"{server.base_url}/api/v1", headers=headers, timeout=10.0) as http:
        yield http


@pytest.fixture
def new_contact(client: httpx.Client) -> Callable[..., dict[str, Any]]:
    """Create a contact over HTTP; returns its `data`."""

    def create(name: str = "Ada Lovelace") -> dict[str, Any]:
        body = {"name": name, "type": "whatsapp", "phone": f"+1415555{next(_PHONE_SUFFIXES):04d}"}
        response = client.post("/contacts", json=body)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()["data"]
        return data

    return create


def test_a_request_without_a_key_is_401(server: Any) -> None:
    """No API key, no access."""
    response = httpx.get(f"{server.base_url}/api/v1/contacts", timeout=10.0)
    assert response.status_code == 401
    assert response.json()["success"] is False


def test_create_contact_returns_201_with_the_contact(client: httpx.Client) -> None:
    """The created contact comes back in the success envelope."""
    response = client.post("/contacts", json={"name": "Grace Hopper", "type": "instagram"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["success"] is True
    assert body["data"]["name"] == "Grace Hopper"


def test_created_contact_is_listed(client: httpx.Client, new_contact: Callable[..., dict[str, Any]]) -> None:
    """The list endpoint finds the new contact by search."""
    created = new_contact("Listed Person")
    response = client.get("/contacts", params={"search": "Listed Person"})
    assert response.status_code == 200, response.text
    assert [c["id"] for c in response.json()["data"]] == [created["id"]]


def test_get_returns_the_contact(client: httpx.Client, new_contact: Callable[..., dict[str, Any]]) -> None:
    """GET /contacts/{id} returns what POST created."""
    created = new_contact("Fetched Person")
    response = client.get(f"/contacts/{created['id']}")
    assert response.status_code == 200, response.text
    assert response.json()["data"] == created


def test_delete_returns_204_and_the_contact_is_gone(
    client: httpx.Client, new_contact: Callable[..., dict[str, Any]]
) -> None:
    """A deleted contact is 404 afterwards."""
    created = new_contact("Deleted Person")
    deleted = client.delete(f"/contacts/{created['id']}")
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert client.get(f"/contacts/{created['id']}").status_code == 404


def test_serve_with_two_workers_answers_requests(start_server: Callable[..., Any]) -> None:
    """--workers 2 loads the app factory in each process and serves with the CLI's database."""
    server = start_server("--workers", "2", "--no-worker")
    headers = {"X-Api-Key": server.create_account("Workers")}
    response = httpx.get(f"{server.base_url}/api/v1/contacts", headers=headers, timeout=10.0)
    assert response.status_code == 200, response.text
