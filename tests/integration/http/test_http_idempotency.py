"""`Idempotency-Key` on POSTs, over the in-memory fakes: a retry with the key and the same request
gets the first response again, another request with it a 422, and each caller's keys are its own."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from http_support import API, Api, PartnerCaller, Tenant
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.testclient import TestClient

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import Unavailable
from engage_core.kernel.idempotency import Claim, ClaimState, InMemoryIdempotencyStore
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_http import create_app
from engage_http.idempotency import IdempotentRequests, fingerprint, kept

ADA = {"name": "Ada Lovelace", "type": "instagram"}


def keyed(key: str = "k-1") -> dict[str, str]:
    return {"Idempotency-Key": key}


def contact_count(api: Api) -> int:
    total: int = api.get("/contacts").json()["meta"]["total"]
    return total


@pytest.fixture
def store() -> InMemoryIdempotencyStore:
    return InMemoryIdempotencyStore()


@pytest.fixture
def app(services: Services, store: InMemoryIdempotencyStore, clock: FakeClock) -> Starlette:
    return create_app(services, idempotency=IdempotentRequests(store, clock))


def test_without_a_key_two_identical_posts_create_two_contacts(api: Api) -> None:
    """Without the header nothing changes: each POST creates a contact."""
    first = api.post("/contacts", json=ADA)
    second = api.post("/contacts", json=ADA)

    assert first.json()["data"]["id"] != second.json()["data"]["id"]
    assert contact_count(api) == 2


def test_a_retry_with_the_key_gets_the_same_contact(api: Api) -> None:
    """The second POST with the key answers the first's contact and creates none."""
    first = api.post("/contacts", json=ADA, headers=keyed())
    second = api.post("/contacts", json=ADA, headers=keyed())

    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json()["data"]["id"] == first.json()["data"]["id"]
    assert contact_count(api) == 1


def test_a_replay_is_the_first_response_byte_for_byte(api: Api) -> None:
    """Status, body and content type of a replay are those of the first response."""
    first = api.post("/contacts", json=ADA, headers=keyed())
    second = api.post("/contacts", json=ADA, headers=keyed())

    assert (second.status_code, second.content) == (first.status_code, first.content)
    assert second.headers["content-type"] == first.headers["content-type"]


def test_only_a_replay_says_it_is_one(api: Api) -> None:
    """`Idempotent-Replayed: true` marks the replay, not the first response."""
    first = api.post("/contacts", json=ADA, headers=keyed())
    second = api.post("/contacts", json=ADA, headers=keyed())

    assert "idempotent-replayed" not in first.headers
    assert second.headers["idempotent-replayed"] == "true"


def test_the_key_with_another_body_is_a_422_on_the_header(api: Api) -> None:
    """Reusing a key for a different request is refused, naming `Idempotency-Key`, and creates nothing."""
    api.post("/contacts", json=ADA, headers=keyed())

    response = api.post("/contacts", json={**ADA, "name": "Grace Hopper"}, headers=keyed())

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["Idempotency-Key"]
    assert contact_count(api) == 1


def test_the_key_on_another_path_is_a_422(api: Api) -> None:
    """The key belongs to the request it was first sent with, path included."""
    api.post("/contacts", json=ADA, headers=keyed())

    assert api.post("/tags", json={"title": "VIP"}, headers=keyed()).status_code == 422


def test_two_accounts_keys_never_meet(api: Api, make_tenant: Callable[..., Tenant], client_for: Any) -> None:
    """The same key from another account is another key: each creates its own contact."""
    other = client_for(make_tenant("Other"))

    mine = api.post("/contacts", json=ADA, headers=keyed())
    theirs = other.post("/contacts", json={**ADA, "name": "Grace"}, headers=keyed())

    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert "idempotent-replayed" not in theirs.headers
    assert contact_count(api) == contact_count(other) == 1


def test_a_key_longer_than_255_characters_is_a_422(api: Api) -> None:
    """A key of 256 characters is refused on the header, and nothing is created."""
    response = api.post("/contacts", json=ADA, headers=keyed("k" * 256))

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["Idempotency-Key"]
    assert contact_count(api) == 0


