"""Support: departments and tickets with their replies, through the repositories and the department
and ticket services, on every adapter."""

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
from engage_core.support.departments import Department
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.support.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _ticket_events(outbox_events: Callable[..., list[DomainEvent]], account: int) -> list[tuple[str, Any]]:
    return [(e.name, e.payload) for e in outbox_events(account) if e.name.startswith("ticket.")]


def _add_department(uow: UnitOfWorkFactory, account: int, title: str) -> Department:
    with uow.workspace(account) as unit:
        department = unit.departments.add(title, NOW)
        unit.commit()
    return department


def _titles(uow: UnitOfWorkFactory, account: int) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [d.title for d in unit.departments.list()]


def test_added_department_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """A department's id, title and timestamps survive the round trip."""
    added = _add_department(uow, account, "Billing")

    with uow.workspace(account, readonly=True) as unit:
        assert unit.departments.get(added.id) == added == Department(added.id, "Billing", NOW, NOW)


def test_list_is_in_ascending_id_order(uow: UnitOfWorkFactory, account: int) -> None:
    """`list` returns the account's departments oldest first."""
    for title in ("Sales", "Billing", "Abuse"):
        _add_department(uow, account, title)

    assert _titles(uow, account) == ["Sales", "Billing", "Abuse"]


def test_by_title_ignores_case_and_spaces(uow: UnitOfWorkFactory, account: int) -> None:
    """`by_title` finds `Billing` from ` BILLING `."""
    added = _add_department(uow, account, "Billing")

    with uow.workspace(account, readonly=True) as unit:
        assert unit.departments.by_title(" BILLING ") == added


def test_a_title_is_unique_per_account_regardless_of_case(uow: UnitOfWorkFactory, account: int) -> None:
    """Adding `billing` beside `Billing` is a ValidationFailed on `title`, and the first stays alone."""
    _add_department(uow, account, "Billing")

    with pytest.raises(ValidationFailed) as raised:
        _add_department(uow, account, "billing")

    assert (list(raised.value.errors), _titles(uow, account)) == (["title"], ["Billing"])


