"""`MessageRepository.conversations` on SQL: the summary rows kept beside the messages agree with the
in-memory reference (`engage_core.testing`), under random sequences of writes, on deep pages and under
concurrent writers, and a page is read through indexes only (the listing's rules, on every adapter, are
in tests/contract/test_contract_messaging.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.handling import HANDLED_BY, ConversationHandling
from engage_core.messaging.messages import MESSAGE_STATUSES, MessageDraft
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_core.unit_of_work import WorkspaceUnitOfWork
from engage_sql import Database
from engage_sql.messaging import messages as message_sql

from .concurrency import at_once
from .conftest import START

CHANNELS = ("whatsapp", "telegram", "instagram")
INSTANTS = tuple(START + timedelta(minutes=m) for m in (0, 0, 1, 2, -1))
"""When messages are added: equal instants (ties broken by id), and one earlier than the others."""
ALL = PageRequest(per_page=100)


def _draft(contact_id: int, **fields: Any) -> MessageDraft:
    values: dict[str, Any] = {
        "contact_id": contact_id,
        "direction": "inbound",
        "channel": "whatsapp",
        "content": "Hello",
        "status": "delivered",
    }
    return MessageDraft(**(values | fields))


def _add(database: Database, account: int, draft: MessageDraft, now: datetime = START) -> None:
    with database.uow.workspace(account) as uow:
        uow.messages.add(draft, now)
        uow.commit()


def _list(database: Database, account: int, page: PageRequest = ALL, **filters: Any) -> Page[ConversationSummary]:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.messages.conversations(ConversationFilter(**filters), page)


def _rows(page: Page[ConversationSummary]) -> list[tuple[str, str, str, int, str]]:
    return [(s.contact_name, s.channel, s.last_message, s.unread_count, s.handled_by) for s in page.items]


def test_a_deep_page_matches_the_in_memory_reference(database: Database) -> None:
    """Offsets of 100 and more (rows chosen from the index first) agree with the fake, ties included,
    also filtered by who answers (and past the end)."""
    with database.uow.admin() as admin:
        account = admin.accounts.add("Deep", uuid.uuid4().hex * 2, "eng_deep…", START).id
        admin.commit()

    def fill(uow: WorkspaceUnitOfWork) -> list[Page[ConversationSummary]]:
        ids = [uow.contacts.add(ContactDraft(name=f"C{n}", type="telegram"), START).id for n in range(260)]
        for n, contact_id in enumerate(ids):
            channel = CHANNELS[n % 3]
            uow.messages.add(_draft(contact_id, channel=channel, content=f"m{n}"), START + timedelta(n // 2))
            state = "pending" if n % 2 == 0 else "human" if n % 10 == 1 else None  # 130, 26, and 104 with the AI
            if state is not None:
                uow.conversation_handling.put(ConversationHandling(contact_id, state, updated_at=START))
        requests: list[tuple[PageRequest, str | None, str | None]] = [
            (PageRequest(page=9, per_page=13), None, None),
            (PageRequest(page=2, per_page=100), None, None),
            (PageRequest(page=3, per_page=20), "whatsapp", None),
            (PageRequest(page=2, per_page=100), None, "ai"),
            (PageRequest(page=11, per_page=12), None, "pending"),
            (PageRequest(page=3, per_page=5), "whatsapp", "human"),
            (PageRequest(page=9, per_page=20), None, "pending"),
        ]
        return [
            uow.messages.conversations(ConversationFilter(channel=c, handled_by=h), page) for page, c, h in requests
        ]

    with InMemoryUnitOfWorkFactory().workspace(1) as reference:
        expected = [(p.total, _rows(p)) for p in fill(reference)]
    with database.uow.workspace(account) as uow:  # rolled back: nothing is kept
        found = [(p.total, _rows(p)) for p in fill(uow)]
    assert found == expected


def test_a_page_reads_only_through_indexes(database: Database, backend: str) -> None:
    """SQLite's plans: the summary index searched in order, contacts and messages by primary key,
    no table scanned; only a deep page sorts (its own rows, chosen first). PostgreSQL's plans with
    realistic data are in docs/performance.md."""
    if backend != "sqlite":
        pytest.skip("on a nearly empty PostgreSQL database the planner rightly prefers sequential scans")
    params = {"account": 1, "scope": "*", "limit": 15, "offset": 0, "contact": 1}
    plans = {}
    with database.engine.connect() as connection:
        for name in ("_PAGE", "_DEEP_PAGE", "_ONE_CONTACT"):
            compiled = getattr(message_sql, name).compile(connection)
            rows = connection.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + str(compiled), tuple(params[key] for key in compiled.positiontup or ())
            )
            plans[name] = [row[3] for row in rows]
    tables = ("conversations", "contacts", "messages", "conversation_totals", "conversation_handling")
    scans = [(name, step) for name, plan in plans.items() for step in plan if step.startswith(tables_scanned(tables))]
    sorts = [(name, step) for name, plan in plans.items() for step in plan if "TEMP B-TREE" in step]
    assert (scans, [name for name, _ in sorts]) == ([], ["_DEEP_PAGE"])
    assert all(any("messages USING INTEGER PRIMARY KEY" in step for step in plan) for plan in plans.values())
    assert any("ix_conversations_newest" in step for step in plans["_PAGE"])


def tables_scanned(tables: tuple[str, ...]) -> tuple[str, ...]:
    """The plan steps that read a whole table (SQLite: `SCAN name`, with no index to search)."""
    return tuple(f"SCAN {table}" for table in tables)


# -- the reference, over random sequences of writes ---------------------------------------------


@attrs.frozen
class Add:
    contact: int
    direction: str
    channel: str
    status: str
    at: int


@attrs.frozen
class Update:
    message: int
    status: str


@attrs.frozen
class MarkRead:
    contact: int


@attrs.frozen
class Delete:
    contact: int


@attrs.frozen
class Handle:
    contact: int
    handled_by: str


Step = Add | Update | MarkRead | Delete | Handle
CONTACTS = 3

steps = st.one_of(
    st.builds(
        Add,
        contact=st.integers(0, CONTACTS - 1),
        direction=st.sampled_from(["inbound", "inbound", "outbound"]),
        channel=st.sampled_from(CHANNELS),
        status=st.sampled_from(MESSAGE_STATUSES),
        at=st.integers(0, len(INSTANTS) - 1),
    ),
    st.builds(
        Add, st.integers(0, CONTACTS - 1), st.just("inbound"), st.just("whatsapp"), st.just("delivered"), st.just(2)
    ),
    st.builds(Update, message=st.integers(0, 30), status=st.sampled_from(MESSAGE_STATUSES)),
    st.builds(MarkRead, contact=st.integers(0, CONTACTS - 1)),
    st.builds(Delete, contact=st.integers(0, CONTACTS - 1)),
    st.builds(Handle, contact=st.integers(0, CONTACTS - 1), handled_by=st.sampled_from(HANDLED_BY)),
)


def _replay(uow: WorkspaceUnitOfWork, sequence: list[Step]) -> list[object]:
    """Apply the steps through the port, then read every view of them: the same on either adapter."""
    contacts = [uow.contacts.add(ContactDraft(name=f"C{n}", type="telegram"), START).id for n in range(CONTACTS)]
    deleted: set[int] = set()
    added: list[int] = []
    results: list[object] = []
    for n, step in enumerate(sequence):
        later = START + timedelta(minutes=10 + n)
        if isinstance(step, Add) and step.contact not in deleted:
            draft = _draft(contacts[step.contact], direction=step.direction, channel=step.channel, status=step.status)
            added.append(uow.messages.add(attrs.evolve(draft, content=f"m{n}"), INSTANTS[step.at]).id)
        elif isinstance(step, Update) and added:
            message = uow.messages.get(added[step.message % len(added)])
            if message is not None:
                uow.messages.update(attrs.evolve(message, status=step.status, updated_at=later))
        elif isinstance(step, MarkRead) and step.contact not in deleted:
            results.append(uow.messages.mark_read(contacts[step.contact], later))
        elif isinstance(step, Delete):
            uow.contacts.delete(contacts[step.contact])
            deleted.add(step.contact)
        elif isinstance(step, Handle) and step.contact not in deleted:
            uow.conversation_handling.put(
                ConversationHandling(contacts[step.contact], step.handled_by, updated_at=later)
            )
    for channel in (None, *CHANNELS):
        for handled_by in (None, *HANDLED_BY):
            for page in (ALL, PageRequest(page=1, per_page=2), PageRequest(page=2, per_page=2)):
                found = uow.messages.conversations(ConversationFilter(channel=channel, handled_by=handled_by), page)
                results.append((found.total, _rows(found)))
    for n, contact_id in enumerate(contacts):
        found = uow.messages.conversations(ConversationFilter(contact_id=contact_id), ALL)
        messages = uow.messages.for_contact(contact_id, None, ALL)
        results.append((n, found.total, _rows(found), [(m.content, m.status) for m in messages.items]))
        for handled_by in HANDLED_BY:
            found = uow.messages.conversations(ConversationFilter(contact_id=contact_id, handled_by=handled_by), ALL)
            results.append((n, handled_by, found.total, _rows(found)))
    return results


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=st.lists(steps, max_size=25))
def test_summaries_match_the_in_memory_reference(database: Database, sequence: list[Step]) -> None:
    """After any sequence of adds, updates, mark-reads, contact deletions and changes of who answers,
    every listing (each filter, paged) and each contact's messages agree with the fake."""
    with database.uow.admin() as admin:
        account = admin.accounts.add("Property", uuid.uuid4().hex * 2, "eng_prop…", START).id
        admin.commit()

    with InMemoryUnitOfWorkFactory().workspace(1) as reference:
        expected = _replay(reference, sequence)
    with database.uow.workspace(account) as uow:  # rolled back: nothing is kept
        found = _replay(uow, sequence)

    assert found == expected


