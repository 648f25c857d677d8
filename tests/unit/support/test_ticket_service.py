"""TicketService over the in-memory fakes: opening, listing, reading, replying, closing and
changing tickets (SPEC 3, 4 Support tickets; SPEC 6 ticket events; SPEC 8 limits)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.support.tickets import REPLY_MAX, Ticket, TicketFilter
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory

NewTicket = Callable[..., Ticket]


@pytest.fixture
def new_ticket(services: Services, account_id: int) -> NewTicket:
    """`new_ticket(subject="Login fails", body="Since this morning.", account=None, **fields) -> Ticket`."""

    def make(
        subject: str = "Login fails", body: str = "Since this morning.", *, account: int | None = None, **fields: Any
    ) -> Ticket:
        return services.tickets.create(account_id if account is None else account, TicketInput(subject, body, **fields))

    return make


@pytest.fixture
def new_member(uow: InMemoryUnitOfWorkFactory, account_id: int, clock: FakeClock) -> Callable[..., int]:
    """`new_member(email="agent@example.com", status="active") -> member id`, stored directly."""

    def make(email: str = "agent@example.com", status: str = "active") -> int:
        with uow.workspace(account_id) as tx:
            member = tx.team.add(MemberDraft("Agent", email, "agent", status), "fake$x$y", clock.now())
            tx.commit()
        return member.id

    return make


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def ticket_events(store: InMemoryStore) -> list[DomainEvent]:
    return [e for e in store.events() if e.name.startswith("ticket.")]


# -- opening ---------------------------------------------------------------------------------------


def test_a_new_ticket_is_open_and_medium(new_ticket: NewTicket) -> None:
    """POST /tickets without priority opens a medium ticket with no replies yet."""
    ticket = new_ticket()
    assert (ticket.status, ticket.priority, ticket.last_reply_at) == ("open", "medium", None)


def test_references_count_up_per_workspace(new_ticket: NewTicket, new_account: Callable[..., int]) -> None:
    """Each workspace numbers its own tickets from TKT-000001."""
    other = new_account("Other")
    made = [new_ticket().ticket_id, new_ticket().ticket_id, new_ticket(account=other).ticket_id]
    assert made == ["TKT-000001", "TKT-000002", "TKT-000001"]


def test_a_ticket_without_department_goes_to_general(new_ticket: NewTicket) -> None:
    """The default department is seeded the first time a ticket needs one."""
    department = new_ticket().department
    assert department is not None and department.title == "General"


def test_the_default_department_is_seeded_once(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """Two tickets without a department share the one default department."""
    new_ticket()
    new_ticket()
    assert [d.title for d in services.departments.list(account_id)] == ["General"]


def test_a_named_department_is_used(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """department_id files the ticket there."""
    billing = services.departments.create(account_id, "Billing")
    assert new_ticket(department_id=billing.id).department == billing


def test_an_unknown_department_is_a_field_error(new_ticket: NewTicket) -> None:
    """A department that does not exist is a 422 on department_id, not a 404."""
    assert "department_id" in errors_of(lambda: new_ticket(department_id=999))


def test_another_workspaces_department_is_unknown(
    services: Services, new_account: Callable[..., int], new_ticket: NewTicket
) -> None:
    """A department of another account cannot be named."""
    foreign = services.departments.create(new_account("Other"), "Billing")
    assert "department_id" in errors_of(lambda: new_ticket(department_id=foreign.id))


def test_every_field_error_is_reported_at_once(new_ticket: NewTicket) -> None:
    """Blank subject and body and an unknown priority give three field errors."""
    assert set(errors_of(lambda: new_ticket(" ", "", priority="urgent"))) == {"subject", "body", "priority"}


def test_opening_emits_created(new_ticket: NewTicket, store: InMemoryStore) -> None:
    """ticket.created carries the reference and the default department."""
    ticket = new_ticket()
    [event] = ticket_events(store)
    assert (event.name, event.payload["ticket_id"], event.payload["department_id"]) == (
        "ticket.created",
        ticket.ticket_id,
        ticket.department_id,
    )


# -- reading ---------------------------------------------------------------------------------------


def test_listing_is_newest_first(services: Services, account_id: int, new_ticket: NewTicket, clock: FakeClock) -> None:
    """GET /tickets lists the most recently opened first."""
    first = new_ticket()
    clock.advance(minutes=1)
    second = new_ticket()
    found = services.tickets.find(account_id, TicketFilter(), PageRequest(per_page=25))
    assert [t.id for t in found.items] == [second.id, first.id]


def test_listing_filters_by_status_and_priority(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """Only tickets matching both filters are listed."""
    new_ticket(priority="high")
    wanted = new_ticket(priority="high")
    services.tickets.close(account_id, new_ticket(priority="low").id)
    services.tickets.close(account_id, wanted.id)
    found = services.tickets.find(account_id, TicketFilter(status="closed", priority="high"), PageRequest())
    assert [t.id for t in found.items] == [wanted.id]


def test_an_unknown_filter_value_is_a_field_error(services: Services, account_id: int) -> None:
    """status and priority filters must be values of SPEC 2."""
    filters = TicketFilter(status="resolved", priority="urgent")
    assert set(errors_of(lambda: services.tickets.find(account_id, filters, PageRequest()))) == {"status", "priority"}


def test_listing_only_shows_the_workspaces_tickets(
    services: Services, account_id: int, new_ticket: NewTicket, new_account: Callable[..., int]
) -> None:
    """Tickets of another account are not listed."""
    new_ticket(account=new_account("Other"))
    assert services.tickets.find(account_id, TicketFilter(), PageRequest()).total == 0


def test_another_workspaces_ticket_is_not_found(
    services: Services, new_ticket: NewTicket, new_account: Callable[..., int]
) -> None:
    """GET /tickets/{id} of another account is a 404."""
    ticket = new_ticket()
    with pytest.raises(NotFound):
        services.tickets.get(new_account("Other"), ticket.id)


def test_the_thread_lists_replies_oldest_first(
    services: Services, account_id: int, new_ticket: NewTicket, clock: FakeClock
) -> None:
    """GET /tickets/{id} returns every reply, in the order written."""
    ticket = new_ticket()
    services.tickets.reply(account_id, ticket.id, "First")
    clock.advance(minutes=1)
    services.tickets.reply(account_id, ticket.id, "Second", type="admin")
    thread = services.tickets.get(account_id, ticket.id)
    assert [(r.reply, r.type) for r in thread.replies] == [("First", "client"), ("Second", "admin")]


# -- replying --------------------------------------------------------------------------------------


def test_an_operator_reply_answers(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """An admin reply makes the ticket answered."""
    posted = services.tickets.reply(account_id, new_ticket().id, "Fixed.", type="admin")
    assert posted.ticket.status == "answered"


def test_a_client_reply_reopens_an_answered_ticket(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """SPEC 3: answered -> open on a client reply."""
    ticket = new_ticket()
    services.tickets.reply(account_id, ticket.id, "Fixed.", type="admin")
    services.tickets.reply(account_id, ticket.id, "Still broken.")
    assert services.tickets.get(account_id, ticket.id).ticket.status == "open"


def test_a_reply_records_last_reply_at(
    services: Services, account_id: int, new_ticket: NewTicket, clock: FakeClock
) -> None:
    """last_reply_at is the time of the newest reply."""
    ticket = new_ticket()
    moment = clock.advance(minutes=3)
    services.tickets.reply(account_id, ticket.id, "More details.")
    assert services.tickets.get(account_id, ticket.id).ticket.last_reply_at == moment


def test_a_reply_is_trimmed(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """Surrounding whitespace is not stored."""
    assert services.tickets.reply(account_id, new_ticket().id, "  Thanks \n").reply.reply == "Thanks"


def test_a_reply_of_the_maximum_length_is_accepted(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """SPEC 8: 10,000 characters are allowed."""
    assert len(services.tickets.reply(account_id, new_ticket().id, "x" * REPLY_MAX).reply.reply) == REPLY_MAX


def test_a_longer_reply_is_refused(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """SPEC 8: 10,001 characters is a 422 on reply."""
    ticket = new_ticket()
    errors = errors_of(lambda: services.tickets.reply(account_id, ticket.id, "x" * (REPLY_MAX + 1)))
    assert "10000" in errors["reply"][0]


def test_a_blank_reply_is_refused(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """reply is required."""
    ticket = new_ticket()
    assert "reply" in errors_of(lambda: services.tickets.reply(account_id, ticket.id, "   "))


def test_an_unknown_reply_type_is_refused(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """type is client or admin."""
    ticket = new_ticket()
    assert "type" in errors_of(lambda: services.tickets.reply(account_id, ticket.id, "Hi", type="staff"))


def test_a_reply_to_a_closed_ticket_is_refused(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """SPEC 3: a closed ticket receives no further replies (422 on reply)."""
    ticket = new_ticket()
    services.tickets.close(account_id, ticket.id)
    assert "closed" in errors_of(lambda: services.tickets.reply(account_id, ticket.id, "Hello?"))["reply"][0]


def test_a_refused_reply_stores_nothing(
    services: Services, account_id: int, new_ticket: NewTicket, store: InMemoryStore
) -> None:
    """Neither a reply nor an event is left behind by a reply to a closed ticket."""
    ticket = new_ticket()
    services.tickets.close(account_id, ticket.id)
    before = len(ticket_events(store))
    with pytest.raises(ValidationFailed):
        services.tickets.reply(account_id, ticket.id, "Hello?", type="admin")
    assert (services.tickets.get(account_id, ticket.id).replies, len(ticket_events(store))) == ([], before)


def test_a_reply_names_its_team_member(
    services: Services, account_id: int, new_ticket: NewTicket, new_member: Callable[..., int], store: InMemoryStore
) -> None:
    """author_id is stored and sent as user_id."""
    member = new_member()
    posted = services.tickets.reply(account_id, new_ticket().id, "From Ada.", author_id=member)
    assert (posted.reply.author_id, ticket_events(store)[-1].payload["user_id"]) == (member, member)


def test_an_unknown_author_is_a_field_error(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """author_id must be a team member of the workspace."""
    ticket = new_ticket()
    assert "author_id" in errors_of(lambda: services.tickets.reply(account_id, ticket.id, "Hi", author_id=999))


def test_an_operator_reply_has_no_team_author(
    services: Services, account_id: int, new_ticket: NewTicket, new_member: Callable[..., int]
) -> None:
    """The operator is not a team member of the workspace."""
    ticket, member = new_ticket(), new_member()

    def operator_reply() -> object:
        return services.tickets.reply(account_id, ticket.id, "Hi", type="admin", author_id=member)

    assert "author_id" in errors_of(operator_reply)


def test_replying_to_a_missing_ticket_is_not_found(services: Services, account_id: int) -> None:
    """An unknown ticket id is a 404."""
    with pytest.raises(NotFound):
        services.tickets.reply(account_id, 999, "Hello")


# -- closing ---------------------------------------------------------------------------------------


def test_closing_emits_closed(services: Services, account_id: int, new_ticket: NewTicket, store: InMemoryStore) -> None:
    """POST /tickets/{id}/close closes and emits ticket.closed."""
    closed = services.tickets.close(account_id, new_ticket().id)
    assert (closed.status, ticket_events(store)[-1].name) == ("closed", "ticket.closed")


def test_closing_twice_is_harmless(
    services: Services, account_id: int, new_ticket: NewTicket, store: InMemoryStore, clock: FakeClock
) -> None:
    """A second close returns the closed ticket as it was, with no second event."""
    ticket = new_ticket()
    first = services.tickets.close(account_id, ticket.id)
    clock.advance(minutes=1)
    assert services.tickets.close(account_id, ticket.id) == first
    assert [e.name for e in ticket_events(store)].count("ticket.closed") == 1


# -- changing --------------------------------------------------------------------------------------


def test_assigning_a_member_emits_updated(
    services: Services, account_id: int, new_ticket: NewTicket, new_member: Callable[..., int], store: InMemoryStore
) -> None:
    """An assignment change is ticket.updated with the assignee."""
    member = new_member()
    services.tickets.update(account_id, new_ticket().id, TicketPatch(assignee_id=member))
    event = ticket_events(store)[-1]
    assert (event.name, event.payload["assignee_id"]) == ("ticket.updated", member)


def test_an_inactive_member_cannot_be_assigned(
    services: Services, account_id: int, new_ticket: NewTicket, new_member: Callable[..., int]
) -> None:
    """Only active team members take tickets."""
    ticket, member = new_ticket(), new_member(status="inactive")
    assert "assignee_id" in errors_of(
        lambda: services.tickets.update(account_id, ticket.id, TicketPatch(assignee_id=member))
    )


def test_moving_to_another_department(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """department_id refiles the ticket."""
    billing = services.departments.create(account_id, "Billing")
    moved = services.tickets.update(account_id, new_ticket().id, TicketPatch(department_id=billing.id))
    assert moved.department == billing


def test_an_unchanged_patch_emits_nothing(
    services: Services, account_id: int, new_ticket: NewTicket, store: InMemoryStore
) -> None:
    """Setting the priority it has is no change."""
    ticket = new_ticket(priority="low")
    before = len(ticket_events(store))
    services.tickets.update(account_id, ticket.id, TicketPatch(priority="low"))
    assert len(ticket_events(store)) == before


def test_an_unknown_priority_is_refused(services: Services, account_id: int, new_ticket: NewTicket) -> None:
    """priority is low, medium or high."""
    ticket = new_ticket()
    assert "priority" in errors_of(lambda: services.tickets.update(account_id, ticket.id, TicketPatch(priority="p1")))


# -- references under concurrency ------------------------------------------------------------------


def test_concurrent_creates_get_distinct_references(services: Services, account_id: int) -> None:
    """Tickets opened at once in one workspace never share a reference, and none is skipped."""
    made: list[str] = []

    def open_one() -> None:
        made.append(services.tickets.create(account_id, TicketInput("Login fails", "Help")).ticket_id)

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(made) == [f"TKT-{n:06d}" for n in range(1, 9)]


def test_a_rolled_back_number_is_handed_out_again(uow: InMemoryUnitOfWorkFactory, account_id: int) -> None:
    """A number taken in a transaction that never commits is not used up (as the SQL counter row)."""
    with uow.workspace(account_id) as tx:
        assert tx.tickets.next_number() == 1
    with uow.workspace(account_id) as tx:
        assert tx.tickets.next_number() == 1
