"""Messages and contact handles, and the message service over them with the sandbox gateway
(sends, inbound messages, receipts), on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from support import NOW, MakeContact, add_message, draft_for, get_message

from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.unit_of_work import UnitOfWorkFactory

PHONE = "+966501234567"
CREDENTIALS = CredentialsInput(username="acme.shop", password="secret")
"""A sandbox login that needs no 2FA."""
ALL = PageRequest(per_page=100)
Events = Callable[..., list[DomainEvent]]


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _events(outbox_events: Events, account: int, name: str) -> list[DomainEvent]:
    return [e for e in outbox_events(account) if e.name == name]


def _list(uow: UnitOfWorkFactory, account: int, page: PageRequest = ALL, **filters: Any) -> Page[ConversationSummary]:
    with uow.workspace(account, readonly=True) as unit:
        return unit.messages.conversations(ConversationFilter(**filters), page)


def _rows(page: Page[ConversationSummary]) -> list[tuple[str, str, str, int]]:
    return [(s.contact_name, s.channel, s.last_message, s.unread_count) for s in page.items]


def _connect_whatsapp(services: Services, sandbox: SandboxGateway, account: int) -> str:
    started = services.channels.connect_qr(account, "whatsapp")
    pid = started.channel.provider_account_id or ""
    sandbox.scan(pid)
    return pid


def test_a_message_round_trips(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """Every field of an added message reads back as it was written."""
    contact = make_contact()
    draft = draft_for(
        contact, direction="outbound", status="failed", error="No account", provider_message_id="p-1", sent_at=NOW
    )
    added = add_message(uow, account, draft)
    assert get_message(uow, account, added.id) == added
    assert (added.created_at, added.updated_at, added.error, added.sent_at) == (NOW, NOW, "No account", NOW)


def test_a_message_of_another_account_is_not_found(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """get and by_provider_id see only the account's own messages."""
    added = add_message(uow, account, draft_for(make_contact(), provider_message_id="p-1"))
    with uow.workspace(other, readonly=True) as unit:
        assert (unit.messages.get(added.id), unit.messages.by_provider_id("whatsapp", "p-1")) == (None, None)


