"""MessageService over the in-memory fakes and the sandbox gateway: send, receive, receipts,
conversations, a contact's messages and marking read."""

from __future__ import annotations

from typing import Any

import pytest

from engage_core.contacts.model import ContactFilter, ContactInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.gateway import InboundMessage
from engage_core.messaging.message_service import SendInput, SendResult

from ..factories import START
from .fixtures import PHONE, Messaging


@pytest.fixture
def world() -> Messaging:
    return Messaging()


def send(world: Messaging, contact_id: int, text: str = "Hello") -> SendResult:
    return world.services.messages.send(world.account, SendInput(contact_id, text))


def conversations(world: Messaging, **filters: Any) -> Page[ConversationSummary]:
    return world.services.messages.conversations(world.account, ConversationFilter(**filters), PageRequest())


# -- sending -------------------------------------------------------------------------------------


def test_a_send_goes_through_the_connected_account(world: Messaging) -> None:
    """Stored sent with the provider id; the sandbox got it for the contact's phone."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    result = send(world, world.contact().id)
    assert (result.success, result.message.status, result.message.provider_message_id) == (True, "sent", "sbx-msg-1")
    assert [(s.recipient, s.text) for s in world.sandbox.account(pid).sent] == [(PHONE, "Hello")]


def test_a_send_emits_message_sent(world: Messaging) -> None:
    """message.sent with message_by client and the message id."""
    world.connect_qr("whatsapp")
    result = send(world, world.contact().id)
    assert [(e["id"], e["message_by"], e["source"]) for e in world.events("message.sent")] == [
        (result.message.id, "client", "whatsapp")
    ]


def test_a_send_updates_last_message_at_without_a_contact_event(world: Messaging) -> None:
    """The contact's last_message_at moves; no contact.updated is emitted."""
    world.connect_qr("whatsapp")
    contact = world.contact()
    now = world.clock.advance(minutes=1)
    send(world, contact.id)
    assert world.services.contacts.get(world.account, contact.id).last_message_at == now
    assert world.events("contact.updated") == []


def test_without_a_connected_account_the_message_is_stored_failed(world: Messaging) -> None:
    """No connected WhatsApp: success false, status failed, an error naming the channel."""
    result = send(world, world.contact().id)
    assert (result.success, result.message.status) == (False, "failed")
    assert result.message.error is not None and "No connected whatsapp account" in result.message.error
    assert world.events("message.sent") == []


def test_a_pending_channel_is_not_a_connected_account(world: Messaging) -> None:
    """A QR waiting to be scanned does not send."""
    world.services.channels.connect_qr(world.account, "whatsapp")
    assert send(world, world.contact().id).message.status == "failed"


def test_a_blacklisted_contact_is_never_sent_to(world: Messaging) -> None:
    """Stored failed with the blacklist error; the provider sees nothing."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    world.services.contacts.toggle_blacklist(world.account, contact.id)
    result = send(world, contact.id)
    assert (result.success, result.message.error) == (False, "The contact is blacklisted; messages are not sent to it.")
    assert world.sandbox.account(pid).sent == []


def test_a_provider_outage_stores_the_message_failed_with_its_error(world: Messaging) -> None:
    """Nothing lost: the message is kept, failed, with the provider's error."""
    world.connect_qr("whatsapp")
    contact = world.contact()
    world.sandbox.outage("Provider down")
    result = send(world, contact.id)
    assert (result.success, result.message.status, result.message.error) == (False, "failed", "Provider down")
    stored = world.services.messages.for_contact(world.account, contact.id, None, PageRequest()).items
    assert [(m.id, m.status) for m in stored] == [(result.message.id, "failed")]


def test_an_instagram_contact_without_a_handle_cannot_be_sent_to(world: Messaging) -> None:
    """Instagram addresses by handle; a contact made through the API has none."""
    world.connect_credentials("instagram")
    result = send(world, world.contact("instagram", phone=None).id)
    assert result.message.error == "The contact has no instagram handle to send to."


def test_an_instagram_contact_met_inbound_is_sent_to_by_handle(world: Messaging) -> None:
    """A contact created by an inbound message keeps its handle; replies go to it."""
    pid = world.connect_credentials("instagram").provider_account_id or ""
    world.sandbox.inject_message(pid, "@ada.codes", "Hi")
    contact_id = conversations(world).items[0].contact_id
    assert send(world, contact_id).success
    assert world.sandbox.account(pid).sent[0].recipient == "ada.codes"


def test_a_send_needs_text_and_a_known_contact(world: Messaging) -> None:
    """Blank text is 422 on message; an unknown contact is 404."""
    with pytest.raises(ValidationFailed) as caught:
        send(world, world.contact().id, "   ")
    assert "message" in caught.value.errors
    with pytest.raises(NotFound):
        send(world, 999)


