"""`POST /messages/send` and `GET /contacts/{contact_id}/messages` over the fakes and the sandbox gateway."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.testing import InMemoryUnitOfWorkFactory

PHONE = "+14155550123"


@pytest.fixture
def channel(tenant: Tenant, connect_channel: Callable[..., ChannelAccount]) -> ChannelAccount:
    """The tenant's whatsapp account, connected through the sandbox."""
    return connect_channel(tenant, "whatsapp")


@pytest.fixture
def contact(tenant: Tenant, make_contact: Callable[..., Contact]) -> Contact:
    """Ada, a whatsapp contact at `PHONE`."""
    return make_contact(tenant, name="Ada", type="whatsapp", phone=PHONE)


@pytest.fixture
def conversation(api: Api, channel: ChannelAccount, contact: Contact, sandbox: SandboxGateway) -> Contact:
    """`contact` after writing "Hi there" and being answered "Hello back", in that order."""
    assert channel.provider_account_id is not None
    sandbox.inject_message(channel.provider_account_id, PHONE, "Hi there")
    api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello back"})
    return contact


def test_a_send_through_a_connected_account_is_201_and_sent(
    api: Api, channel: ChannelAccount, contact: Contact, sandbox: SandboxGateway
) -> None:
    """A send to a contact whose channel is connected answers 201 with the stored message, `sent`."""
    response = api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello Ada"})

    body = response.json()
    assert (response.status_code, body["success"], body["message"]) == (201, True, "Message sent successfully.")
    data = body["data"]
    assert (data["contact_id"], data["channel"], data["content"], data["status"]) == (
        contact.id,
        "whatsapp",
        "Hello Ada",
        "sent",
    )
    assert data["id"] and data["sent_at"] and data["error"] is None
    assert channel.provider_account_id is not None
    assert [(s.recipient, s.text) for s in sandbox.account(channel.provider_account_id).sent] == [(PHONE, "Hello Ada")]


def test_a_send_without_a_connected_account_is_stored_failed(api: Api, contact: Contact) -> None:
    """Without a connected account the message is stored `failed`: success false, data id/status/error, a message."""
    body = api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello"}).json()

    assert body["success"] is False and body["message"]
    assert body["data"]["id"] and body["data"]["status"] == "failed"
    assert "No connected whatsapp account" in body["data"]["error"]


def test_the_failed_record_is_kept(api: Api, contact: Contact) -> None:
    """The undelivered message is listed among the contact's messages, `failed` with its error."""
    sent = api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello"}).json()["data"]

    [listed] = api.get(f"/contacts/{contact.id}/messages").json()["data"]

    assert (listed["id"], listed["status"], listed["error"]) == (sent["id"], "failed", sent["error"])


@pytest.mark.usefixtures("channel")
def test_a_blacklisted_contact_is_not_sent_to(
    api: Api, tenant: Tenant, contact: Contact, services_blacklist: Callable[..., None]
) -> None:
    """A send to a blacklisted contact is stored `failed` with an error saying so."""
    services_blacklist(tenant, contact)

    body = api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello"}).json()

    assert (body["success"], body["data"]["status"]) == (False, "failed")
    assert "blacklisted" in body["data"]["error"]


@pytest.mark.usefixtures("channel")
def test_a_provider_outage_stores_the_providers_error(api: Api, contact: Contact, sandbox: SandboxGateway) -> None:
    """When the provider fails, the message is stored `failed` with the provider's error."""
    sandbox.outage("Provider down for maintenance.")

    body = api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello"}).json()

    assert (body["success"], body["data"]["status"], body["data"]["error"]) == (
        False,
        "failed",
        "Provider down for maintenance.",
    )


def test_a_send_to_an_unknown_contact_is_404(api: Api) -> None:
    """A `contact_id` the account does not have answers 404."""
    assert api.post("/messages/send", json={"contact_id": 999, "message": "Hello"}).status_code == 404


def test_a_blank_message_is_422(api: Api, contact: Contact) -> None:
    """A blank `message` answers 422 naming it."""
    response = api.post("/messages/send", json={"contact_id": contact.id, "message": "  "})

    assert response.status_code == 422
    assert "message" in response.json()["errors"]


def test_a_contacts_messages_are_listed_newest_first(api: Api, conversation: Contact) -> None:
    """The contact's messages come newest first with SPEC 2's fields and pagination meta."""
    body = api.get(f"/contacts/{conversation.id}/messages").json()

    assert [(m["direction"], m["content"]) for m in body["data"]] == [
        ("outbound", "Hello back"),
        ("inbound", "Hi there"),
    ]
    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 2, "last_page": 1}


def test_the_direction_filter_keeps_one_direction(api: Api, conversation: Contact) -> None:
    """`direction=inbound` lists only the messages the contact sent."""
    data = api.get(f"/contacts/{conversation.id}/messages", params={"direction": "inbound"}).json()["data"]

    assert [m["content"] for m in data] == ["Hi there"]


def test_an_unknown_direction_is_422(api: Api, contact: Contact) -> None:
    """A `direction` other than inbound or outbound answers 422."""
    assert api.get(f"/contacts/{contact.id}/messages", params={"direction": "sideways"}).status_code == 422


def test_messages_of_an_unknown_contact_are_404(api: Api) -> None:
    """Listing the messages of a contact the account does not have answers 404."""
    assert api.get("/contacts/999/messages").status_code == 404


@pytest.mark.usefixtures("channel")
def test_a_send_emits_message_sent_through_the_outbox(
    api: Api, tenant: Tenant, contact: Contact, uow: InMemoryUnitOfWorkFactory
) -> None:
    """A delivered send records `message.sent` with `message_by` client for the account."""
    sent = api.post("/messages/send", json={"contact_id": contact.id, "message": "Hello"}).json()["data"]

    events = [e for e in uow.store.events(tenant.account_id) if e.name == "message.sent"]
    assert [(e.payload["id"], e.payload["message_by"]) for e in events] == [(sent["id"], "client")]