def test_by_provider_id_matches_the_channel_too(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """The same provider id on another channel is another message."""
    contact = make_contact()
    whatsapp = add_message(uow, account, draft_for(contact, provider_message_id="p-1"))
    telegram = add_message(uow, account, draft_for(contact, channel="telegram", provider_message_id="p-1"))
    with uow.workspace(account, readonly=True) as unit:
        found = (unit.messages.by_provider_id("whatsapp", "p-1"), unit.messages.by_provider_id("telegram", "p-1"))
    assert found == (whatsapp, telegram)


def test_a_provider_id_is_stored_once_per_channel(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """A second message with the channel's provider id is refused; the transaction stays usable."""
    contact = make_contact()
    with uow.workspace(account) as unit:
        unit.messages.add(draft_for(contact, provider_message_id="p-1"), NOW)
        with pytest.raises(ValueError, match="provider message id"):
            unit.messages.add(draft_for(contact, provider_message_id="p-1"), NOW)
        unit.messages.add(draft_for(contact, content="After"), NOW)
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert unit.messages.for_contact(contact.id, None, PageRequest()).total == 2


def test_add_many_stores_each_message_as_add_does(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """`add_many` stores the drafts in order, each readable and summarised in its conversation."""
    ada, bob = make_contact(name="Ada"), make_contact(name="Bob")
    drafts = [draft_for(ada, content="First"), draft_for(bob, content="Second", provider_message_id="p-2")]
    with uow.workspace(account) as unit:
        added = unit.messages.add_many(drafts, NOW)
        unit.commit()

    assert [(m.contact_id, m.content, m.created_at) for m in added] == [(ada.id, "First", NOW), (bob.id, "Second", NOW)]
    assert [get_message(uow, account, m.id) for m in added] == list(added)
    assert sorted((name, last) for name, _, last, _ in _rows(_list(uow, account))) == [
        ("Ada", "First"), ("Bob", "Second"),
    ]  # fmt: skip


def test_add_many_refuses_a_taken_provider_id(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """A draft of `add_many` with a provider id already stored raises as `add` does."""
    contact = make_contact()
    add_message(uow, account, draft_for(contact, provider_message_id="p-1"))
    with uow.workspace(account) as unit, pytest.raises(ValueError, match="provider message id"):
        unit.messages.add_many([draft_for(contact, content="New"), draft_for(contact, provider_message_id="p-1")], NOW)


def test_update_stores_the_changing_fields_only(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """status, sent_at, error, provider id and updated_at change; content and created_at do not."""
    added = add_message(uow, account, draft_for(make_contact(), direction="outbound", status="pending"))
    later = NOW + timedelta(minutes=1)
    changed = attrs.evolve(
        added,
        status="sent",
        sent_at=later,
        error="x",
        provider_message_id="p-9",
        updated_at=later,
        content="Changed",
        created_at=later,
    )
    with uow.workspace(account) as unit:
        unit.messages.update(changed)
        unit.commit()
    expected = attrs.evolve(changed, content=added.content, created_at=added.created_at)
    assert get_message(uow, account, added.id) == expected


def test_update_of_another_accounts_message_changes_nothing(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """The account filter applies to writes."""
    added = add_message(uow, account, draft_for(make_contact()))
    with uow.workspace(other) as unit:
        unit.messages.update(attrs.evolve(added, status="read"))
        unit.commit()
    assert get_message(uow, account, added.id) == added


def test_for_contact_is_newest_first_with_ties_by_id(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """Equal created_at: the later insert comes first; older messages after."""
    contact = make_contact()
    old = add_message(uow, account, draft_for(contact, content="old"), NOW - timedelta(minutes=1))
    first = add_message(uow, account, draft_for(contact, content="first"))
    second = add_message(uow, account, draft_for(contact, content="second"))
    with uow.workspace(account, readonly=True) as unit:
        page = unit.messages.for_contact(contact.id, None, PageRequest())
    assert [m.id for m in page.items] == [second.id, first.id, old.id]


def test_for_contact_filters_by_direction_and_pages(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """direction keeps only its messages; total counts them all, a page holds per_page."""
    contact = make_contact()
    for n in range(5):
        add_message(uow, account, draft_for(contact, direction="outbound", status="sent", content=f"out {n}"))
        add_message(uow, account, draft_for(contact, content=f"in {n}"))
    with uow.workspace(account, readonly=True) as unit:
        page = unit.messages.for_contact(contact.id, "outbound", PageRequest(page=2, per_page=2))
    assert (page.total, [m.content for m in page.items]) == (5, ["out 2", "out 1"])


def test_for_contact_past_the_end_is_empty_with_the_total(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """A page beyond the last has no items and the right total."""
    contact = make_contact()
    add_message(uow, account, draft_for(contact))
    with uow.workspace(account, readonly=True) as unit:
        page = unit.messages.for_contact(contact.id, None, PageRequest(page=3))
    assert (page.total, list(page.items)) == (1, [])


def test_deleting_the_contact_deletes_its_messages(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact, services: Services
) -> None:
    """Messages go with their contact (ON DELETE CASCADE)."""
    contact = make_contact()
    added = add_message(uow, account, draft_for(contact))
    services.contacts.delete(account, contact.id)
    assert get_message(uow, account, added.id) is None


def test_mark_read_reads_only_the_contacts_unread_inbound(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """Inbound not-read messages of that contact become read with updated_at; the count is returned."""
    contact, stranger = make_contact(), make_contact()
    unread = [add_message(uow, account, draft_for(contact, channel=c)) for c in ("whatsapp", "telegram")]
    outbound = add_message(uow, account, draft_for(contact, direction="outbound", status="delivered"))
    elsewhere = add_message(uow, account, draft_for(stranger))
    later = NOW + timedelta(minutes=5)
    with uow.workspace(account) as unit:
        count = unit.messages.mark_read(contact.id, later)
        unit.commit()
    statuses = [get_message(uow, account, m.id) for m in (*unread, outbound, elsewhere)]
    assert count == 2
    assert [(m.status, m.updated_at) for m in statuses if m is not None] == [
        ("read", later),
        ("read", later),
        ("delivered", NOW),
        ("delivered", NOW),
    ]


def test_a_message_is_stored_only_with_its_transaction(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Leaving the unit of work without commit keeps neither the message nor its event."""
    contact = make_contact()
    with uow.workspace(account) as unit:
        message = unit.messages.add(draft_for(contact), NOW)
        unit.emit(DomainEvent("message.received", message.event_payload(), NOW))
    with uow.workspace(account, readonly=True) as unit:
        assert unit.messages.for_contact(contact.id, None, PageRequest()).total == 0
    assert _events(outbox_events, account, "message.received") == []


def test_a_handle_links_both_ways(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """contact_for finds the contact by handle, handle_of the handle by contact."""
    contact = make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(contact.id, "instagram", "ada.codes")
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        found = (unit.handles.contact_for("instagram", "ada.codes"), unit.handles.handle_of(contact.id, "instagram"))
    assert found == (contact.id, "ada.codes")


def test_linking_again_replaces_the_contacts_handle(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """The old handle no longer finds the contact; the new one does."""
    contact = make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(contact.id, "instagram", "old")
        unit.handles.link(contact.id, "instagram", "new")
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        found = (unit.handles.contact_for("instagram", "old"), unit.handles.handle_of(contact.id, "instagram"))
    assert found == (None, "new")


def test_a_handle_of_another_contact_is_refused(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """ValueError, like the fake; the owner keeps it."""
    ada, eve = make_contact(type="instagram", phone=None), make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(ada.id, "instagram", "ada")
        with pytest.raises(ValueError, match="another contact"):
            unit.handles.link(eve.id, "instagram", "ada")
        assert unit.handles.contact_for("instagram", "ada") == ada.id


def test_handles_are_per_channel_and_per_account(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """The same handle on LinkedIn, or in another account, is not found."""
    contact = make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(contact.id, "instagram", "ada")
        unit.commit()
    with uow.workspace(other, readonly=True) as elsewhere:
        in_other_account = elsewhere.handles.contact_for("instagram", "ada")
    with uow.workspace(account, readonly=True) as unit:
        assert (unit.handles.contact_for("linkedin", "ada"), in_other_account) == (None, None)


def test_a_handle_goes_with_its_contact(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact, services: Services
) -> None:
    """Deleting the contact frees its handle."""
    contact = make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(contact.id, "instagram", "ada")
        unit.commit()
    services.contacts.delete(account, contact.id)
    with uow.workspace(account, readonly=True) as unit:
        assert unit.handles.contact_for("instagram", "ada") is None


def test_a_send_is_stored_sent_with_message_sent_in_the_outbox(
    uow: UnitOfWorkFactory,
    account: int,
    services: Services,
    sandbox: SandboxGateway,
    make_contact: MakeContact,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Through the connected account: stored sent, and message.sent names the stored message."""
    _connect_whatsapp(services, sandbox, account)
    result = services.messages.send(account, SendInput(make_contact(phone=PHONE).id, "Hello"))
    stored = get_message(uow, account, result.message.id)
    assert stored is not None and (stored.status, stored.provider_message_id) == ("sent", "sbx-msg-1")
    assert [e.payload["id"] for e in _events(outbox_events, account, "message.sent")] == [stored.id]


def test_a_send_without_a_channel_is_stored_failed_without_an_event(
    uow: UnitOfWorkFactory,
    account: int,
    services: Services,
    make_contact: MakeContact,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """No connected account: failed with the reason, no message.sent."""
    result = services.messages.send(account, SendInput(make_contact().id, "Hello"))
    stored = get_message(uow, account, result.message.id)
    assert stored is not None and stored.status == "failed" and stored.error == result.message.error
    assert _events(outbox_events, account, "message.sent") == []


def test_a_provider_outage_keeps_the_message_failed_with_its_error(
    uow: UnitOfWorkFactory, account: int, services: Services, sandbox: SandboxGateway, make_contact: MakeContact
) -> None:
    """Nothing is lost: the message is stored with the provider's error."""
    _connect_whatsapp(services, sandbox, account)
    sandbox.outage("Provider down")
    result = services.messages.send(account, SendInput(make_contact(phone=PHONE).id, "Hello"))
    stored = get_message(uow, account, result.message.id)
    assert stored is not None and (stored.status, stored.error) == ("failed", "Provider down")


def test_an_inbound_message_creates_the_contact_and_both_events(
    uow: UnitOfWorkFactory,
    account: int,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
    services: Services,
) -> None:
    """A new sender: contact.created then message.received, committed with the message."""
    pid = _connect_whatsapp(services, sandbox, account)
    sandbox.inject_message(pid, PHONE, "Hi", sender_name="Ada")
    names = [e.name for e in outbox_events(account) if e.name.startswith(("contact.", "message."))]
    received = _events(outbox_events, account, "message.received")[0].payload
    stored = get_message(uow, account, received["id"])
    assert names == ["contact.created", "message.received"]
    assert stored is not None and (stored.direction, stored.status, stored.content) == ("inbound", "delivered", "Hi")


def test_an_instagram_sender_is_found_again_by_handle(
    account: int, services: Services, sandbox: SandboxGateway, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Two messages from one handle make one contact, whose handle replies go to."""
    pid = services.channels.connect_credentials(account, "instagram", CREDENTIALS).channel.provider_account_id
    assert pid is not None
    sandbox.inject_message(pid, "@ada.codes", "One")
    sandbox.inject_message(pid, "ada.codes", "Two")
    contact_ids = {e.payload["contact_id"] for e in _events(outbox_events, account, "message.received")}
    assert len(contact_ids) == 1
    assert services.messages.send(account, SendInput(contact_ids.pop(), "Reply")).success
    assert sandbox.account(pid).sent[0].recipient == "ada.codes"


def test_the_same_inbound_message_twice_is_stored_once(
    account: int, sandbox: SandboxGateway, outbox_events: Callable[..., list[DomainEvent]], services: Services
) -> None:
    """A repeated provider message id: one message, one event."""
    pid = _connect_whatsapp(services, sandbox, account)
    sandbox.inject_message(pid, PHONE, "Hi", provider_message_id="wamid-1")
    sandbox.inject_message(pid, PHONE, "Hi", provider_message_id="wamid-1")
    assert len(_events(outbox_events, account, "message.received")) == 1


def test_receipts_never_move_a_message_backwards(
    uow: UnitOfWorkFactory, account: int, services: Services, sandbox: SandboxGateway, make_contact: MakeContact
) -> None:
    """read, then a late delivered: the message stays read."""
    pid = _connect_whatsapp(services, sandbox, account)
    sent = services.messages.send(account, SendInput(make_contact(phone=PHONE).id, "Hello")).message
    sandbox.inject_receipt(pid, sent.provider_message_id or "", "read")
    sandbox.inject_receipt(pid, sent.provider_message_id or "", "delivered")
    stored = get_message(uow, account, sent.id)
    assert stored is not None and stored.status == "read"


def test_a_contact_without_a_handle_has_none(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """handle_of() a contact never linked on the channel is None, and so is contact_for() an unknown handle."""
    contact = make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(contact.id, "instagram", "ada")
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        found = (unit.handles.handle_of(contact.id, "linkedin"), unit.handles.contact_for("instagram", "eve"))

    assert found == (None, None)


def test_contact_for_matches_the_handle_exactly(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """A handle differing in case or by a prefix is another handle."""
    contact = make_contact(type="instagram", phone=None)
    with uow.workspace(account) as unit:
        unit.handles.link(contact.id, "instagram", "ada.codes")
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        found = (unit.handles.contact_for("instagram", "Ada.Codes"), unit.handles.contact_for("instagram", "ada"))

    assert found == (None, None)


def test_mark_read_leaves_another_accounts_messages(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """mark_read() of another account's contact changes nothing and counts 0."""
    added = add_message(uow, account, draft_for(make_contact()))
    with uow.workspace(other) as unit:
        count = unit.messages.mark_read(added.contact_id, NOW + timedelta(minutes=1))
        unit.commit()

    assert (count, get_message(uow, account, added.id)) == (0, added)


def test_for_contact_of_another_account_is_empty(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """for_contact() lists none of another account's messages."""
    added = add_message(uow, account, draft_for(make_contact()))

    with uow.workspace(other, readonly=True) as unit:
        page = unit.messages.for_contact(added.contact_id, None, PageRequest())

    assert (page.total, list(page.items)) == (0, [])
