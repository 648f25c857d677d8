"""Support tickets through the SQL ticket repository and TicketService (reference: engage_core.testing)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import attrs
import pytest
from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.support.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.accounts.tables import account_counters
from engage_sql.support.tables import tickets

from .conftest import START

DEADLINE_SECONDS = 120.0


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _draft(number: int = 1, **fields: Any) -> TicketDraft:
    defaults: dict[str, Any] = {
        "ticket_id": f"TKT-{number:06d}",
        "subject": f"Ticket {number}",
        "body": "Something broke",
        "priority": "medium",
        "department_id": None,
    }
    return TicketDraft(**(defaults | fields))


def _add(database: Database, account: int, draft: TicketDraft, now: Any = START) -> Ticket:
    with database.uow.workspace(account) as uow:
        ticket = uow.tickets.add(draft, now)
        uow.commit()
    return ticket


def _get(database: Database, account: int, ticket_id: int) -> Ticket | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.tickets.get(ticket_id)


def _subjects(database: Database, account: int, filters: TicketFilter, page: PageRequest | None = None) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [t.subject for t in uow.tickets.find(filters, page or PageRequest(per_page=100)).items]


def _ticket_events(database: Database, account: int) -> list[tuple[str, Any]]:
    return [(e.name, e.payload) for e in database.outbox_events(account) if e.name.startswith("ticket.")]


# -- the repository --------------------------------------------------------------------------------


def test_added_ticket_reads_back_equal(database: Database, account: int) -> None:
    """Every field of a ticket, its department joined in, survives the round trip."""
    with database.uow.workspace(account) as uow:
        department = uow.departments.add("Billing", START)
        member = uow.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", START)
        added = uow.tickets.add(
            _draft(7, priority="high", department_id=department.id, assignee_id=member.id, status="answered"), START
        )
        uow.commit()

    assert _get(database, account, added.id) == added == Ticket(
        added.id, "TKT-000007", "Ticket 7", "Something broke", "high", "answered", department, member.id,
        None, None, START, START,
    )  # fmt: skip


def test_update_stores_every_changing_field(database: Database, account: int) -> None:
    """`update` stores status, priority, department, assignee, last reply, closing time and `updated_at`."""
    added = _add(database, account, _draft())
    later = START + timedelta(hours=2)
    with database.uow.workspace(account) as uow:
        department = uow.departments.add("Sales", START)
        member = uow.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", START)
        changed = Ticket(
            added.id, added.ticket_id, added.subject, added.body, "low", "closed", department, member.id,
            later, later, START, later,
        )  # fmt: skip
        uow.tickets.update(changed)
        uow.commit()

    assert _get(database, account, added.id) == changed


def test_a_reference_is_unique_per_account(database: Database, account: int, other: int) -> None:
    """A second `TKT-000001` in one account is refused by the database; another account may have its own."""
    _add(database, account, _draft(1))
    _add(database, other, _draft(1))

    with pytest.raises(IntegrityError, match=r"(?i)unique|duplicate"):
        _add(database, account, _draft(1, subject="Again"))


def test_missing_and_foreign_tickets_are_none(database: Database, account: int, other: int) -> None:
    """An unknown id and another account's ticket both read as None."""
    theirs = _add(database, other, _draft())

    assert (_get(database, account, theirs.id), _get(database, account, theirs.id + 1000)) == (None, None)


def test_updating_another_accounts_ticket_does_nothing(database: Database, account: int, other: int) -> None:
    """`update` with another account's ticket id changes nothing."""
    theirs = _add(database, other, _draft())

    with database.uow.workspace(account) as uow:
        uow.tickets.update(attrs.evolve(theirs, status="closed"))
        uow.commit()

    assert _get(database, other, theirs.id) == theirs


def test_find_lists_newest_first(database: Database, account: int) -> None:
    """Tickets come newest first by `created_at`, then by id for equal times."""
    _add(database, account, _draft(1, subject="old"), START)
    _add(database, account, _draft(2, subject="tie a"), START + timedelta(hours=1))
    _add(database, account, _draft(3, subject="tie b"), START + timedelta(hours=1))

    assert _subjects(database, account, TicketFilter()) == ["tie b", "tie a", "old"]


def test_find_filters_by_status_and_priority(database: Database, account: int) -> None:
    """`status` and `priority` each narrow the list, and together both apply."""
    _add(database, account, _draft(1, subject="open high", priority="high"))
    _add(database, account, _draft(2, subject="answered high", priority="high", status="answered"))
    _add(database, account, _draft(3, subject="open low", priority="low"))

    found = (
        _subjects(database, account, TicketFilter(status="open")),
        _subjects(database, account, TicketFilter(priority="high")),
        _subjects(database, account, TicketFilter(status="open", priority="high")),
    )

    assert found == (["open low", "open high"], ["answered high", "open high"], ["open high"])


