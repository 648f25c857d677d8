"""Messages and contact handles through the SQL repositories, and MessageService over SQL with the
sandbox gateway (reference: engage_core.testing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import attrs
import pytest

from engage_core.contacts.model import Contact, ContactFilter
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.gateway import InboundMessage
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.messages import Message, MessageDraft, apply_receipt
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database

from .concurrency import at_once, outcome
from .conftest import START

PHONE = "+966501234567"
DEADLINE_SECONDS = 120.0
CREDENTIALS = CredentialsInput(username="acme.shop", password="secret")
"""A sandbox login that needs no 2FA."""


@pytest.fixture
def sandbox(clock: FakeClock) -> SandboxGateway:
    return SandboxGateway(clock)


@pytest.fixture
def messaging(database: Database, clock: FakeClock, sandbox: SandboxGateway) -> Services:
    """The services over SQL with the sandbox gateway calling back into their inbox."""
    services = Services.build(database.uow, clock, gateway=sandbox)
    sandbox.attach(services.inbox)
    return services


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _draft(contact: Contact, **fields: object) -> MessageDraft:
    values: dict[str, object] = {
        "contact_id": contact.id,
        "direction": "inbound",
        "channel": "whatsapp",
        "content": "Hello",
        "status": "delivered",
    }
    return MessageDraft(**(values | fields))  # type: ignore[arg-type]


def _add(database: Database, account: int, draft: MessageDraft, now: object = START) -> Message:
    with database.uow.workspace(account) as uow:
        message = uow.messages.add(draft, now)  # type: ignore[arg-type]
        uow.commit()
    return message


def _get(database: Database, account: int, message_id: int) -> Message | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.messages.get(message_id)


def _connect_whatsapp(messaging: Services, sandbox: SandboxGateway, account: int) -> str:
    started = messaging.channels.connect_qr(account, "whatsapp")
    pid = started.channel.provider_account_id or ""
    sandbox.scan(pid)
    return pid


def _events(database: Database, account: int, name: str) -> list[DomainEvent]:
    return [e for e in database.outbox_events(account) if e.name == name]


# -- the repository ------------------------------------------------------------------------------


def test_a_message_round_trips(database: Database, account: int, make_contact: Callable[..., Contact]) -> None:
    """Every field of an added message reads back as it was written."""
    contact = make_contact()
    draft = _draft(
        contact, direction="outbound", status="failed", error="No account", provider_message_id="p-1", sent_at=START
    )
    added = _add(database, account, draft)
    assert _get(database, account, added.id) == added
    assert (added.created_at, added.updated_at, added.error, added.sent_at) == (START, START, "No account", START)


def test_a_message_of_another_account_is_not_found(
    database: Database, account: int, other: int, make_contact: Callable[..., Contact]
) -> None:
    """get and by_provider_id see only the account's own messages."""
    added = _add(database, account, _draft(make_contact(), provider_message_id="p-1"))
    with database.uow.workspace(other, readonly=True) as uow:
        assert (uow.messages.get(added.id), uow.messages.by_provider_id("whatsapp", "p-1")) == (None, None)


