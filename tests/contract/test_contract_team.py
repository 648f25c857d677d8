"""Team members: the member repository with its password hashes, and the team service, on every
adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from support import NOW

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.team.model import MemberDraft, TeamMember
from engage_core.team.service import MemberInput, MemberPatch
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(uow: UnitOfWorkFactory, account: int, email: str = "ada@example.com", **fields: Any) -> TeamMember:
    draft = MemberDraft(**({"name": "Ada", "email": email, "role": "agent"} | fields))
    with uow.workspace(account) as unit:
        member = unit.team.add(draft, "hash-of-" + email, NOW)
        unit.commit()
    return member


def _get(uow: UnitOfWorkFactory, account: int, member_id: int) -> TeamMember | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.team.get(member_id)


def _emails(
    uow: UnitOfWorkFactory, account: int, role: str | None = None, page: PageRequest | None = None
) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [m.email for m in unit.team.find(role, page or PageRequest(per_page=100)).items]


def test_added_member_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of a member survives the round trip; the address keeps the case it was written in."""
    added = _add(uow, account, "Ada@Example.com", role="admin", status="inactive")

    assert (
        _get(uow, account, added.id)
        == added
        == TeamMember(added.id, "Ada", "Ada@Example.com", "admin", "inactive", NOW, NOW)
    )


