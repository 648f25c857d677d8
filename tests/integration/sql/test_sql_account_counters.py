"""`account_counters.contacts`: kept equal to COUNT(*) of the account's contacts by every add and delete."""

from __future__ import annotations

import threading
from collections.abc import Callable

import attrs
import pytest
from sqlalchemy import delete, func, select

from engage_core.contacts.model import Contact, ContactDraft, ContactFilter
from engage_core.kernel.errors import PlanLimitReached, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.plans.entitlements import reserve
from engage_core.plans.model import CONTACTS, SEED_PLANS
from engage_core.services import Services
from engage_sql import Database
from engage_sql.accounts.tables import account_counters, accounts
from engage_sql.contacts.tables import contacts

from .conftest import START

MakeContact = Callable[..., Contact]


def _counter(database: Database, account: int) -> int | None:
    with database.engine.connect() as connection:
        value = connection.execute(
            select(account_counters.c.contacts).where(account_counters.c.account_id == account)
        ).scalar()
    return None if value is None else int(value)


def _count(database: Database, account: int) -> int:
    with database.engine.connect() as connection:
        return int(
            connection.execute(
                select(func.count()).select_from(contacts).where(contacts.c.account_id == account)
            ).scalar_one()
        )


def _drop_counter(database: Database, account: int) -> None:
    with database.engine.begin() as connection:
        connection.execute(delete(account_counters).where(account_counters.c.account_id == account))


def _total(services: Services, account: int, page: int = 1) -> int:
    return services.contacts.find(account, ContactFilter(), PageRequest(page=page, per_page=2)).total


def test_a_new_account_counts_zero_contacts(database: Database, account: int) -> None:
    """Creating an account creates its counter row, at zero, in the same transaction."""
    assert _counter(database, account) == 0


def test_counter_follows_adds_and_deletes(
    database: Database, services: Services, account: int, make_account: Callable[..., int], make_contact: MakeContact
) -> None:
    """Each add and delete moves the counter of its own account only; it always equals COUNT(*)."""
    other = make_account("Other")
    made = [make_contact() for _ in range(5)]
    make_contact(account_id=other)
    services.contacts.delete(account, made[0].id)
    services.contacts.delete(account, made[3].id)

    assert (_counter(database, account), _count(database, account)) == (3, 3)
    assert (_counter(database, other), _count(database, other)) == (1, 1)
    assert (_total(services, account), _total(services, other)) == (3, 1)


def test_refused_and_rolled_back_adds_do_not_count(
    database: Database, services: Services, account: int, make_contact: MakeContact
) -> None:
    """A duplicate phone adds nothing, and neither does a unit of work left without commit."""
    first = make_contact()
    with pytest.raises(ValidationFailed):
        make_contact(phone=first.phone)
    with database.uow.workspace(account) as uow:
        uow.contacts.add(ContactDraft(name="Draft", type="instagram"), START)

    assert (_counter(database, account), _count(database, account)) == (1, 1)


def test_deleting_a_missing_contact_counts_nothing(database: Database, account: int, make_contact: MakeContact) -> None:
    """A delete that matched no row (or another account's row) leaves the counter alone."""
    make_contact()
    with database.uow.workspace(account) as uow:
        uow.contacts.delete(987654)
        uow.commit()

    assert _counter(database, account) == 1


def test_a_missing_counter_row_is_recounted(
    database: Database, services: Services, account: int, make_contact: MakeContact
) -> None:
    """Without its row, the total is counted; the next add recreates the row from a recount."""
    for _ in range(3):
        make_contact()
    _drop_counter(database, account)

    assert (_total(services, account), _total(services, account, page=9)) == (3, 3)
    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.contacts.count() == 3

    make_contact()
    assert (_counter(database, account), _count(database, account)) == (4, 4)


def test_a_missing_counter_row_and_a_delete(
    database: Database, services: Services, account: int, make_contact: MakeContact
) -> None:
    """A delete recreates a missing row from a recount that already excludes the deleted contact."""
    made = [make_contact() for _ in range(3)]
    _drop_counter(database, account)

    services.contacts.delete(account, made[1].id)

    assert (_counter(database, account), _count(database, account)) == (2, 2)


def test_deleting_an_account_deletes_its_counter(
    database: Database, account: int, make_account: Callable[..., int], make_contact: MakeContact
) -> None:
    """The counter row cascades with its account (and so do the contacts it counted)."""
    other = make_account("Other")
    make_contact()
    make_contact(account_id=other)
    with database.engine.begin() as connection:
        connection.execute(delete(accounts).where(accounts.c.id == account))

    assert (_counter(database, account), _count(database, account)) == (None, 0)
    assert (_counter(database, other), _count(database, other)) == (1, 1)


