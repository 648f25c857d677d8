"""`GET /conversations` and `POST /conversations/{contact_id}/read` over the fakes and the sandbox gateway."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant

from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.testing import FakeClock

Inbound = Callable[..., None]


@pytest.fixture
def write_in(
    tenant: Tenant, connect_channel: Callable[..., ChannelAccount], sandbox: SandboxGateway, clock: FakeClock
) -> Inbound:
    """`write_in(channel, sender, text)`: a contact writes to the tenant's channel (connected on first use),
    a second later than the previous message."""
    accounts: dict[str, str] = {}

    def write(channel: str, sender: str, text: str) -> None:
        if channel not in accounts:
            provider_account_id = connect_channel(tenant, channel).provider_account_id
            assert provider_account_id is not None
            accounts[channel] = provider_account_id
        clock.advance(seconds=1)
        sandbox.inject_message(accounts[channel], sender, text, sender_name=f"Sender {sender}")

    return write


def test_one_summary_per_contact_newest_first(api: Api, write_in: Inbound) -> None:
    """Each contact with messages has one summary; the most recent conversation comes first."""
    write_in("whatsapp", "+14155550101", "First from A")
    write_in("whatsapp", "+14155550102", "From B")
    write_in("whatsapp", "+14155550101", "Second from A")

    data = api.get("/conversations").json()["data"]

    assert [(c["contact_name"], c["last_message"], c["unread_count"]) for c in data] == [
        ("Sender +14155550101", "Second from A", 2),
        ("Sender +14155550102", "From B", 1),
    ]
    spec_fields = {"contact_id", "contact_name", "channel", "last_message", "last_message_at", "unread_count"}
    assert set(data[0]) == spec_fields | {"handled_by"}


def test_the_channel_filter_keeps_that_channels_conversations(api: Api, write_in: Inbound) -> None:
    """`channel=instagram` lists only conversations with Instagram messages."""
    write_in("whatsapp", "+14155550101", "On WhatsApp")
    write_in("instagram", "ada.handle", "On Instagram")

    data = api.get("/conversations", params={"channel": "instagram"}).json()["data"]

    assert [(c["channel"], c["last_message"]) for c in data] == [("instagram", "On Instagram")]


def test_the_contact_filter_keeps_one_conversation(api: Api, write_in: Inbound) -> None:
    """`contact_id` lists only that contact's conversation."""
    write_in("whatsapp", "+14155550101", "From A")
    write_in("whatsapp", "+14155550102", "From B")
    first = api.get("/conversations").json()["data"][-1]

    data = api.get("/conversations", params={"contact_id": first["contact_id"]}).json()["data"]

    assert [c["last_message"] for c in data] == ["From A"]


def test_conversations_paginate_by_15_by_default(api: Api, write_in: Inbound) -> None:
    """The default page holds 15 conversations (SPEC 8) and `meta` counts them all."""
    for n in range(16):
        write_in("whatsapp", f"+141555501{n:02d}", f"Message {n}")

    body = api.get("/conversations").json()

    assert len(body["data"]) == 15
    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 16, "last_page": 2}


def test_an_unknown_channel_filter_is_422(api: Api) -> None:
    """A `channel` that is not a channel type answers 422."""
    assert api.get("/conversations", params={"channel": "fax"}).status_code == 422


def test_marking_read_clears_the_unread_count(api: Api, write_in: Inbound) -> None:
    """Marking a conversation read answers how many messages became read; its `unread_count` is then 0."""
    write_in("whatsapp", "+14155550101", "One")
    write_in("whatsapp", "+14155550101", "Two")
    [conversation] = api.get("/conversations").json()["data"]

    body = api.post(f"/conversations/{conversation['contact_id']}/read").json()

    assert body["data"] == {"contact_id": conversation["contact_id"], "marked_read": 2}
    assert api.get("/conversations").json()["data"][0]["unread_count"] == 0


def test_marking_an_unknown_conversation_read_is_404(api: Api) -> None:
    """Marking read the conversation of a contact the account does not have answers 404."""
    assert api.post("/conversations/999/read").status_code == 404