# -- concurrent writers --------------------------------------------------------------------------


def _unread_in_messages(database: Database, account: int, contact_id: int) -> int:
    """The contact's unread count computed from the messages themselves."""
    with database.uow.workspace(account, readonly=True) as uow:
        return sum(1 for m in uow.messages.for_contact(contact_id, None, ALL).items if m.is_unread)


@pytest.fixture
def inbox(database: Database, clock: FakeClock) -> tuple[Services, SandboxGateway]:
    """The services over SQL with the sandbox calling back into their inbox."""
    sandbox = SandboxGateway(clock)
    services = Services.build(database.uow, clock, gateway=sandbox)
    sandbox.attach(services.inbox)
    return services, sandbox


def test_concurrent_inbound_messages_for_one_contact_all_count(
    database: Database, account: int, inbox: tuple[Services, SandboxGateway], make_contact: Callable[..., Contact]
) -> None:
    """Twenty messages received at once: unread_count 20, one conversation."""
    services, sandbox = inbox
    started = services.channels.connect_qr(account, "whatsapp")
    pid = started.channel.provider_account_id or ""
    sandbox.scan(pid)
    contact = make_contact(phone="+966501234567")
    outcomes = at_once(20, lambda n: sandbox.inject_message(pid, "+966501234567", f"Hi {n}"))
    page = _list(database, account)
    assert [o for o in outcomes if isinstance(o, BaseException)] == []
    assert (page.total, [(s.contact_id, s.unread_count) for s in page.items]) == (1, [(contact.id, 20)])