@pytest.mark.parametrize("missing_row", [False, True])
def test_concurrent_adds_and_deletes_keep_the_counter_exact(
    database: Database, services: Services, account: int, make_contact: MakeContact, missing_row: bool
) -> None:
    """Writers in parallel threads (each its own connection) never lose an increment, even when
    they race to recreate a missing counter row."""
    doomed = [make_contact() for _ in range(8)]
    if missing_row:
        _drop_counter(database, account)
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def work(n: int) -> None:
        try:
            start.wait(timeout=30)
            with lock:
                victim = doomed.pop()
            for i in range(4):
                make_contact(name=f"Worker {n}.{i}", type="instagram", phone=None)
            services.contacts.delete(account, victim.id)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert (_counter(database, account), _count(database, account)) == (32, 32)


def _add_within(database: Database, account: int, at_most: int) -> Contact | PlanLimitReached:
    """A contact added after `reserve` under a contacts limit of `at_most`, committed when it
    succeeds; the error when refused (by `reserve` on SQLite, by the commit on PostgreSQL)."""
    plan = attrs.evolve(SEED_PLANS[0], limits={**SEED_PLANS[0].limits, CONTACTS: at_most})
    try:
        with database.uow.workspace(account) as uow:
            reserve(uow, plan, CONTACTS, START)
            contact = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
            uow.commit()
    except PlanLimitReached as refused:
        return refused
    return contact


def test_an_add_within_the_limit_is_counted_once(database: Database, account: int, make_contact: MakeContact) -> None:
    """An add under the limit stores the contact and moves the counter by one."""
    make_contact()

    assert isinstance(_add_within(database, account, 2), Contact)
    assert (_counter(database, account), _count(database, account)) == (2, 2)


def test_an_add_at_the_limit_is_refused_and_changes_nothing(
    database: Database, account: int, make_contact: MakeContact
) -> None:
    """With the limit's number of contacts already, the add is PlanLimitReached and neither table moves."""
    make_contact()
    make_contact()

    refused = _add_within(database, account, 2)

    assert isinstance(refused, PlanLimitReached) and refused.maximum == 2
    assert (_counter(database, account), _count(database, account)) == (2, 2)


def test_a_missing_counter_row_is_recounted_before_the_limit_check(
    database: Database, account: int, make_contact: MakeContact
) -> None:
    """Without its row, the limit is checked against a recount: a 4th contact fits under 4."""
    for _ in range(3):
        make_contact()
    _drop_counter(database, account)

    assert isinstance(_add_within(database, account, 4), Contact)
    assert (_counter(database, account), _count(database, account)) == (4, 4)


def test_a_missing_counter_row_at_the_limit_is_refused(
    database: Database, account: int, make_contact: MakeContact
) -> None:
    """Without its row, 3 contacts under a limit of 3 refuse a 4th: the recount is the count."""
    for _ in range(3):
        make_contact()
    _drop_counter(database, account)

    assert isinstance(_add_within(database, account, 3), PlanLimitReached)
    assert _count(database, account) == 3


def test_a_transactions_own_adds_are_in_its_count(database: Database, account: int, make_contact: MakeContact) -> None:
    """Within the transaction that added them, `count` includes its contacts before the commit."""
    make_contact()
    with database.uow.workspace(account) as uow:
        uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        uow.contacts.add(ContactDraft(name="Bo", type="instagram"), START)
        assert (uow.contacts.count(), uow.usage.count(CONTACTS, START)) == (3, 3)


def test_an_add_and_a_delete_in_one_transaction_leave_the_counter_as_it_was(
    database: Database, account: int, make_contact: MakeContact
) -> None:
    """A contact added and deleted before the commit moves the counter by nothing."""
    make_contact()
    with database.uow.workspace(account) as uow:
        added = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        uow.contacts.delete(added.id)
        uow.commit()

    assert (_counter(database, account), _count(database, account)) == (1, 1)


def test_a_write_that_empties_the_transactions_memo_keeps_its_contacts_counted(
    database: Database, account: int
) -> None:
    """A webhook added after a contact, in the same transaction, leaves the contact's count owed to the commit."""
    with database.uow.workspace(account) as uow:
        uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        uow.webhooks.add("Hook", "https://hooks.example.com", (), True, "fake:terces", START)
        uow.commit()

    assert (_counter(database, account), _count(database, account)) == (1, 1)