def test_a_key_of_255_characters_is_honoured(api: Api) -> None:
    """The longest key allowed works like any other."""
    api.post("/contacts", json=ADA, headers=keyed("k" * 255))

    assert api.post("/contacts", json=ADA, headers=keyed("k" * 255)).headers["idempotent-replayed"] == "true"


def test_an_empty_key_is_a_422(api: Api) -> None:
    """A header sent empty is refused rather than ignored."""
    assert api.post("/contacts", json=ADA, headers=keyed("")).status_code == 422


def test_a_domain_error_is_kept_and_replayed(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """A 422 from the handler is kept: the retry gets it again even once the request would succeed."""
    taken = make_contact(tenant, type="whatsapp", phone="+14155552671")
    body = {"name": "Ada", "type": "whatsapp", "phone": "+14155552671"}
    first = api.post("/contacts", json=body, headers=keyed())
    api.delete(f"/contacts/{taken.id}")

    second = api.post("/contacts", json=body, headers=keyed())

    assert (first.status_code, second.status_code) == (422, 422)
    assert second.content == first.content
    assert second.headers["idempotent-replayed"] == "true"


def test_a_malformed_body_keeps_nothing_on_the_key(api: Api) -> None:
    """A body refused before the handler runs leaves the key free for the corrected request."""
    refused = api.post("/contacts", content=b"{not json", headers={**keyed(), "Content-Type": "application/json"})

    created = api.post("/contacts", json=ADA, headers=keyed())

    assert (refused.status_code, created.status_code) == (422, 201)
    assert "idempotent-replayed" not in created.headers


def test_an_unauthenticated_request_keeps_nothing(anonymous: Api, store: InMemoryIdempotencyStore) -> None:
    """A 401 claims no key."""
    assert anonymous.post("/contacts", json=ADA, headers=keyed()).status_code == 401
    assert store.records() == []


def test_an_unavailable_answer_releases_the_key(
    api: Api, services: Services, store: InMemoryIdempotencyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 503 is not kept: the retry runs the request again."""

    def unavailable(*args: Any, **kwargs: Any) -> Contact:
        raise Unavailable("The storage cannot serve now.", retry_after=1)

    with monkeypatch.context() as patched:
        patched.setattr(services.contacts, "create", unavailable)
        assert api.post("/contacts", json=ADA, headers=keyed()).status_code == 503
    assert store.records() == []

    assert api.post("/contacts", json=ADA, headers=keyed()).status_code == 201


def test_a_server_error_releases_the_key(
    services: Services,
    store: InMemoryIdempotencyStore,
    clock: FakeClock,
    tenant: Tenant,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unexpected exception (a 500) keeps nothing on the key."""
    app = create_app(services, idempotency=IdempotentRequests(store, clock))
    api = Api(TestClient(app, raise_server_exceptions=False), tenant.headers)

    def broken(*args: Any, **kwargs: Any) -> Contact:
        raise RuntimeError("boom")

    monkeypatch.setattr(services.contacts, "create", broken)

    assert api.post("/contacts", json=ADA, headers=keyed()).status_code == 500
    assert store.records() == []


def test_after_24_hours_the_key_is_new_again(api: Api, clock: FakeClock) -> None:
    """A day after its first use, the key runs the request again."""
    first = api.post("/contacts", json=ADA, headers=keyed())
    clock.advance(hours=24)

    second = api.post("/contacts", json=ADA, headers=keyed())

    assert second.json()["data"]["id"] != first.json()["data"]["id"]
    assert "idempotent-replayed" not in second.headers


def test_within_24_hours_the_key_still_replays(api: Api, clock: FakeClock) -> None:
    """Just short of a day, the key still answers the first response."""
    api.post("/contacts", json=ADA, headers=keyed())
    clock.advance(hours=23, minutes=59)

    assert api.post("/contacts", json=ADA, headers=keyed()).headers["idempotent-replayed"] == "true"


def test_a_partner_post_is_idempotent(make_partner: Callable[..., PartnerCaller]) -> None:
    """A partner's retry with the key gets the same client, and provisions no second one."""
    partner = make_partner()
    body = {"company_name": "Acme", "plan": "pro", "admin": {"first_name": "A", "last_name": "L", "email": "a@x.io"}}

    first = partner.api.post("/partner/clients", json=body, headers=keyed())
    second = partner.api.post("/partner/clients", json=body, headers=keyed())

    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json()["data"]["id"] == first.json()["data"]["id"]
    assert partner.api.get("/partner/clients").json()["meta"]["total"] == 1


def test_a_partner_and_a_workspace_keys_never_meet(api: Api, make_partner: Callable[..., PartnerCaller]) -> None:
    """A partner's key and a workspace's key of the same text are two keys."""
    partner = make_partner()
    api.post("/contacts", json=ADA, headers=keyed())
    body = {"company_name": "Acme", "plan": "pro", "admin": {"first_name": "A", "last_name": "L", "email": "a@x.io"}}

    assert partner.api.post("/partner/clients", json=body, headers=keyed()).status_code == 201


def test_other_methods_ignore_the_key(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """A PUT with the header runs every time, as before."""
    contact = make_contact(tenant)
    api.put(f"/contacts/{contact.id}", json={"name": "First"}, headers=keyed())

    response = api.put(f"/contacts/{contact.id}", json={"name": "Second"}, headers=keyed())

    assert response.json()["data"]["name"] == "Second"
    assert "idempotent-replayed" not in response.headers


def body_bytes(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def contacts_print(data: dict[str, Any]) -> str:
    return fingerprint("POST", API + "/contacts", b"", body_bytes(data))


def test_a_key_in_progress_past_the_wait_is_a_409_with_retry_after(
    services: Services, clock: FakeClock, tenant: Tenant
) -> None:
    """While another request runs with the key, past the wait, the answer is 409 with `Retry-After`."""
    store = InMemoryIdempotencyStore()
    store.claim(f"account:{tenant.account_id}", "k-1", contacts_print(ADA), clock.now())
    app = create_app(services, idempotency=IdempotentRequests(store, clock, wait_seconds=0))
    api = Api(TestClient(app), tenant.headers)

    response = api.post("/contacts", content=body_bytes(ADA), headers={**keyed(), "Content-Type": "application/json"})

    assert response.status_code == 409
    assert response.headers["retry-after"] == "1"
    assert contact_count(api) == 0


class SignallingStore(InMemoryIdempotencyStore):
    """Sets `waiting` the first time it answers a claim with `IN_PROGRESS`."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def claim(self, scope: str, key: str, fingerprint: str, now: datetime) -> Claim:
        claim = super().claim(scope, key, fingerprint, now)
        if claim.state is ClaimState.IN_PROGRESS:
            self.waiting.set()
        return claim


def test_a_request_waits_for_the_one_in_progress_then_replays_it(
    services: Services, clock: FakeClock, tenant: Tenant
) -> None:
    """A retry arriving while the first request runs waits for it and answers its response."""
    store = SignallingStore()
    scope = f"account:{tenant.account_id}"
    token = store.claim(scope, "k-1", contacts_print(ADA), clock.now()).token
    assert token is not None
    api = Api(TestClient(create_app(services, idempotency=IdempotentRequests(store, clock))), tenant.headers)
    answers: list[Any] = []
    retry = threading.Thread(
        target=lambda: answers.append(
            api.post("/contacts", content=body_bytes(ADA), headers={**keyed(), "Content-Type": "application/json"})
        )
    )
    retry.start()
    assert store.waiting.wait(timeout=30)

    first = Response(b'{"success":true,"data":{"id":41}}', status_code=201, media_type="application/json")
    assert store.complete(scope, "k-1", token, kept(first))
    retry.join(timeout=30)

    [answer] = answers
    assert (answer.status_code, answer.content) == (201, first.body)
    assert answer.headers["idempotent-replayed"] == "true"