def test_concurrent_messages_and_mark_reads_keep_the_count_right(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Inbound messages, status changes and mark-reads racing: the summary's count is the messages'."""
    contact = make_contact()
    for n in range(10):
        _add(database, account, _draft(contact.id, content=f"before {n}"))

    def work(n: int) -> None:
        with database.uow.workspace(account) as uow:
            if n % 4 == 0:
                uow.messages.mark_read(contact.id, START)
            elif n % 4 == 1:
                message = uow.messages.for_contact(contact.id, None, PageRequest(per_page=1)).items[0]
                uow.messages.update(attrs.evolve(uow.messages.get(message.id) or message, status="delivered"))
            else:
                uow.messages.add(_draft(contact.id, channel=CHANNELS[n % 3], content=f"during {n}"), START)
            uow.commit()

    outcomes = at_once(24, work)
    counts = [_list(database, account, channel=c, contact_id=contact.id) for c in (None, *CHANNELS)]
    expected = _unread_in_messages(database, account, contact.id)
    assert [o for o in outcomes if isinstance(o, BaseException)] == []
    assert counts[0].items[0].unread_count == expected
    assert sum(p.items[0].unread_count for p in counts[1:] if p.items) == expected


def test_concurrent_first_messages_count_every_conversation(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Twenty new conversations at once (each first message creates rows): the totals say 20."""
    contacts = [make_contact() for _ in range(20)]
    outcomes = at_once(20, lambda n: _add(database, account, _draft(contacts[n].id, channel=CHANNELS[n % 3])))
    totals = [_list(database, account, channel=c).total for c in (None, *CHANNELS)]
    assert [o for o in outcomes if isinstance(o, BaseException)] == []
    assert totals == [20, 7, 7, 6]


def test_contacts_deleted_while_messages_arrive_leave_the_totals_right(
    database: Database, account: int, services: Services, make_contact: Callable[..., Contact]
) -> None:
    """Deletes racing new messages for the same contacts: each total equals the summaries listed."""
    contacts = [make_contact() for _ in range(8)]
    for contact in contacts[::2]:
        _add(database, account, _draft(contact.id))

    def work(n: int) -> None:
        contact = contacts[n % 8]
        if n < 8 and n % 2 == 0:
            services.contacts.delete(account, contact.id)
        else:
            _add(database, account, _draft(contact.id, channel=CHANNELS[n % 3]))

    outcomes = at_once(24, work)
    unexpected = [o for o in outcomes if isinstance(o, BaseException) and not _is_gone(o)]
    pages = [_list(database, account, channel=c) for c in (None, *CHANNELS)]
    assert unexpected == []
    assert [p.total for p in pages] == [len(p.items) for p in pages]


def _is_gone(error: BaseException) -> bool:
    """A message for a contact deleted meanwhile is refused by its foreign key (or not found)."""
    return isinstance(error, NotFound) or "foreign key" in str(error).lower()