def test_the_password_hash_is_stored_beside_the_member(uow: UnitOfWorkFactory, account: int) -> None:
    """`password_hash` reads back what `add` stored; `set_password_hash` replaces it and `updated_at`."""
    added = _add(uow, account)
    later = NOW + timedelta(hours=1)

    with uow.workspace(account) as unit:
        before = unit.team.password_hash(added.id)
        unit.team.set_password_hash(added.id, "new-hash", later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        after = (unit.team.password_hash(added.id), unit.team.get(added.id))

    assert (before, after) == ("hash-of-ada@example.com", ("new-hash", attrs.evolve(added, updated_at=later)))


def test_by_email_ignores_case(uow: UnitOfWorkFactory, account: int) -> None:
    """`by_email` finds `Ada@Example.com` from `ADA@EXAMPLE.COM`."""
    added = _add(uow, account, "Ada@Example.com")

    with uow.workspace(account, readonly=True) as unit:
        assert unit.team.by_email("ADA@EXAMPLE.COM") == added


def test_an_address_in_another_case_is_refused(uow: UnitOfWorkFactory, account: int) -> None:
    """Adding `ADA@example.com` beside `ada@example.com` is a ValidationFailed on `email`."""
    _add(uow, account, "ada@example.com")

    with pytest.raises(ValidationFailed) as raised:
        _add(uow, account, "ADA@example.com")

    assert (list(raised.value.errors), _emails(uow, account)) == (["email"], ["ada@example.com"])


def test_the_same_address_in_two_accounts_is_two_members(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Address uniqueness is per account."""
    _add(uow, account, "ada@example.com")
    _add(uow, other, "ada@example.com")

    assert (_emails(uow, account), _emails(uow, other)) == (["ada@example.com"], ["ada@example.com"])


def test_update_stores_the_fields_and_keeps_the_hash(uow: UnitOfWorkFactory, account: int) -> None:
    """`update` stores name, address, role, status and `updated_at`; the password hash stays."""
    added = _add(uow, account)
    changed = TeamMember(added.id, "Ada L.", "ada@lovelace.org", "admin", "inactive", NOW, NOW + timedelta(hours=1))

    with uow.workspace(account) as unit:
        unit.team.update(changed)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        stored = (unit.team.get(added.id), unit.team.password_hash(added.id), unit.team.by_email("ADA@LOVELACE.ORG"))

    assert stored == (changed, "hash-of-ada@example.com", changed)


def test_changing_to_a_taken_address_is_refused_and_the_transaction_stays_usable(
    uow: UnitOfWorkFactory, account: int
) -> None:
    """An update onto another member's address raises ValidationFailed; the transaction still commits."""
    _add(uow, account, "ada@example.com")
    bob = _add(uow, account, "bob@example.com", name="Bob")

    with uow.workspace(account) as unit:
        with pytest.raises(ValidationFailed):
            unit.team.update(attrs.evolve(bob, email="Ada@Example.com"))
        unit.team.add(MemberDraft("Cy", "cy@example.com", "agent"), "h", NOW)
        unit.commit()

    assert _emails(uow, account) == ["ada@example.com", "bob@example.com", "cy@example.com"]


def test_find_filters_by_role_in_ascending_id_order(uow: UnitOfWorkFactory, account: int) -> None:
    """`find` lists members oldest first, only those of the role when one is given."""
    _add(uow, account, "a@example.com", role="admin")
    _add(uow, account, "b@example.com", role="agent")
    _add(uow, account, "c@example.com", role="admin")

    assert (_emails(uow, account), _emails(uow, account, "admin")) == (
        ["a@example.com", "b@example.com", "c@example.com"],
        ["a@example.com", "c@example.com"],
    )


def test_find_pages_and_counts(uow: UnitOfWorkFactory, account: int) -> None:
    """A page holds `per_page` members at its offset; `total` counts every match."""
    for n in range(5):
        _add(uow, account, f"m{n}@example.com")

    with uow.workspace(account, readonly=True) as unit:
        page = unit.team.find(None, PageRequest(page=2, per_page=2))

    assert ([m.email for m in page.items], page.total) == (["m2@example.com", "m3@example.com"], 5)


def test_another_accounts_member_is_invisible(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's member is not read, found by address, listed, changed or deleted."""
    theirs = _add(uow, other, "ada@example.com")

    with uow.workspace(account) as unit:
        seen = (unit.team.get(theirs.id), unit.team.by_email("ada@example.com"), unit.team.password_hash(theirs.id))
        unit.team.update(attrs.evolve(theirs, name="Hijacked"))
        unit.team.set_password_hash(theirs.id, "hijacked", NOW)
        unit.team.delete(theirs.id)
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        kept = (unit.team.get(theirs.id), unit.team.password_hash(theirs.id))

    assert (seen, _emails(uow, account), kept) == ((None, None, None), [], (theirs, "hash-of-ada@example.com"))


def test_creating_stores_a_hash_never_the_password(
    uow: UnitOfWorkFactory, services: Services, mailer: FakeMailer, account: int
) -> None:
    """The stored hash verifies the password and is not the password; the invitation goes out."""
    created = services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", "correct horse"))

    with uow.workspace(account, readonly=True) as unit:
        stored = unit.team.password_hash(created.member.id)

    assert stored is not None and "correct horse" not in stored
    assert FakePasswordHasher().verify(stored, "correct horse")
    assert ([m.to for m in mailer.sent], created.invitation_sent) == (["ada@example.com"], True)


def test_deleting_a_member_unassigns_their_tickets_with_events(
    uow: UnitOfWorkFactory,
    services: Services,
    clock: FakeClock,
    account: int,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Deleting a member keeps their tickets, unassigned, and records `ticket.updated` for each."""
    member = services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", "password123")).member
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    services.tickets.update(account, ticket.id, TicketPatch(assignee_id=member.id))
    clock.advance(seconds=60)

    services.team.delete(account, member.id)

    kept = services.tickets.get(account, ticket.id).ticket
    last = outbox_events(account)[-1]
    assert (kept.assignee_id, _get(uow, account, member.id)) == (None, None)
    assert (last.name, last.payload) == ("ticket.updated", dict(kept.event_payload()))


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


def test_delete_removes_the_member_and_its_hash(uow: UnitOfWorkFactory, account: int) -> None:
    """After `delete` the member is neither read, found by address nor has a password hash."""
    added = _add(uow, account)
    with uow.workspace(account) as unit:
        unit.team.delete(added.id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        found = (unit.team.get(added.id), unit.team.by_email(added.email), unit.team.password_hash(added.id))

    assert found == (None, None, None)


def test_a_deleted_members_address_can_be_taken_again(uow: UnitOfWorkFactory, account: int) -> None:
    """Once a member is deleted, another member may use its address."""
    added = _add(uow, account)
    with uow.workspace(account) as unit:
        unit.team.delete(added.id)
        unit.commit()

    again = _add(uow, account, added.email, name="Ada again")

    assert (again.id != added.id, _emails(uow, account)) == (True, [added.email])


def test_an_unknown_member_has_no_password_hash(uow: UnitOfWorkFactory, account: int) -> None:
    """`password_hash` of an id never used is None."""
    with uow.workspace(account, readonly=True) as unit:
        assert unit.team.password_hash(987654) is None


def test_update_keeps_the_creation_time(uow: UnitOfWorkFactory, account: int) -> None:
    """`update` leaves `created_at` as stored."""
    added = _add(uow, account)
    later = NOW + timedelta(hours=1)
    with uow.workspace(account) as unit:
        unit.team.update(attrs.evolve(added, name="Ada L.", created_at=later, updated_at=later))
        unit.commit()

    assert _get(uow, account, added.id) == attrs.evolve(added, name="Ada L.", updated_at=later)


def test_the_directory_finds_every_workspace_of_an_address(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """`workspaces_of` names each account with a member of the address, whatever its case, ascending."""
    _add(uow, other, "Ada@Example.com")
    _add(uow, account)
    _add(uow, account, "grace@example.com")
    with uow.admin(readonly=True) as unit:
        assert unit.team_directory.workspaces_of("ADA@example.com") == sorted([account, other])
        assert unit.team_directory.workspaces_of("nobody@example.com") == []
