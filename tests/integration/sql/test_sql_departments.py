"""Departments through the SQL department repository and DepartmentService (reference: engage_core.testing)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_core.support.departments import Department
from engage_core.support.ticket_service import TicketInput
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.support.tables import departments

from .conftest import START


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(database: Database, account: int, title: str) -> Department:
    with database.uow.workspace(account) as uow:
        department = uow.departments.add(title, START)
        uow.commit()
    return department


def _titles(database: Database, account: int) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [d.title for d in uow.departments.list()]


def _rows(database: Database, account: int) -> int:
    with database.engine.connect() as connection:
        return int(
            connection.execute(
                select(func.count()).select_from(departments).where(departments.c.account_id == account)
            ).scalar_one()
        )


# -- the repository --------------------------------------------------------------------------------


def test_added_department_reads_back_equal(database: Database, account: int) -> None:
    """A department's id, title and timestamps survive the round trip."""
    added = _add(database, account, "Billing")

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.departments.get(added.id) == added == Department(added.id, "Billing", START, START)


def test_list_is_in_ascending_id_order(database: Database, account: int) -> None:
    """`list` returns the account's departments oldest first."""
    for title in ("Sales", "Billing", "Abuse"):
        _add(database, account, title)

    assert _titles(database, account) == ["Sales", "Billing", "Abuse"]


def test_by_title_ignores_case_and_spaces(database: Database, account: int) -> None:
    """`by_title` finds `Billing` from ` BILLING `."""
    added = _add(database, account, "Billing")

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.departments.by_title(" BILLING ") == added


def test_a_title_is_unique_per_account_regardless_of_case(database: Database, account: int) -> None:
    """Adding `billing` beside `Billing` is a ValidationFailed on `title`, and the first stays alone."""
    _add(database, account, "Billing")

    with pytest.raises(ValidationFailed) as raised:
        _add(database, account, "billing")

    assert (list(raised.value.errors), _titles(database, account)) == (["title"], ["Billing"])


def test_the_same_title_in_two_accounts_is_two_departments(database: Database, account: int, other: int) -> None:
    """Title uniqueness is per account."""
    _add(database, account, "Billing")
    _add(database, other, "Billing")

    assert (_titles(database, account), _titles(database, other)) == (["Billing"], ["Billing"])


def test_renaming_onto_another_title_is_refused_and_the_transaction_stays_usable(
    database: Database, account: int
) -> None:
    """A rename onto a taken title raises ValidationFailed; the same transaction can still commit work."""
    _add(database, account, "Sales")
    billing = _add(database, account, "Billing")

    with database.uow.workspace(account) as uow:
        with pytest.raises(ValidationFailed):
            uow.departments.rename(billing.id, "SALES", START)
        uow.departments.add("Abuse", START)
        uow.commit()

    assert _titles(database, account) == ["Sales", "Billing", "Abuse"]


def test_rename_stores_the_title_and_updated_at(database: Database, account: int) -> None:
    """`rename` changes the title and `updated_at` only."""
    added = _add(database, account, "Sales")
    later = START + timedelta(hours=1)

    with database.uow.workspace(account) as uow:
        uow.departments.rename(added.id, "Revenue", later)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.departments.get(added.id) == Department(added.id, "Revenue", START, later)


def test_another_accounts_department_is_invisible(database: Database, account: int, other: int) -> None:
    """`get` and `by_title` of another account's department are None; rename and delete leave it."""
    theirs = _add(database, other, "Billing")

    with database.uow.workspace(account) as uow:
        seen = (uow.departments.get(theirs.id), uow.departments.by_title("Billing"))
        uow.departments.rename(theirs.id, "Hijacked", START)
        uow.departments.delete(theirs.id)
        uow.commit()

    assert (seen, _titles(database, other)) == ((None, None), ["Billing"])


def test_ensure_default_seeds_one_department(database: Database, account: int) -> None:
    """The first `ensure_default` creates the department; the second returns it."""
    with database.uow.workspace(account) as uow:
        first = uow.departments.ensure_default("General", START)
        again = uow.departments.ensure_default("General", START)
        uow.commit()

    assert (first, again, _titles(database, account)) == (again, first, ["General"])


def test_ensure_default_returns_the_lowest_id_when_departments_exist(database: Database, account: int) -> None:
    """With departments but none called General, the oldest is the default and nothing is seeded."""
    sales = _add(database, account, "Sales")
    _add(database, account, "Billing")

    with database.uow.workspace(account) as uow:
        assert uow.departments.ensure_default("General", START) == sales
        uow.commit()

    assert _rows(database, account) == 2


def test_concurrent_first_listings_seed_exactly_one_default(
    database: Database, services: Services, account: int
) -> None:
    """Twelve threads listing a workspace's departments for the first time at once leave one "General"."""
    threads = 12
    start = threading.Barrier(threads)

    def first_listing(_: int) -> list[str]:
        start.wait(timeout=30)
        return [d.title for d in services.departments.list(account)]

    with ThreadPoolExecutor(threads) as pool:
        seen = list(pool.map(first_listing, range(threads)))

    assert (seen, _rows(database, account)) == ([["General"]] * threads, 1)


# -- the service and tickets -----------------------------------------------------------------------


def test_deleting_a_department_keeps_its_tickets_without_one(
    database: Database, services: Services, clock: FakeClock, account: int
) -> None:
    """A deleted department's tickets stay, with no department and their `updated_at` unchanged."""
    billing = services.departments.create(account, "Billing")
    ticket = services.tickets.create(account, TicketInput("Refund", "Please refund", department_id=billing.id))
    clock.advance(seconds=60)

    services.departments.delete(account, billing.id)

    kept = services.tickets.get(account, ticket.id).ticket
    assert (kept.department, kept.updated_at, _titles(database, account)) == (None, ticket.updated_at, [])


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
