"""Support tickets on SQL only: the schema's unique reference and foreign keys, a missing counter row,
and concurrent creates and replies (the rest is in tests/contract/test_contract_support.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import Ticket, TicketDraft
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


def test_a_reference_is_unique_per_account(database: Database, account: int, other: int) -> None:
    """A second `TKT-000001` in one account is refused by the database; another account may have its own."""
    _add(database, account, _draft(1))
    _add(database, other, _draft(1))

    with pytest.raises(IntegrityError, match=r"(?i)unique|duplicate"):
        _add(database, account, _draft(1, subject="Again"))


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