def test_a_contact_of_another_account_is_not_found(world: Messaging) -> None:
    """Sending to another account's contact is 404."""
    other = world.services.accounts.create("Other").account.id
    stranger = world.services.contacts.create(other, ContactInput(name="Eve", type="whatsapp", phone=PHONE)).id
    with pytest.raises(NotFound):
        send(world, stranger)


# -- receiving -----------------------------------------------------------------------------------


def test_an_inbound_message_from_a_new_number_creates_the_contact(world: Messaging) -> None:
    """A new WhatsApp sender: contact created (source inbound), message stored delivered."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.inject_message(pid, "00966501234567", "Hi", sender_name="Ada")
    contact = world.services.contacts.find(world.account, ContactFilter(), PageRequest()).items[0]
    assert (contact.name, contact.phone, contact.type, contact.source) == ("Ada", PHONE, "whatsapp", "inbound")
    messages = world.services.messages.for_contact(world.account, contact.id, None, PageRequest()).items
    assert [(m.direction, m.status, m.content) for m in messages] == [("inbound", "delivered", "Hi")]
    assert len(world.events("contact.created")) == 1


def test_an_inbound_message_from_a_known_number_finds_the_contact(world: Messaging) -> None:
    """The sender's phone matches an existing contact of the channel: no new contact."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    world.sandbox.inject_message(pid, PHONE, "Hi")
    assert conversations(world).items[0].contact_id == contact.id
    assert len(world.events("contact.created")) == 1  # only the one made by the test


def test_a_phone_of_another_channel_is_another_contact(world: Messaging) -> None:
    """A Telegram message from a WhatsApp contact's phone makes a Telegram contact."""
    pid = world.connect_qr("telegram").provider_account_id or ""
    whatsapp = world.contact()
    world.sandbox.inject_message(pid, PHONE, "Hi")
    assert conversations(world).items[0].contact_id != whatsapp.id


def test_an_instagram_handle_matches_the_same_contact_twice(world: Messaging) -> None:
    """Two messages from one handle: one contact (named after the handle), two messages."""
    pid = world.connect_credentials("instagram").provider_account_id or ""
    world.sandbox.inject_message(pid, "ada.codes", "One")
    world.sandbox.inject_message(pid, "@ada.codes", "Two")
    summaries = conversations(world).items
    assert [(s.contact_name, s.last_message, s.unread_count) for s in summaries] == [("ada.codes", "Two", 2)]


def test_an_inbound_message_emits_message_received(world: Messaging) -> None:
    """message.received with message_by contact and status received."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.inject_message(pid, PHONE, "Hi")
    assert [(e["message_by"], e["status"], e["value"]) for e in world.events("message.received")] == [
        ("contact", "received", "Hi")
    ]


def test_an_inbound_message_updates_last_message_at(world: Messaging) -> None:
    """The sender's last_message_at is the time it arrived."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    now = world.clock.advance(minutes=2)
    world.sandbox.inject_message(pid, PHONE, "Hi")
    assert world.services.contacts.get(world.account, contact.id).last_message_at == now


def test_the_same_inbound_message_twice_is_stored_once(world: Messaging) -> None:
    """A repeated provider message id returns the stored message; no second event."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.inject_message(pid, PHONE, "Hi", provider_message_id="wamid-1")
    world.sandbox.inject_message(pid, PHONE, "Hi", provider_message_id="wamid-1")
    assert conversations(world).items[0].unread_count == 1
    assert len(world.events("message.received")) == 1


def test_a_sender_that_is_not_a_phone_is_refused(world: Messaging) -> None:
    """A WhatsApp sender must be an international phone number."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    inbound = InboundMessage(pid, "wamid-1", "ada", "Hi", START)
    with pytest.raises(ValidationFailed) as caught:
        world.services.messages.receive(world.account, inbound)
    assert "sender" in caught.value.errors


# -- receipts ------------------------------------------------------------------------------------


def _sent(world: Messaging) -> tuple[str, int, str]:
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    message = send(world, world.contact().id).message
    return pid, message.id, message.provider_message_id or ""


def _status(world: Messaging, message_id: int) -> str:
    contact_id = conversations(world).items[0].contact_id
    items = world.services.messages.for_contact(world.account, contact_id, None, PageRequest()).items
    return next(m.status for m in items if m.id == message_id)


def test_receipts_move_sent_to_delivered_to_read(world: Messaging) -> None:
    """delivered then read."""
    pid, message_id, provider_id = _sent(world)
    world.sandbox.inject_receipt(pid, provider_id, "delivered")
    assert _status(world, message_id) == "delivered"
    world.sandbox.inject_receipt(pid, provider_id, "read")
    assert _status(world, message_id) == "read"


