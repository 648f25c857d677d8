"""DepartmentService over the in-memory fakes: the seeded default, unique titles, rename and delete
(SPEC 4 `GET /tickets/departments`; departments are managed from the CLI)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_core.support.departments import TITLE_MAX, title_key
from engage_core.support.ticket_service import TicketInput
from engage_core.testing import InMemoryStore


def test_a_new_workspace_lists_general(services: Services, account_id: int) -> None:
    """The first listing seeds the default department."""
    assert [d.title for d in services.departments.list(account_id)] == ["General"]


def test_listing_twice_seeds_once(services: Services, account_id: int) -> None:
    """The default is created only when there is no department at all."""
    first = services.departments.list(account_id)
    assert services.departments.list(account_id) == first


def test_a_workspace_with_departments_gets_no_default(services: Services, account_id: int) -> None:
    """Departments made first mean General is never added."""
    services.departments.create(account_id, "Billing")
    assert [d.title for d in services.departments.list(account_id)] == ["Billing"]


def test_departments_are_per_workspace(services: Services, account_id: int, new_account: Callable[..., int]) -> None:
    """Each account sees only its own departments."""
    services.departments.create(new_account("Other"), "Billing")
    assert [d.title for d in services.departments.list(account_id)] == ["General"]


def test_titles_are_unique_regardless_of_case(services: Services, account_id: int) -> None:
    """A second "billing" next to "Billing" is a 422 on title."""
    services.departments.create(account_id, "Billing")
    with pytest.raises(ValidationFailed) as caught:
        services.departments.create(account_id, " billing ")
    assert "title" in caught.value.errors


def test_a_long_title_is_refused(services: Services, account_id: int) -> None:
    """Titles are at most 255 characters."""
    with pytest.raises(ValidationFailed):
        services.departments.create(account_id, "x" * (TITLE_MAX + 1))


def test_renaming_shows_on_tickets(services: Services, account_id: int) -> None:
    """A ticket's department carries the current title."""
    ticket = services.tickets.create(account_id, TicketInput("Invoice", "Wrong total."))
    assert ticket.department is not None
    services.departments.rename(account_id, ticket.department.id, "Support")
    department = services.tickets.get(account_id, ticket.id).ticket.department
    assert department is not None and department.title == "Support"


def test_renaming_to_a_taken_title_is_refused(services: Services, account_id: int) -> None:
    """Another department's title cannot be reused."""
    billing = services.departments.create(account_id, "Billing")
    services.departments.create(account_id, "Sales")
    with pytest.raises(ValidationFailed):
        services.departments.rename(account_id, billing.id, "SALES")


def test_renaming_to_its_own_title_in_another_case_is_allowed(services: Services, account_id: int) -> None:
    """Only other departments make a title taken."""
    billing = services.departments.create(account_id, "Billing")
    assert services.departments.rename(account_id, billing.id, "BILLING").title == "BILLING"


def test_deleting_keeps_the_tickets_without_department(services: Services, account_id: int) -> None:
    """Tickets of a deleted department stay, with department null."""
    billing = services.departments.create(account_id, "Billing")
    ticket = services.tickets.create(account_id, TicketInput("Invoice", "Wrong total.", department_id=billing.id))
    services.departments.delete(account_id, billing.id)
    assert services.tickets.get(account_id, ticket.id).ticket.department is None


def test_deleting_emits_no_ticket_event(services: Services, account_id: int, store: InMemoryStore) -> None:
    """A department is not status, priority or assignment: no ticket.updated."""
    billing = services.departments.create(account_id, "Billing")
    services.tickets.create(account_id, TicketInput("Invoice", "Wrong total.", department_id=billing.id))
    services.departments.delete(account_id, billing.id)
    assert [e.name for e in store.events()] == ["ticket.created"]


def test_another_workspaces_department_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """Renaming or deleting another account's department is a 404."""
    foreign = services.departments.create(new_account("Other"), "Billing")
    with pytest.raises(NotFound):
        services.departments.delete(account_id, foreign.id)


def test_the_title_key_ignores_case_and_spaces() -> None:
    """` Sales `, `sales` and `SALES` are one title."""
    assert title_key(" Sales ") == title_key("sales") == title_key("SALES")
