"""Team members on SQL only: the schema's unique address key and the tickets' foreign key, and
concurrent adds (the rest is in tests/contract/test_contract_team.py)."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.team.model import MemberDraft, TeamMember
from engage_core.team.service import MemberInput
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher
from engage_sql import Database
from engage_sql.team.tables import team_members

from .conftest import START

DEADLINE_SECONDS = 120.0


@pytest.fixture
def mailer() -> FakeMailer:
    return FakeMailer()


@pytest.fixture
def services(database: Database, clock: FakeClock, mailer: FakeMailer) -> Services:
    """The services with a (fast, fake) password hasher and a recording mailer."""
    return Services.build(database.uow, clock, hasher=FakePasswordHasher(), mailer=mailer)


def _rows(database: Database) -> int:
    with database.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(team_members)).scalar_one())


def _add(database: Database, account: int, email: str = "ada@example.com", **fields: Any) -> TeamMember:
    draft = MemberDraft(**({"name": "Ada", "email": email, "role": "agent"} | fields))
    with database.uow.workspace(account) as uow:
        member = uow.team.add(draft, "hash-of-" + email, START)
        uow.commit()
    return member


def _get(database: Database, account: int, member_id: int) -> TeamMember | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.team.get(member_id)


def test_the_database_itself_refuses_a_duplicate_address_key(database: Database, account: int) -> None:
    """A row inserted past the repository with a taken `email_key` is refused by the unique index."""
    _add(database, account, "ada@example.com")

    row = {
        "account_id": account, "name": "Eve", "email": "ADA@EXAMPLE.COM", "email_key": "ada@example.com",
        "role": "agent", "status": "active", "password_hash": "x", "created_at": START, "updated_at": START,
    }  # fmt: skip
    with database.engine.connect() as connection, pytest.raises(IntegrityError, match=r"(?i)unique|duplicate"):
        connection.execute(insert(team_members), row)

    assert _rows(database) == 1


def test_concurrent_adds_of_one_address_make_one_member(database: Database, services: Services, account: int) -> None:
    """Eight threads adding the same address (in different cases) at once: one member, seven refusals."""
    threads = 8
    start = threading.Barrier(threads)

    def add(n: int) -> str:
        start.wait(timeout=30)
        email = "ada@example.com" if n % 2 else "ADA@example.com"
        try:
            services.team.create(account, MemberInput(f"Ada {n}", email, "agent", "password123"))
        except ValidationFailed as exc:
            return "refused " + ",".join(exc.errors)
        return "added"

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(add, n) for n in range(threads)]
        outcomes = Counter(future.result(timeout=DEADLINE_SECONDS) for future in futures)

    assert (outcomes, _rows(database)) == ({"added": 1, "refused email": threads - 1}, 1)


def test_a_member_with_tickets_cannot_be_deleted_past_the_service(
    database: Database, services: Services, account: int
) -> None:
    """The ticket's foreign key refuses deleting an assigned member whose tickets were not unassigned."""
    member = services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", "password123")).member
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    services.tickets.update(account, ticket.id, TicketPatch(assignee_id=member.id))

    with database.uow.workspace(account) as uow, pytest.raises(IntegrityError, match=r"(?i)foreign key"):
        uow.team.delete(member.id)

    assert _get(database, account, member.id) == member