def test_the_same_title_in_two_accounts_is_two_departments(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Title uniqueness is per account."""
    _add_department(uow, account, "Billing")
    _add_department(uow, other, "Billing")

    assert (_titles(uow, account), _titles(uow, other)) == (["Billing"], ["Billing"])


def test_renaming_onto_another_title_is_refused_and_the_transaction_stays_usable(
    uow: UnitOfWorkFactory, account: int
) -> None:
    """A rename onto a taken title raises ValidationFailed; the same transaction can still commit work."""
    _add_department(uow, account, "Sales")
    billing = _add_department(uow, account, "Billing")

    with uow.workspace(account) as unit:
        with pytest.raises(ValidationFailed):
            unit.departments.rename(billing.id, "SALES", NOW)
        unit.departments.add("Abuse", NOW)
        unit.commit()

    assert _titles(uow, account) == ["Sales", "Billing", "Abuse"]


def test_rename_stores_the_title_and_updated_at(uow: UnitOfWorkFactory, account: int) -> None:
    """`rename` changes the title and `updated_at` only."""
    added = _add_department(uow, account, "Sales")
    later = NOW + timedelta(hours=1)

    with uow.workspace(account) as unit:
        unit.departments.rename(added.id, "Revenue", later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.departments.get(added.id) == Department(added.id, "Revenue", NOW, later)


def test_another_accounts_department_is_invisible(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """`get` and `by_title` of another account's department are None; rename and delete leave it."""
    theirs = _add_department(uow, other, "Billing")

    with uow.workspace(account) as unit:
        seen = (unit.departments.get(theirs.id), unit.departments.by_title("Billing"))
        unit.departments.rename(theirs.id, "Hijacked", NOW)
        unit.departments.delete(theirs.id)
        unit.commit()

    assert (seen, _titles(uow, other)) == ((None, None), ["Billing"])


def test_ensure_default_seeds_one_department(uow: UnitOfWorkFactory, account: int) -> None:
    """The first `ensure_default` creates the department; the second returns it."""
    with uow.workspace(account) as unit:
        first = unit.departments.ensure_default("General", NOW)
        again = unit.departments.ensure_default("General", NOW)
        unit.commit()

    assert (first, again, _titles(uow, account)) == (again, first, ["General"])


def test_deleting_a_department_keeps_its_tickets_without_one(
    uow: UnitOfWorkFactory, services: Services, clock: FakeClock, account: int
) -> None:
    """A deleted department's tickets stay, with no department and their `updated_at` unchanged."""
    billing = services.departments.create(account, "Billing")
    ticket = services.tickets.create(account, TicketInput("Refund", "Please refund", department_id=billing.id))
    clock.advance(seconds=60)

    services.departments.delete(account, billing.id)

    kept = services.tickets.get(account, ticket.id).ticket
    assert (kept.department, kept.updated_at, _titles(uow, account)) == (None, ticket.updated_at, [])


def test_renaming_shows_on_the_tickets_filed_under_it(services: Services, account: int) -> None:
    """A ticket reads its department's current title."""
    billing = services.departments.create(account, "Billing")
    ticket = services.tickets.create(account, TicketInput("Refund", "Please refund", department_id=billing.id))

    renamed = services.departments.rename(account, billing.id, "Accounts")

    assert services.tickets.get(account, ticket.id).ticket.department == renamed


def test_a_ticket_without_a_department_goes_to_the_seeded_default(services: Services, account: int) -> None:
    """Opening a ticket with no department in a workspace without any seeds "General" and files it there."""
    ticket = services.tickets.create(account, TicketInput("Hello", "First ticket"))

    assert ticket.department == services.departments.list(account)[0]
    assert ticket.department is not None and ticket.department.title == "General"


def test_another_accounts_department_is_not_found_through_the_service(
    services: Services, account: int, other: int
) -> None:
    """Renaming or deleting another account's department is NotFound."""
    theirs = services.departments.create(other, "Billing")

    with pytest.raises(NotFound):
        services.departments.rename(account, theirs.id, "Hijacked")
    with pytest.raises(NotFound):
        services.departments.delete(account, theirs.id)


def _draft(number: int = 1, **fields: Any) -> TicketDraft:
    defaults: dict[str, Any] = {
        "ticket_id": f"TKT-{number:06d}",
        "subject": f"Ticket {number}",
        "body": "Something broke",
        "priority": "medium",
        "department_id": None,
    }
    return TicketDraft(**(defaults | fields))


def _add(uow: UnitOfWorkFactory, account: int, draft: TicketDraft, now: Any = NOW) -> Ticket:
    with uow.workspace(account) as unit:
        ticket = unit.tickets.add(draft, now)
        unit.commit()
    return ticket


def _get(uow: UnitOfWorkFactory, account: int, ticket_id: int) -> Ticket | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.tickets.get(ticket_id)


def _subjects(
    uow: UnitOfWorkFactory, account: int, filters: TicketFilter, page: PageRequest | None = None
) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [t.subject for t in unit.tickets.find(filters, page or PageRequest(per_page=100)).items]


def test_added_ticket_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of a ticket, its department joined in, survives the round trip."""
    with uow.workspace(account) as unit:
        department = unit.departments.add("Billing", NOW)
        member = unit.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", NOW)
        added = unit.tickets.add(
            _draft(7, priority="high", department_id=department.id, assignee_id=member.id, status="answered"), NOW
        )
        unit.commit()

    assert _get(uow, account, added.id) == added == Ticket(
        added.id, "TKT-000007", "Ticket 7", "Something broke", "high", "answered", department, member.id,
        None, None, NOW, NOW,
    )  # fmt: skip


def test_update_stores_every_changing_field(uow: UnitOfWorkFactory, account: int) -> None:
    """`update` stores status, priority, department, assignee, last reply, closing time and `updated_at`."""
    added = _add(uow, account, _draft())
    later = NOW + timedelta(hours=2)
    with uow.workspace(account) as unit:
        department = unit.departments.add("Sales", NOW)
        member = unit.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", NOW)
        changed = Ticket(
            added.id, added.ticket_id, added.subject, added.body, "low", "closed", department, member.id,
            later, later, NOW, later,
        )  # fmt: skip
        unit.tickets.update(changed)
        unit.commit()

    assert _get(uow, account, added.id) == changed


def test_missing_and_foreign_tickets_are_none(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """An unknown id and another account's ticket both read as None."""
    theirs = _add(uow, other, _draft())

    assert (_get(uow, account, theirs.id), _get(uow, account, theirs.id + 1000)) == (None, None)


def test_updating_another_accounts_ticket_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """`update` with another account's ticket id changes nothing."""
    theirs = _add(uow, other, _draft())

    with uow.workspace(account) as unit:
        unit.tickets.update(attrs.evolve(theirs, status="closed"))
        unit.commit()

    assert _get(uow, other, theirs.id) == theirs


def test_find_lists_newest_first(uow: UnitOfWorkFactory, account: int) -> None:
    """Tickets come newest first by `created_at`, then by id for equal times."""
    _add(uow, account, _draft(1, subject="old"), NOW)
    _add(uow, account, _draft(2, subject="tie a"), NOW + timedelta(hours=1))
    _add(uow, account, _draft(3, subject="tie b"), NOW + timedelta(hours=1))

    assert _subjects(uow, account, TicketFilter()) == ["tie b", "tie a", "old"]


def test_find_filters_by_status_and_priority(uow: UnitOfWorkFactory, account: int) -> None:
    """`status` and `priority` each narrow the list, and together both apply."""
    _add(uow, account, _draft(1, subject="open high", priority="high"))
    _add(uow, account, _draft(2, subject="answered high", priority="high", status="answered"))
    _add(uow, account, _draft(3, subject="open low", priority="low"))

    found = (
        _subjects(uow, account, TicketFilter(status="open")),
        _subjects(uow, account, TicketFilter(priority="high")),
        _subjects(uow, account, TicketFilter(status="open", priority="high")),
    )

    assert found == (["open low", "open high"], ["answered high", "open high"], ["open high"])


def test_find_pages_and_counts(uow: UnitOfWorkFactory, account: int) -> None:
    """A page holds `per_page` tickets at its offset; `total` counts every match; past the end is empty."""
    for n in range(1, 6):
        _add(uow, account, _draft(n), NOW + timedelta(minutes=n))

    with uow.workspace(account, readonly=True) as unit:
        second = unit.tickets.find(TicketFilter(), PageRequest(page=2, per_page=2))
        beyond = unit.tickets.find(TicketFilter(), PageRequest(page=4, per_page=2))

    assert ([t.subject for t in second.items], second.total, beyond.items, beyond.total) == (
        ["Ticket 3", "Ticket 2"],
        5,
        [],
        5,
    )


def test_find_sees_only_the_accounts_tickets(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's tickets are neither listed nor counted."""
    _add(uow, account, _draft(1, subject="mine"))
    _add(uow, other, _draft(1, subject="theirs"))

    with uow.workspace(account, readonly=True) as unit:
        page = unit.tickets.find(TicketFilter(), PageRequest())

    assert ([t.subject for t in page.items], page.total) == (["mine"], 1)


def test_replies_read_back_oldest_first(uow: UnitOfWorkFactory, account: int) -> None:
    """Replies come back oldest first, ids breaking ties, each as stored."""
    ticket = _add(uow, account, _draft())
    later = NOW + timedelta(minutes=5)
    with uow.workspace(account) as unit:
        late = unit.tickets.add_reply(ticket.id, ReplyDraft("Later", "admin"), later)
        first = unit.tickets.add_reply(ticket.id, ReplyDraft("First", "client", author_id=42), NOW)
        second = unit.tickets.add_reply(ticket.id, ReplyDraft("Second", "client"), NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        stored = unit.tickets.replies(ticket.id)

    assert (stored, first) == ([first, second, late], TicketReply(first.id, "First", "client", 42, NOW))


def test_another_accounts_replies_are_invisible(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """`replies` of another account's ticket is empty."""
    theirs = _add(uow, other, _draft())
    with uow.workspace(other) as unit:
        unit.tickets.add_reply(theirs.id, ReplyDraft("Private", "client"), NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.tickets.replies(theirs.id) == []


def test_next_number_counts_per_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Each account's numbers run 1, 2, 3 on their own."""

    def take(account_id: int) -> int:
        with uow.workspace(account_id) as unit:
            number = unit.tickets.next_number()
            unit.commit()
        return number

    assert [take(account), take(account), take(other), take(account)] == [1, 2, 1, 3]


def test_a_rolled_back_number_is_handed_out_again(uow: UnitOfWorkFactory, account: int) -> None:
    """A number taken in a transaction that rolls back is not used up."""
    with uow.workspace(account) as unit:
        unit.tickets.next_number()  # no commit

    with uow.workspace(account) as unit:
        number = unit.tickets.next_number()
        unit.commit()

    assert number == 1


def test_creating_records_ticket_created_in_the_outbox(
    services: Services, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Opening a ticket commits `ticket.created` with the ticket's payload."""
    ticket = services.tickets.create(account, TicketInput("Hello", "Help", priority="high"))

    assert _ticket_events(outbox_events, account) == [("ticket.created", dict(ticket.event_payload()))]


def test_replies_move_the_status_and_record_their_events(
    services: Services, clock: FakeClock, account: int, outbox_events: Callable[..., list[DomainEvent]]
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
    assert [name for name, _ in _ticket_events(outbox_events, account)] == [
        "ticket.created",
        "ticket.replied",
        "ticket.updated",
        "ticket.replied",
        "ticket.updated",
    ]


def test_a_closed_ticket_refuses_replies_and_writes_nothing(
    services: Services, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """A reply to a closed ticket is a ValidationFailed on `reply`; no reply or event is stored."""
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))
    services.tickets.close(account, ticket.id)

    with pytest.raises(ValidationFailed) as raised:
        services.tickets.reply(account, ticket.id, "Hello?")

    assert list(raised.value.errors) == ["reply"]
    assert (
        services.tickets.get(account, ticket.id).replies,
        [n for n, _ in _ticket_events(outbox_events, account)],
    ) == (
        [],
        ["ticket.created", "ticket.closed"],
    )


def test_changing_the_assignee_records_ticket_updated(
    uow: UnitOfWorkFactory, services: Services, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Assigning a team member stores the assignee and commits `ticket.updated` with it."""
    with uow.workspace(account) as unit:
        member = unit.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", NOW)
        unit.commit()
    ticket = services.tickets.create(account, TicketInput("Hello", "Help"))

    changed = services.tickets.update(account, ticket.id, TicketPatch(assignee_id=member.id))

    assert (
        services.tickets.get(account, ticket.id).ticket.assignee_id,
        _ticket_events(outbox_events, account)[-1],
    ) == (
        member.id,
        ("ticket.updated", dict(changed.event_payload())),
    )


def test_unassign_member_clears_only_that_members_tickets(uow: UnitOfWorkFactory, account: int) -> None:
    """`unassign_member` clears the member's tickets (ascending id, new `updated_at`) and no others."""
    later = NOW + timedelta(hours=1)
    with uow.workspace(account) as unit:
        ada = unit.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", NOW)
        bob = unit.team.add(MemberDraft("Bob", "bob@example.com", "agent"), "hash", NOW)
        first = unit.tickets.add(_draft(1, assignee_id=ada.id), NOW)
        kept = unit.tickets.add(_draft(2, assignee_id=bob.id), NOW)
        second = unit.tickets.add(_draft(3, assignee_id=ada.id), NOW)
        unassigned = unit.tickets.unassign_member(ada.id, later)
        unit.commit()

    assert [(t.id, t.assignee_id, t.updated_at) for t in unassigned] == [
        (first.id, None, later),
        (second.id, None, later),
    ]
    assert _get(uow, account, kept.id) == kept


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


def test_by_reference_finds_only_the_accounts_ticket(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """`by_reference` reads the account's ticket with that reference; another account's is None."""
    mine = _add(uow, account, _draft(3))
    _add(uow, other, _draft(4))

    with uow.workspace(account, readonly=True) as unit:
        found = (unit.tickets.by_reference("TKT-000003"), unit.tickets.by_reference("TKT-000004"))

    assert found == (mine, None)


def test_renaming_a_department_to_another_case_of_itself_is_allowed(uow: UnitOfWorkFactory, account: int) -> None:
    """`rename` of `Sales` to `SALES` is the same department, so no title clash."""
    sales = _add_department(uow, account, "Sales")

    with uow.workspace(account) as unit:
        unit.departments.rename(sales.id, "SALES", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.departments.get(sales.id) == Department(sales.id, "SALES", NOW, NOW)


def test_unassign_member_keeps_the_authors_of_replies(uow: UnitOfWorkFactory, account: int) -> None:
    """Replies a member wrote keep their `author_id` when the member's tickets are unassigned."""
    with uow.workspace(account) as unit:
        ada = unit.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", NOW)
        ticket = unit.tickets.add(_draft(1, assignee_id=ada.id), NOW)
        reply = unit.tickets.add_reply(ticket.id, ReplyDraft("On it", "admin", author_id=ada.id), NOW)
        unit.tickets.unassign_member(ada.id, NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.tickets.replies(ticket.id) == [reply]


def test_unassign_member_of_nobody_changes_nothing(uow: UnitOfWorkFactory, account: int) -> None:
    """A member assigned to no ticket unassigns none."""
    kept = _add(uow, account, _draft(1))
    with uow.workspace(account) as unit:
        member = unit.team.add(MemberDraft("Ada", "ada@example.com", "agent"), "hash", NOW)
        unassigned = unit.tickets.unassign_member(member.id, NOW + timedelta(hours=1))
        unit.commit()

    assert (list(unassigned), _get(uow, account, kept.id)) == ([], kept)


def test_by_reference_matches_exactly(uow: UnitOfWorkFactory, account: int) -> None:
    """A reference in another case is another reference."""
    _add(uow, account, _draft(3))

    with uow.workspace(account, readonly=True) as unit:
        assert unit.tickets.by_reference("tkt-000003") is None
