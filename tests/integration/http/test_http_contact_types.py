"""Contact types agree in every layer with the core's one list (`CONTACT_TYPES`): every channel that
creates contacts from inbound messages is a contact type, the document's enums list exactly those
types, and a contact of each type can be edited, filtered on and targeted by a segment."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import CONTACT_TYPES
from engage_core.messaging.channels import CHANNEL_TYPES, ChannelAccount
from engage_core.messaging.sandbox import SandboxGateway

SENDERS = {"whatsapp": "+14155552671", "telegram": "+442071838750", "instagram": "ada.ig", "linkedin": "ada-li"}


def test_every_channel_is_a_contact_type() -> None:
    """An inbound message on any channel creates a contact of that channel's type, so each is a type."""
    assert set(CHANNEL_TYPES) <= set(CONTACT_TYPES)


def _enums(node: Any) -> Iterator[list[Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield node["enum"]
        for value in node.values():
            yield from _enums(value)
    elif isinstance(node, list):
        for value in node:
            yield from _enums(value)


def test_every_contact_type_enum_of_the_document_is_the_cores(api: Api) -> None:
    """Each enum naming a contact type (request, response, query filter, segment rule) lists exactly CONTACT_TYPES."""
    document = api.get("/openapi.json").json()
    typed = [enum for enum in _enums(document) if "whatsapp" in enum]
    assert typed
    assert all(sorted(enum) == sorted(CONTACT_TYPES) for enum in typed), typed


@pytest.fixture
def inbound_contact(
    api: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount], sandbox: SandboxGateway
) -> Callable[[str], dict[str, Any]]:
    """`inbound_contact(channel)`: the contact an inbound message on `channel` created, as GET shows it."""

    def make(channel: str) -> dict[str, Any]:
        account = connect_channel(tenant, channel)
        assert account.provider_account_id is not None
        sandbox.inject_message(account.provider_account_id, SENDERS[channel], "Hello", sender_name="Ada")
        [contact] = api.get("/contacts").json()["data"]
        return contact  # type: ignore[no-any-return]

    return make


@pytest.mark.parametrize("channel", CHANNEL_TYPES)
def test_a_contact_created_by_an_inbound_message_can_be_saved_unchanged(
    api: Api, inbound_contact: Callable[[str], dict[str, Any]], channel: str
) -> None:
    """PUT with the contact's own type (and name) is a 200 for every channel."""
    contact = inbound_contact(channel)
    answer = api.put(f"/contacts/{contact['id']}", json={"type": contact["type"], "name": "Ada L."})
    assert (answer.status_code, contact["type"]) == (200, channel)


@pytest.mark.parametrize("channel", CHANNEL_TYPES)
def test_the_type_filter_finds_the_contacts_of_every_channel(
    api: Api, inbound_contact: Callable[[str], dict[str, Any]], channel: str
) -> None:
    """GET /contacts?type=<channel> lists the contact that channel created."""
    contact = inbound_contact(channel)
    answer = api.get("/contacts", params={"type": channel})
    assert (answer.status_code, [c["id"] for c in answer.json()["data"]]) == (200, [contact["id"]])


@pytest.mark.parametrize("channel", CHANNEL_TYPES)
def test_a_segment_can_target_the_contacts_of_every_channel(
    api: Api, inbound_contact: Callable[[str], dict[str, Any]], channel: str
) -> None:
    """A segment on `type eq <channel>` is accepted and holds that channel's contact."""
    contact = inbound_contact(channel)
    rule = {"field": "type", "operator": "eq", "value": channel}
    created = api.post("/contacts/segments", json={"name": f"On {channel}", "conditions": [rule]})
    assert created.status_code == 201, created.json()
    members = api.get(f"/contacts/segments/{created.json()['data']['id']}/members").json()["data"]
    assert [c["id"] for c in members] == [contact["id"]]