def test_find_pages_and_counts(database: Database, account: int) -> None:
    """A page holds `per_page` tickets at its offset; `total` counts every match; past the end is empty."""
    for n in range(1, 6):
        _add(database, account, _draft(n), START + timedelta(minutes=n))

    with database.uow.workspace(account, readonly=True) as uow:
        second = uow.tickets.find(TicketFilter(), PageRequest(page=2, per_page=2))
        beyond = uow.tickets.find(TicketFilter(), PageRequest(page=4, per_page=2))

    assert ([t.subject for t in second.items], second.total, beyond.items, beyond.total) == (
        ["Ticket 3", "Ticket 2"],
        5,
        [],
        5,
    )


def test_find_sees_only_the_accounts_tickets(database: Database, account: int, other: int) -> None:
    """Another account's tickets are neither listed nor counted."""
    _add(database, account, _draft(1, subject="mine"))
    _add(database, other, _draft(1, subject="theirs"))

    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.tickets.find(TicketFilter(), PageRequest())

    assert ([t.subject for t in page.items], page.total) == (["mine"], 1)


def test_replies_read_back_oldest_first(database: Database, account: int) -> None:
    """Replies come back oldest first, ids breaking ties, each as stored."""
    ticket = _add(database, account, _draft())
    later = START + timedelta(minutes=5)
    with database.uow.workspace(account) as uow:
        late = uow.tickets.add_reply(ticket.id, ReplyDraft("Later", "admin"), later)
        first = uow.tickets.add_reply(ticket.id, ReplyDraft("First", "client", author_id=42), START)
        second = uow.tickets.add_reply(ticket.id, ReplyDraft("Second", "client"), START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        stored = uow.tickets.replies(ticket.id)

    assert (stored, first) == ([first, second, late], TicketReply(first.id, "First", "client", 42, START))


def test_another_accounts_replies_are_invisible(database: Database, account: int, other: int) -> None:
    """`replies` of another account's ticket is empty."""
    theirs = _add(database, other, _draft())
    with database.uow.workspace(other) as uow:
        uow.tickets.add_reply(theirs.id, ReplyDraft("Private", "client"), START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.tickets.replies(theirs.id) == []


def test_next_number_counts_per_account(database: Database, account: int, other: int) -> None:
    """Each account's numbers run 1, 2, 3 on their own."""

    def take(account_id: int) -> int:
        with database.uow.workspace(account_id) as uow:
            number = uow.tickets.next_number()
            uow.commit()
        return number

    assert [take(account), take(account), take(other), take(account)] == [1, 2, 1, 3]


def test_next_number_recreates_a_missing_counter_row(database: Database, account: int) -> None:
    """Without a counter row, the next number follows the tickets the account has."""
    for n in (1, 2):
        _add(database, account, _draft(n))
    with database.engine.begin() as connection:
        connection.execute(delete(account_counters).where(account_counters.c.account_id == account))

    with database.uow.workspace(account) as uow:
        number = uow.tickets.next_number()
        uow.commit()

    assert number == 3


def test_a_rolled_back_number_is_handed_out_again(database: Database, account: int) -> None:
    """A number taken in a transaction that rolls back is not used up."""
    with database.uow.workspace(account) as uow:
        uow.tickets.next_number()  # no commit

    with database.uow.workspace(account) as uow:
        number = uow.tickets.next_number()
        uow.commit()

    assert number == 1


# -- the service over SQL: references, states and events -------------------------------------------


def test_concurrent_creates_get_distinct_sequential_references(services: Services, account: int) -> None:
    """Twenty tickets opened at once by twenty threads get TKT-000001 to TKT-000020, each once."""
    threads = 20
    start = threading.Barrier(threads)

    def open_ticket(n: int) -> str:
        start.wait(timeout=30)
        return services.tickets.create(account, TicketInput(f"Ticket {n}", "Help")).ticket_id

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(open_ticket, n) for n in range(threads)]
        references = [future.result(timeout=DEADLINE_SECONDS) for future in futures]

    assert sorted(references) == [f"TKT-{n:06d}" for n in range(1, threads + 1)]


def test_creating_records_ticket_created_in_the_outbox(database: Database, services: Services, account: int) -> None:
    """Opening a ticket commits `ticket.created` with the ticket's payload."""
    ticket = services.tickets.create(account, TicketInput("Hello", "Help", priority="high"))

    assert _ticket_events(database, account) == [("ticket.created", dict(ticket.event_payload()))]


def test_replies_move_the_status_and_record_their_events(
    database: Database, services: Services, clock: FakeClock, account: int
) -> None:
    """An admin reply answers the ticket, a client reply reopens it; each records its events."""
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    clock.advance(seconds=60)
    answered = services.tickets.reply(account, ticket.id, "We are on it", type="admin")
    clock.advance(seconds=60)
    reopened = services.tickets.reply(account, ticket.id, "Still broken")

    stored = services.tickets.get(account, ticket.id)
    assert (answered.ticket.status, reopened.ticket.status, stored.ticket) == ("answered", "open", reopened.ticket)
    assert [r.reply for r in stored.replies] == ["We are on it", "Still broken"]
    assert [name for name, _ in _ticket_events(database, account)] == [
        "ticket.created",
        "ticket.replied",
        "ticket.updated",
        "ticket.replied",
        "ticket.updated",
    ]


def test_a_closed_ticket_refuses_replies_and_writes_nothing(
    database: Database, services: Services, account: int
) -> None:
    """A reply to a closed ticket is a ValidationFailed on `reply`; no reply or event is stored."""
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    services.tickets.close(account, ticket.id)

    with pytest.raises(ValidationFailed) as raised:
        services.tickets.reply(account, ticket.id, "Hello?")

    assert list(raised.value.errors) == ["reply"]
    assert (services.tickets.get(account, ticket.id).replies, [n for n, _ in _ticket_events(database, account)]) == (
        [],
        ["ticket.created", "ticket.closed"],
    )


def test_replies_racing_a_close_never_reply_to_a_closed_ticket(services: Services, account: int) -> None:
    """Concurrent client replies and a close: the ticket ends closed, holding only the replies accepted."""
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    threads = 8
    start = threading.Barrier(threads)

    def act(n: int) -> str:
        start.wait(timeout=30)
        if n == 0:
            return services.tickets.close(account, ticket.id).status
        try:
            return services.tickets.reply(account, ticket.id, f"Reply {n}").ticket.status
        except ValidationFailed:
            return "refused"

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(act, n) for n in range(threads)]
        outcomes = [future.result(timeout=DEADLINE_SECONDS) for future in futures]

    thread = services.tickets.get(account, ticket.id)
    assert (thread.ticket.status, len(thread.replies)) == ("closed", outcomes.count("open"))


