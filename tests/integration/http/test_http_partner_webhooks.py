"""The partner's own webhook subscriptions over HTTP (SPEC 6, Partner events)."""

from __future__ import annotations

from collections.abc import Callable

from http_support import PartnerCaller

from engage_core.partners.fakes import PartnersTables
from engage_core.testing import InMemoryUnitOfWorkFactory

HOOK = {"name": "CRM", "url": "https://crm.example.com/hooks/partner"}


def test_create_shows_the_64_character_secret_once(make_partner: Callable[..., PartnerCaller]) -> None:
    """The create answer holds the secret; the list does not."""
    partner = make_partner()

    created = partner.api.post("/partner/webhooks", json=HOOK)
    listed = partner.api.get("/partner/webhooks").json()["data"]

    assert created.status_code == 201
    assert len(created.json()["data"]["secret"]) == 64
    assert [hook["id"] for hook in listed] == [created.json()["data"]["id"]]
    assert "secret" not in listed[0]


def test_an_http_target_is_422(make_partner: Callable[..., PartnerCaller]) -> None:
    """Only https targets are accepted."""
    partner = make_partner()

    response = partner.api.post("/partner/webhooks", json={**HOOK, "url": "http://crm.example.com/hooks"})

    assert response.status_code == 422
    assert "url" in response.json()["errors"]


def test_a_workspace_event_name_is_422(make_partner: Callable[..., PartnerCaller]) -> None:
    """`events` takes partner event names only."""
    partner = make_partner()

    response = partner.api.post("/partner/webhooks", json={**HOOK, "events": ["contact.created"]})

    assert response.status_code == 422


def test_events_lists_the_partner_catalogue(make_partner: Callable[..., PartnerCaller]) -> None:
    """`GET /partner/webhooks/events` lists every `partner.client.*` event."""
    partner = make_partner()

    names = partner.api.get("/partner/webhooks/events").json()["data"]

    assert "partner.client.created" in names
    assert all(name.startswith("partner.client.") for name in names)


def test_update_disables_a_subscription(make_partner: Callable[..., PartnerCaller]) -> None:
    """`PUT` with `is_active` false disables it."""
    partner = make_partner()
    hook_id = partner.api.post("/partner/webhooks", json=HOOK).json()["data"]["id"]

    data = partner.api.put(f"/partner/webhooks/{hook_id}", json={"is_active": False}).json()["data"]

    assert data["is_active"] is False


def test_delete_removes_a_subscription(make_partner: Callable[..., PartnerCaller]) -> None:
    """`DELETE` answers 204 and the subscription is no longer listed."""
    partner = make_partner()
    hook_id = partner.api.post("/partner/webhooks", json=HOOK).json()["data"]["id"]

    response = partner.api.delete(f"/partner/webhooks/{hook_id}")

    assert response.status_code == 204
    assert partner.api.get("/partner/webhooks").json()["data"] == []


def test_creating_a_client_queues_a_partner_delivery(
    make_partner: Callable[..., PartnerCaller], uow: InMemoryUnitOfWorkFactory
) -> None:
    """A subscribed partner gets a `partner.client.created` attempt with the client's data."""
    partner = make_partner()
    hook_id = partner.api.post("/partner/webhooks", json={**HOOK, "events": ["partner.client.created"]}).json()["data"][
        "id"
    ]
    body = {
        "company_name": "Acme",
        "plan": "pro",
        "admin": {"first_name": "Ada", "last_name": "L", "email": "ada@acme.example"},
        "skip_invite": True,
    }

    client_id = partner.api.post("/partner/clients", json=body).json()["data"]["id"]

    [attempt] = uow.store.state.of(PartnersTables).partner_attempts
    assert (attempt.webhook_id, attempt.event_type) == (hook_id, "partner.client.created")
    assert attempt.payload["client_id"] == client_id
    assert attempt.payload["primary_email"] == "ada@acme.example"
