"""Campaign endpoints (SPEC 4 Campaigns) over the in-memory fakes and the sandbox gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services


@pytest.fixture
def connected(api: Api, sandbox: SandboxGateway) -> str:
    """The tenant's WhatsApp channel, connected through the sandbox: its provider account id."""
    account_id = str(api.post("/channels/whatsapp/connect").json()["data"]["account_id"])
    sandbox.scan(account_id)
    return account_id


@pytest.fixture
def audience(
    tenant: Tenant,
    make_contact: Callable[..., Contact],
    make_list: Callable[..., ContactList],
    services: Services,
) -> dict[str, Any]:
    """A list of three WhatsApp contacts, and one Instagram contact named by id."""
    members = [make_contact(tenant, type="whatsapp", phone=f"+1415555010{n}", name=f"Ada {n}") for n in range(3)]
    newsletter = make_list(tenant)
    for contact in members:
        services.contacts.add_to_list(tenant.account_id, contact.id, newsletter.id)
    other = make_contact(tenant, name="Insta")
    return {"list_ids": [newsletter.id], "contact_ids": [other.id]}


def body(audience: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"name": "Spring sale", "channel": "whatsapp", "message": "Hi {{first_name|there}}!", **audience} | fields


def created(api: Api, audience: dict[str, Any], **fields: Any) -> dict[str, Any]:
    response = api.post("/campaigns", json=body(audience, **fields))
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_create_answers_a_draft_with_zero_counters(api: Api, audience: dict[str, Any]) -> None:
    """A new campaign is a draft with its audience, rate and counters."""
    data = created(api, audience, send_rate=120)

    assert (data["status"], data["send_rate"], data["total_contacts"], data["stats"]["pending"]) == ("draft", 120, 0, 0)
    assert data["audience"] == {
        "contact_ids": audience["contact_ids"],
        "list_ids": audience["list_ids"],
        "segment_ids": [],
    }


def test_an_unknown_placeholder_is_a_422_on_message(api: Api, audience: dict[str, Any]) -> None:
    """`{{nmae}}` is refused when saved, naming the placeholder."""
    response = api.post("/campaigns", json=body(audience, message="Hi {{nmae}}"))

    assert response.status_code == 422
    assert "nmae" in response.json()["errors"]["message"][0]


def test_an_empty_audience_is_a_422(api: Api) -> None:
    """At least one contact, list or segment."""
    response = api.post("/campaigns", json=body({}))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["audience"])


def test_a_list_of_another_account_is_a_422_naming_it(
    api: Api, audience: dict[str, Any], make_tenant: Callable[..., Tenant], make_list: Callable[..., ContactList]
) -> None:
    """Another workspace's list is not found, on its index."""
    foreign = make_list(make_tenant("Other"))

    response = api.post("/campaigns", json=body(audience, list_ids=[audience["list_ids"][0], foreign.id]))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["list_ids.1"])


def test_start_without_a_connected_channel_is_a_422(api: Api, audience: dict[str, Any]) -> None:
    """The campaign stays a draft."""
    campaign = created(api, audience)

    response = api.post(f"/campaigns/{campaign['id']}/start")

    assert response.status_code == 422
    assert api.get(f"/campaigns/{campaign['id']}").json()["data"]["status"] == "draft"


def test_start_snapshots_the_audience_and_lists_its_recipients(
    api: Api, audience: dict[str, Any], connected: str
) -> None:
    """Four recipients: three pending, the Instagram contact skipped `other_channel`; filterable."""
    campaign = created(api, audience)

    started = api.post(f"/campaigns/{campaign['id']}/start").json()["data"]
    skipped = api.get(f"/campaigns/{campaign['id']}/contacts", params={"status": "skipped"}).json()
    page = api.get(f"/campaigns/{campaign['id']}/contacts", params={"per_page": 2}).json()

    assert (started["status"], started["total_contacts"], started["stats"]["skipped"]) == ("running", 4, 1)
    assert [(r["name"], r["reason"]) for r in skipped["data"]] == [("Insta", "other_channel")]
    assert (len(page["data"]), page["meta"]["total"], page["meta"]["last_page"]) == (2, 4, 2)


def test_put_is_allowed_on_drafts_only(api: Api, audience: dict[str, Any], connected: str) -> None:
    """A draft's name changes; once started, PUT is a 422."""
    campaign = created(api, audience)

    renamed = api.put(f"/campaigns/{campaign['id']}", json={"name": "Summer sale"})
    api.post(f"/campaigns/{campaign['id']}/start")
    refused = api.put(f"/campaigns/{campaign['id']}", json={"name": "Autumn sale"})

    assert (renamed.status_code, renamed.json()["data"]["name"]) == (200, "Summer sale")
    assert refused.status_code == 422


def test_moves_follow_their_source_states(api: Api, audience: dict[str, Any], connected: str) -> None:
    """Pause, resume and cancel move a running campaign; a wrong source state is a 422."""
    campaign = created(api, audience)
    path = f"/campaigns/{campaign['id']}"

    assert api.post(f"{path}/pause").status_code == 422  # a draft is not running
    api.post(f"{path}/start")
    statuses = [api.post(f"{path}/{move}").json()["data"]["status"] for move in ("pause", "resume", "cancel")]

    assert statuses == ["paused", "running", "cancelled"]
    assert api.post(f"{path}/resume").status_code == 422


def test_delete_is_allowed_on_drafts_and_cancelled_campaigns(
    api: Api, audience: dict[str, Any], connected: str
) -> None:
    """A running campaign cannot be deleted; cancelled, it can."""
    campaign = created(api, audience)
    path = f"/campaigns/{campaign['id']}"
    api.post(f"{path}/start")

    refused = api.delete(path)
    api.post(f"{path}/cancel")
    deleted = api.delete(path)

    assert (refused.status_code, deleted.status_code, api.get(path).status_code) == (422, 204, 404)


def test_whatsapp_disconnect_is_a_422_while_a_campaign_runs(api: Api, audience: dict[str, Any], connected: str) -> None:
    """The SPEC 3 rule holds for real: a running campaign holds its WhatsApp channel."""
    campaign = created(api, audience)
    api.post(f"/campaigns/{campaign['id']}/start")

    response = api.post("/channels/whatsapp/disconnect")

    assert response.status_code == 422


def test_list_filters_by_status(api: Api, audience: dict[str, Any], connected: str) -> None:
    """`GET /campaigns?status=running` lists only the running one, newest first otherwise."""
    first, second = created(api, audience, name="First"), created(api, audience, name="Second")
    api.post(f"/campaigns/{first['id']}/start")

    running = api.get("/campaigns", params={"status": "running"}).json()["data"]
    every = api.get("/campaigns").json()["data"]

    assert [c["id"] for c in running] == [first["id"]]
    assert [c["id"] for c in every] == [second["id"], first["id"]]
