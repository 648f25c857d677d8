"""Messages on SQL only: identical inbound messages and receipts racing in threads (the rest is in
tests/contract/test_contract_messaging.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from engage_core.contacts.model import Contact, ContactFilter
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.gateway import InboundMessage
from engage_core.messaging.messages import Message, MessageDraft, apply_receipt
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database

from .concurrency import at_once, outcome
from .conftest import START

PHONE = "+966501234567"
DEADLINE_SECONDS = 120.0


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
