"""Team members through the SQL team repository and TeamService (reference: engage_core.testing)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import attrs
import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.team.model import MemberDraft, TeamMember
from engage_core.team.service import MemberInput, MemberPatch
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


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(database: Database, account: int, email: str = "ada@example.com", **fields: Any) -> TeamMember:
    draft = MemberDraft(**({"name": "Ada", "email": email, "role": "agent"} | fields))
    with database.uow.workspace(account) as uow:
        member = uow.team.add(draft, "hash-of-" + email, START)
        uow.commit()
    return member


def _get(database: Database, account: int, member_id: int) -> TeamMember | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.team.get(member_id)


def _emails(database: Database, account: int, role: str | None = None, page: PageRequest | None = None) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [m.email for m in uow.team.find(role, page or PageRequest(per_page=100)).items]


def _rows(database: Database) -> int:
    with database.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(team_members)).scalar_one())


# -- the repository --------------------------------------------------------------------------------


def test_added_member_reads_back_equal(database: Database, account: int) -> None:
    """Every field of a member survives the round trip; the address keeps the case it was written in."""
    added = _add(database, account, "Ada@Example.com", role="admin", status="inactive")

    assert (
        _get(database, account, added.id)
        == added
        == TeamMember(added.id, "Ada", "Ada@Example.com", "admin", "inactive", START, START)
    )


def test_the_password_hash_is_stored_beside_the_member(database: Database, account: int) -> None:
    """`password_hash` reads back what `add` stored; `set_password_hash` replaces it and `updated_at`."""
    added = _add(database, account)
    later = START + timedelta(hours=1)

    with database.uow.workspace(account) as uow:
        before = uow.team.password_hash(added.id)
        uow.team.set_password_hash(added.id, "new-hash", later)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        after = (uow.team.password_hash(added.id), uow.team.get(added.id))

    assert (before, after) == ("hash-of-ada@example.com", ("new-hash", attrs.evolve(added, updated_at=later)))


def test_by_email_ignores_case(database: Database, account: int) -> None:
    """`by_email` finds `Ada@Example.com` from `ADA@EXAMPLE.COM`."""
    added = _add(database, account, "Ada@Example.com")

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.team.by_email("ADA@EXAMPLE.COM") == added


def test_an_address_in_another_case_is_refused(database: Database, account: int) -> None:
    """Adding `ADA@example.com` beside `ada@example.com` is a ValidationFailed on `email`."""
    _add(database, account, "ada@example.com")

    with pytest.raises(ValidationFailed) as raised:
        _add(database, account, "ADA@example.com")

    assert (list(raised.value.errors), _emails(database, account)) == (["email"], ["ada@example.com"])


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


def test_the_same_address_in_two_accounts_is_two_members(database: Database, account: int, other: int) -> None:
    """Address uniqueness is per account."""
    _add(database, account, "ada@example.com")
    _add(database, other, "ada@example.com")

    assert (_emails(database, account), _emails(database, other)) == (["ada@example.com"], ["ada@example.com"])


def test_update_stores_the_fields_and_keeps_the_hash(database: Database, account: int) -> None:
    """`update` stores name, address, role, status and `updated_at`; the password hash stays."""
    added = _add(database, account)
    changed = TeamMember(added.id, "Ada L.", "ada@lovelace.org", "admin", "inactive", START, START + timedelta(hours=1))

    with database.uow.workspace(account) as uow:
        uow.team.update(changed)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        stored = (uow.team.get(added.id), uow.team.password_hash(added.id), uow.team.by_email("ADA@LOVELACE.ORG"))

    assert stored == (changed, "hash-of-ada@example.com", changed)


def test_changing_to_a_taken_address_is_refused_and_the_transaction_stays_usable(
    database: Database, account: int
) -> None:
    """An update onto another member's address raises ValidationFailed; the transaction still commits."""
    _add(database, account, "ada@example.com")
    bob = _add(database, account, "bob@example.com", name="Bob")

    with database.uow.workspace(account) as uow:
        with pytest.raises(ValidationFailed):
            uow.team.update(attrs.evolve(bob, email="Ada@Example.com"))
        uow.team.add(MemberDraft("Cy", "cy@example.com", "agent"), "h", START)
        uow.commit()

    assert _emails(database, account) == ["ada@example.com", "bob@example.com", "cy@example.com"]