def test_a_late_delivered_receipt_does_not_undo_read(world: Messaging) -> None:
    """read, then a delayed delivered receipt: still read."""
    pid, message_id, provider_id = _sent(world)
    world.sandbox.inject_receipt(pid, provider_id, "read")
    world.sandbox.inject_receipt(pid, provider_id, "delivered")
    assert _status(world, message_id) == "read"


def test_a_receipt_for_an_unknown_message_is_ignored(world: Messaging) -> None:
    """No message with that provider id: nothing happens."""
    pid, _, _ = _sent(world)
    receipt = world.sandbox.inject_receipt(pid, "sbx-msg-404", "read")
    assert world.services.messages.receipt(world.account, receipt) is None


# -- conversations and marking read ---------------------------------------------------------------


def test_conversations_are_one_per_contact_newest_first(world: Messaging) -> None:
    """Two contacts; the one written to last comes first; each shows its newest message."""
    world.connect_qr("whatsapp")
    ada, bob = world.contact(name="Ada"), world.contact(name="Bob", phone="+966501234568")
    send(world, ada.id, "First to Ada")
    world.clock.advance(seconds=1)
    send(world, bob.id, "To Bob")
    world.clock.advance(seconds=1)
    send(world, ada.id, "Second to Ada")
    summaries = conversations(world)
    assert [(s.contact_name, s.last_message) for s in summaries.items] == [("Ada", "Second to Ada"), ("Bob", "To Bob")]
    assert summaries.total == 2


def test_conversations_count_unread_inbound_messages(world: Messaging) -> None:
    """unread_count: inbound messages not read; outbound ones never count."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    world.sandbox.inject_message(pid, PHONE, "One")
    world.sandbox.inject_message(pid, PHONE, "Two")
    send(world, contact.id, "Reply")
    summary = conversations(world).items[0]
    assert (summary.unread_count, summary.last_message, summary.channel) == (2, "Reply", "whatsapp")
    assert summary.last_message_at == START


def test_conversations_filter_by_channel_and_contact(world: Messaging) -> None:
    """channel keeps that channel's conversations; contact_id keeps one contact's."""
    wa = world.connect_qr("whatsapp").provider_account_id or ""
    tg = world.connect_qr("telegram").provider_account_id or ""
    world.sandbox.inject_message(wa, PHONE, "On WhatsApp")
    world.sandbox.inject_message(tg, "+966501234568", "On Telegram")
    assert [s.last_message for s in conversations(world, channel="telegram").items] == ["On Telegram"]
    whatsapp_contact = conversations(world, channel="whatsapp").items[0].contact_id
    assert [s.last_message for s in conversations(world, contact_id=whatsapp_contact).items] == ["On WhatsApp"]


def test_conversations_reject_an_unknown_channel(world: Messaging) -> None:
    """channel must be one of the four."""
    with pytest.raises(ValidationFailed):
        conversations(world, channel="fax")


def test_conversations_paginate(world: Messaging) -> None:
    """per_page 1 over two conversations: two pages, total 2."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.inject_message(pid, PHONE, "One")
    world.sandbox.inject_message(pid, "+966501234568", "Two")
    page = world.services.messages.conversations(world.account, ConversationFilter(), PageRequest(2, 1))
    assert ([s.last_message for s in page.items], page.total, page.last_page) == (["One"], 2, 2)


def test_a_contacts_messages_filter_by_direction(world: Messaging) -> None:
    """direction inbound leaves the replies out; newest first."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    world.sandbox.inject_message(pid, PHONE, "One")
    send(world, contact.id, "Reply")
    world.sandbox.inject_message(pid, PHONE, "Two")
    inbound = world.services.messages.for_contact(world.account, contact.id, "inbound", PageRequest()).items
    assert [m.content for m in inbound] == ["Two", "One"]


def test_a_contacts_messages_reject_an_unknown_direction(world: Messaging) -> None:
    """direction must be inbound or outbound."""
    with pytest.raises(ValidationFailed):
        world.services.messages.for_contact(world.account, world.contact().id, "sideways", PageRequest())


def test_marking_read_clears_the_unread_count(world: Messaging) -> None:
    """POST /conversations/{id}/read: every inbound message read, count returned."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    world.sandbox.inject_message(pid, PHONE, "One")
    world.sandbox.inject_message(pid, PHONE, "Two")
    assert world.services.messages.mark_read(world.account, contact.id) == 2
    assert conversations(world).items[0].unread_count == 0
    assert world.services.messages.mark_read(world.account, contact.id) == 0


def test_deleting_a_contact_removes_its_conversation(world: Messaging) -> None:
    """A deleted contact's messages go with it."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    contact = world.contact()
    world.sandbox.inject_message(pid, PHONE, "One")
    world.services.contacts.delete(world.account, contact.id)
    assert conversations(world).items == []