def test_changing_the_assignee_records_ticket_updated(database: Database, services: Services, account: int) -> None:
    """Assigning a team member stores the assignee and commits `ticket.updated` with it."""
    with database.uow.workspace(account) as uow:
        member = uow.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", START)
        uow.commit()
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))

    changed = services.tickets.update(account, ticket.id, TicketPatch(assignee_id=member.id))

    assert (services.tickets.get(account, ticket.id).ticket.assignee_id, _ticket_events(database, account)[-1]) == (
        member.id,
        ("ticket.updated", dict(changed.event_payload())),
    )


def test_unassign_member_clears_only_that_members_tickets(database: Database, account: int) -> None:
    """`unassign_member` clears the member's tickets (ascending id, new `updated_at`) and no others."""
    later = START + timedelta(hours=1)
    with database.uow.workspace(account) as uow:
        ada = uow.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", START)
        bob = uow.team.add(MemberDraft("Bob", "bob@example.com", "agent"), "hash", START)
        first = uow.tickets.add(_draft(1, assignee_id=ada.id), START)
        kept = uow.tickets.add(_draft(2, assignee_id=bob.id), START)
        second = uow.tickets.add(_draft(3, assignee_id=ada.id), START)
        unassigned = uow.tickets.unassign_member(ada.id, later)
        uow.commit()

    assert [(t.id, t.assignee_id, t.updated_at) for t in unassigned] == [
        (first.id, None, later),
        (second.id, None, later),
    ]
    assert _get(database, account, kept.id) == kept


def test_a_missing_department_cannot_be_referenced(database: Database, account: int, other: int) -> None:
    """The database refuses a ticket filed under another account's department."""
    with database.uow.workspace(other) as uow:
        theirs = uow.departments.add("Billing", START)
        uow.commit()

    row = {
        "account_id": account, "ticket_id": "TKT-000001", "subject": "s", "body": "b", "priority": "low",
        "status": "open", "department_id": theirs.id, "created_at": START, "updated_at": START,
    }  # fmt: skip
    with database.engine.connect() as connection, pytest.raises(IntegrityError, match=r"(?i)foreign key"):
        connection.execute(insert(tickets), row)

    with database.engine.connect() as connection:
        assert connection.execute(select(tickets.c.id)).all() == []


def test_another_accounts_ticket_is_not_found_through_the_service(services: Services, account: int, other: int) -> None:
    """Reading, replying to or closing another account's ticket is NotFound."""
    theirs = services.tickets.create(other, TicketInput("Private", "Secret"))

    for act in (
        lambda: services.tickets.get(account, theirs.id),
        lambda: services.tickets.reply(account, theirs.id, "Hijacked"),
        lambda: services.tickets.close(account, theirs.id),
    ):
        with pytest.raises(NotFound):
            act()


def test_by_reference_finds_only_the_accounts_ticket(database: Database, account: int, other: int) -> None:
    """`by_reference` reads the account's ticket with that reference; another account's is None."""
    mine = _add(database, account, _draft(3))
    _add(database, other, _draft(4))

    with database.uow.workspace(account, readonly=True) as uow:
        found = (uow.tickets.by_reference("TKT-000003"), uow.tickets.by_reference("TKT-000004"))

    assert found == (mine, None)