def test_by_provider_id_matches_the_channel_too(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """The same provider id on another channel is another message."""
    contact = make_contact()
    whatsapp = _add(database, account, _draft(contact, provider_message_id="p-1"))
    telegram = _add(database, account, _draft(contact, channel="telegram", provider_message_id="p-1"))
    with database.uow.workspace(account, readonly=True) as uow:
        found = (uow.messages.by_provider_id("whatsapp", "p-1"), uow.messages.by_provider_id("telegram", "p-1"))
    assert found == (whatsapp, telegram)


def test_a_provider_id_is_stored_once_per_channel(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """A second message with the channel's provider id is refused; the transaction stays usable."""
    contact = make_contact()
    with database.uow.workspace(account) as uow:
        uow.messages.add(_draft(contact, provider_message_id="p-1"), START)
        with pytest.raises(ValueError, match="provider message id"):
            uow.messages.add(_draft(contact, provider_message_id="p-1"), START)
        uow.messages.add(_draft(contact, content="After"), START)
        uow.commit()
    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.messages.for_contact(contact.id, None, PageRequest()).total == 2


def test_update_stores_the_changing_fields_only(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """status, sent_at, error, provider id and updated_at change; content and created_at do not."""
    added = _add(database, account, _draft(make_contact(), direction="outbound", status="pending"))
    later = START + timedelta(minutes=1)
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
    with database.uow.workspace(account) as uow:
        uow.messages.update(changed)
        uow.commit()
    expected = attrs.evolve(changed, content=added.content, created_at=added.created_at)
    assert _get(database, account, added.id) == expected


def test_update_of_another_accounts_message_changes_nothing(
    database: Database, account: int, other: int, make_contact: Callable[..., Contact]
) -> None:
    """The account filter applies to writes."""
    added = _add(database, account, _draft(make_contact()))
    with database.uow.workspace(other) as uow:
        uow.messages.update(attrs.evolve(added, status="read"))
        uow.commit()
    assert _get(database, account, added.id) == added


def test_for_contact_is_newest_first_with_ties_by_id(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Equal created_at: the later insert comes first; older messages after."""
    contact = make_contact()
    old = _add(database, account, _draft(contact, content="old"), START - timedelta(minutes=1))
    first = _add(database, account, _draft(contact, content="first"))
    second = _add(database, account, _draft(contact, content="second"))
    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.messages.for_contact(contact.id, None, PageRequest())
    assert [m.id for m in page.items] == [second.id, first.id, old.id]


def test_for_contact_filters_by_direction_and_pages(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """direction keeps only its messages; total counts them all, a page holds per_page."""
    contact = make_contact()
    for n in range(5):
        _add(database, account, _draft(contact, direction="outbound", status="sent", content=f"out {n}"))
        _add(database, account, _draft(contact, content=f"in {n}"))
    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.messages.for_contact(contact.id, "outbound", PageRequest(page=2, per_page=2))
    assert (page.total, [m.content for m in page.items]) == (5, ["out 2", "out 1"])


def test_for_contact_past_the_end_is_empty_with_the_total(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """A page beyond the last has no items and the right total."""
    contact = make_contact()
    _add(database, account, _draft(contact))
    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.messages.for_contact(contact.id, None, PageRequest(page=3))
    assert (page.total, list(page.items)) == (1, [])


def test_deleting_the_contact_deletes_its_messages(
    database: Database, account: int, make_contact: Callable[..., Contact], services: Services
) -> None:
    """Messages go with their contact (ON DELETE CASCADE)."""
    contact = make_contact()
    added = _add(database, account, _draft(contact))
    services.contacts.delete(account, contact.id)
    assert _get(database, account, added.id) is None


def test_mark_read_reads_only_the_contacts_unread_inbound(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Inbound not-read messages of that contact become read with updated_at; the count is returned."""
    contact, stranger = make_contact(), make_contact()
    unread = [_add(database, account, _draft(contact, channel=c)) for c in ("whatsapp", "telegram")]
    outbound = _add(database, account, _draft(contact, direction="outbound", status="delivered"))
    elsewhere = _add(database, account, _draft(stranger))
    later = START + timedelta(minutes=5)
    with database.uow.workspace(account) as uow:
        count = uow.messages.mark_read(contact.id, later)
        uow.commit()
    statuses = [_get(database, account, m.id) for m in (*unread, outbound, elsewhere)]
    assert count == 2
    assert [(m.status, m.updated_at) for m in statuses if m is not None] == [
        ("read", later),
        ("read", later),
        ("delivered", START),
        ("delivered", START),
    ]


def test_a_message_is_stored_only_with_its_transaction(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Leaving the unit of work without commit keeps neither the message nor its event."""
    contact = make_contact()
    with database.uow.workspace(account) as uow:
        message = uow.messages.add(_draft(contact), START)
        uow.emit(DomainEvent("message.received", message.event_payload(), START))
    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.messages.for_contact(contact.id, None, PageRequest()).total == 0
    assert _events(database, account, "message.received") == []


# -- contact handles -----------------------------------------------------------------------------


def test_a_handle_links_both_ways(database: Database, account: int, make_contact: Callable[..., Contact]) -> None:
    """contact_for finds the contact by handle, handle_of the handle by contact."""
    contact = make_contact(type="instagram", phone=None)
    with database.uow.workspace(account) as uow:
        uow.handles.link(contact.id, "instagram", "ada.codes")
        uow.commit()
    with database.uow.workspace(account, readonly=True) as uow:
        found = (uow.handles.contact_for("instagram", "ada.codes"), uow.handles.handle_of(contact.id, "instagram"))
    assert found == (contact.id, "ada.codes")


def test_linking_again_replaces_the_contacts_handle(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """The old handle no longer finds the contact; the new one does."""
    contact = make_contact(type="instagram", phone=None)
    with database.uow.workspace(account) as uow:
        uow.handles.link(contact.id, "instagram", "old")
        uow.handles.link(contact.id, "instagram", "new")
        uow.commit()
    with database.uow.workspace(account, readonly=True) as uow:
        found = (uow.handles.contact_for("instagram", "old"), uow.handles.handle_of(contact.id, "instagram"))
    assert found == (None, "new")


def test_a_handle_of_another_contact_is_refused(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """ValueError, like the fake; the owner keeps it."""
    ada, eve = make_contact(type="instagram", phone=None), make_contact(type="instagram", phone=None)
    with database.uow.workspace(account) as uow:
        uow.handles.link(ada.id, "instagram", "ada")
        with pytest.raises(ValueError, match="another contact"):
            uow.handles.link(eve.id, "instagram", "ada")
        assert uow.handles.contact_for("instagram", "ada") == ada.id


def test_handles_are_per_channel_and_per_account(
    database: Database, account: int, other: int, make_contact: Callable[..., Contact]
) -> None:
    """The same handle on LinkedIn, or in another account, is not found."""
    contact = make_contact(type="instagram", phone=None)
    with database.uow.workspace(account) as uow:
        uow.handles.link(contact.id, "instagram", "ada")
        uow.commit()
    with database.uow.workspace(other, readonly=True) as elsewhere:
        in_other_account = elsewhere.handles.contact_for("instagram", "ada")
    with database.uow.workspace(account, readonly=True) as uow:
        assert (uow.handles.contact_for("linkedin", "ada"), in_other_account) == (None, None)


def test_a_handle_goes_with_its_contact(
    database: Database, account: int, make_contact: Callable[..., Contact], services: Services
) -> None:
    """Deleting the contact frees its handle."""
    contact = make_contact(type="instagram", phone=None)
    with database.uow.workspace(account) as uow:
        uow.handles.link(contact.id, "instagram", "ada")
        uow.commit()
    services.contacts.delete(account, contact.id)
    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.handles.contact_for("instagram", "ada") is None


# -- the service over SQL and the sandbox --------------------------------------------------------


def test_a_send_is_stored_sent_with_message_sent_in_the_outbox(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway, make_contact: Callable[..., Contact]
) -> None:
    """Through the connected account: stored sent, and message.sent names the stored message."""
    _connect_whatsapp(messaging, sandbox, account)
    result = messaging.messages.send(account, SendInput(make_contact(phone=PHONE).id, "Hello"))
    stored = _get(database, account, result.message.id)
    assert stored is not None and (stored.status, stored.provider_message_id) == ("sent", "sbx-msg-1")
    assert [e.payload["id"] for e in _events(database, account, "message.sent")] == [stored.id]


def test_a_send_without_a_channel_is_stored_failed_without_an_event(
    database: Database, account: int, messaging: Services, make_contact: Callable[..., Contact]
) -> None:
    """No connected account: failed with the reason, no message.sent."""
    result = messaging.messages.send(account, SendInput(make_contact().id, "Hello"))
    stored = _get(database, account, result.message.id)
    assert stored is not None and stored.status == "failed" and stored.error == result.message.error
    assert _events(database, account, "message.sent") == []


def test_a_provider_outage_keeps_the_message_failed_with_its_error(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway, make_contact: Callable[..., Contact]
) -> None:
    """Nothing is lost: the message is stored with the provider's error."""
    _connect_whatsapp(messaging, sandbox, account)
    sandbox.outage("Provider down")
    result = messaging.messages.send(account, SendInput(make_contact(phone=PHONE).id, "Hello"))
    stored = _get(database, account, result.message.id)
    assert stored is not None and (stored.status, stored.error) == ("failed", "Provider down")


def test_an_inbound_message_creates_the_contact_and_both_events(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """A new sender: contact.created then message.received, committed with the message."""
    pid = _connect_whatsapp(messaging, sandbox, account)
    sandbox.inject_message(pid, PHONE, "Hi", sender_name="Ada")
    names = [e.name for e in database.outbox_events(account) if e.name.startswith(("contact.", "message."))]
    received = _events(database, account, "message.received")[0].payload
    stored = _get(database, account, received["id"])
    assert names == ["contact.created", "message.received"]
    assert stored is not None and (stored.direction, stored.status, stored.content) == ("inbound", "delivered", "Hi")


def test_an_instagram_sender_is_found_again_by_handle(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """Two messages from one handle make one contact, whose handle replies go to."""
    pid = messaging.channels.connect_credentials(account, "instagram", CREDENTIALS).channel.provider_account_id
    assert pid is not None
    sandbox.inject_message(pid, "@ada.codes", "One")
    sandbox.inject_message(pid, "ada.codes", "Two")
    contact_ids = {e.payload["contact_id"] for e in _events(database, account, "message.received")}
    assert len(contact_ids) == 1
    assert messaging.messages.send(account, SendInput(contact_ids.pop(), "Reply")).success
    assert sandbox.account(pid).sent[0].recipient == "ada.codes"


def test_the_same_inbound_message_twice_is_stored_once(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """A repeated provider message id: one message, one event."""
    pid = _connect_whatsapp(messaging, sandbox, account)
    sandbox.inject_message(pid, PHONE, "Hi", provider_message_id="wamid-1")
    sandbox.inject_message(pid, PHONE, "Hi", provider_message_id="wamid-1")
    assert len(_events(database, account, "message.received")) == 1


def test_identical_inbound_messages_racing_are_stored_once(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """Ten copies of a new sender's message received at once: every one returns the one message
    stored, with one contact and one `message.received`."""
    inbound = InboundMessage(_connect_whatsapp(messaging, sandbox, account), "wamid-1", PHONE, "Hi", START)

    results = at_once(10, lambda _n: messaging.messages.receive(account, inbound))

    assert [outcome(r) for r in results] == ["ok"] * 10
    returned = {r.id for r in results if isinstance(r, Message)}
    contacts = messaging.contacts.find(account, ContactFilter(), PageRequest()).items
    stored = [m.id for c in contacts for m in messaging.messages.for_contact(account, c.id, None, PageRequest()).items]
    assert (len(contacts), stored) == (1, list(returned))
    assert len(_events(database, account, "message.received")) == 1


def test_receipts_never_move_a_message_backwards(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway, make_contact: Callable[..., Contact]
) -> None:
    """read, then a late delivered: the message stays read."""
    pid = _connect_whatsapp(messaging, sandbox, account)
    sent = messaging.messages.send(account, SendInput(make_contact(phone=PHONE).id, "Hello")).message
    sandbox.inject_receipt(pid, sent.provider_message_id or "", "read")
    sandbox.inject_receipt(pid, sent.provider_message_id or "", "delivered")
    stored = _get(database, account, sent.id)
    assert stored is not None and stored.status == "read"


def test_a_receipt_racing_another_applies_after_it(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """A `read` receipt arriving while a `delivered` one is being applied waits for it, so the
    slower `delivered` never overwrites `read` (a locked read on PostgreSQL; SQLite's writers take
    turns)."""
    sent = _add(database, account, _draft(make_contact(), direction="outbound", status="sent", provider_message_id="p"))
    reading = threading.Event()

    def receipt(status: str, *, slowly: bool) -> None:
        with database.uow.workspace(account) as uow:
            message = uow.messages.by_provider_id("whatsapp", "p")
            assert message is not None
            if slowly:
                reading.set()
                time.sleep(0.3)  # the other receipt reads meanwhile
            moved = apply_receipt(message, status, START)
            if moved is not None:
                uow.messages.update(moved)
            uow.commit()

    def late_receipt() -> None:
        reading.wait(timeout=30)
        receipt("read", slowly=False)

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(receipt, "delivered", slowly=True), pool.submit(late_receipt)]
        for future in futures:
            future.result(timeout=DEADLINE_SECONDS)
    stored = _get(database, account, sent.id)
    assert stored is not None and stored.status == "read"