def test_find_filters_by_role_in_ascending_id_order(database: Database, account: int) -> None:
    """`find` lists members oldest first, only those of the role when one is given."""
    _add(database, account, "a@example.com", role="admin")
    _add(database, account, "b@example.com", role="agent")
    _add(database, account, "c@example.com", role="admin")

    assert (_emails(database, account), _emails(database, account, "admin")) == (
        ["a@example.com", "b@example.com", "c@example.com"],
        ["a@example.com", "c@example.com"],
    )


def test_find_pages_and_counts(database: Database, account: int) -> None:
    """A page holds `per_page` members at its offset; `total` counts every match."""
    for n in range(5):
        _add(database, account, f"m{n}@example.com")

    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.team.find(None, PageRequest(page=2, per_page=2))

    assert ([m.email for m in page.items], page.total) == (["m2@example.com", "m3@example.com"], 5)


def test_another_accounts_member_is_invisible(database: Database, account: int, other: int) -> None:
    """Another account's member is not read, found by address, listed, changed or deleted."""
    theirs = _add(database, other, "ada@example.com")

    with database.uow.workspace(account) as uow:
        seen = (uow.team.get(theirs.id), uow.team.by_email("ada@example.com"), uow.team.password_hash(theirs.id))
        uow.team.update(attrs.evolve(theirs, name="Hijacked"))
        uow.team.set_password_hash(theirs.id, "hijacked", START)
        uow.team.delete(theirs.id)
        uow.commit()

    with database.uow.workspace(other, readonly=True) as uow:
        kept = (uow.team.get(theirs.id), uow.team.password_hash(theirs.id))

    assert (seen, _emails(database, account), kept) == ((None, None, None), [], (theirs, "hash-of-ada@example.com"))


# -- the service over SQL --------------------------------------------------------------------------


def test_creating_stores_a_hash_never_the_password(
    database: Database, services: Services, mailer: FakeMailer, account: int
) -> None:
    """The stored hash verifies the password and is not the password; the invitation goes out."""
    created = services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", "correct horse"))

    with database.uow.workspace(account, readonly=True) as uow:
        stored = uow.team.password_hash(created.member.id)

    assert stored is not None and "correct horse" not in stored
    assert FakePasswordHasher().verify(stored, "correct horse")
    assert ([m.to for m in mailer.sent], created.invitation_sent) == (["ada@example.com"], True)


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


def test_deleting_a_member_unassigns_their_tickets_with_events(
    database: Database, services: Services, clock: FakeClock, account: int
) -> None:
    """Deleting a member keeps their tickets, unassigned, and records `ticket.updated` for each."""
    member = services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", "password123")).member
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    services.tickets.update(account, ticket.id, TicketPatch(assignee_id=member.id))
    clock.advance(seconds=60)

    services.team.delete(account, member.id)

    kept = services.tickets.get(account, ticket.id).ticket
    last = database.outbox_events(account)[-1]
    assert (kept.assignee_id, _get(database, account, member.id)) == (None, None)
    assert (last.name, last.payload) == ("ticket.updated", dict(kept.event_payload()))


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


def test_signing_in_checks_the_stored_hash(services: Services, account: int) -> None:
    """`authenticate` accepts the password (any case of the address) and refuses another one."""
    member = services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", "password123")).member

    assert services.team.authenticate(account, "ADA@example.com", "password123") == member
    with pytest.raises(Exception, match="incorrect"):
        services.team.authenticate(account, "ada@example.com", "password124")


def test_another_accounts_member_is_not_found_through_the_service(services: Services, account: int, other: int) -> None:
    """Reading, changing or deleting another account's member is NotFound."""
    theirs = services.team.create(other, MemberInput("Ada", "ada@example.com", "agent", "password123")).member

    for act in (
        lambda: services.team.get(account, theirs.id),
        lambda: services.team.update(account, theirs.id, MemberPatch(name="Hijacked")),
        lambda: services.team.delete(account, theirs.id),
    ):
        with pytest.raises(NotFound):
            act()
