"""Tags on SQL only: concurrent adds of one title, and what a set of tags costs in statements (the rest is
in tests/contract/test_contract_contacts.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from engage_core.contacts.model import Contact, ContactPatch
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database

from .conftest import START

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""


def test_concurrent_add_of_one_title_makes_one_tag(database: Database, account: int) -> None:
    """Two transactions adding the same title at once end with one tag, and neither fails."""
    results: list[int] = []

    def second() -> None:
        with database.uow.workspace(account) as uow:
            results.append(uow.tags.add("vip", START).id)
            uow.commit()

    with database.uow.workspace(account) as uow:
        first = uow.tags.add("VIP", START)
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.2)  # the second transaction now waits on the first (its lock or its unique key)
        uow.commit()
    thread.join(timeout=10)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (results, [t.id for t in uow.tags.list(ALL_TAGS).items]) == ([first.id], [first.id])


def test_concurrent_ensure_of_the_same_titles_makes_each_tag_once(database: Database, account: int) -> None:
    """Two transactions ensuring overlapping titles at once end with one tag per title, and neither fails."""
    results: list[list[int]] = []

    def second() -> None:
        with database.uow.workspace(account) as uow:
            results.append([t.id for t in uow.tags.ensure(["b", "C", "d"], START)])
            uow.commit()

    with database.uow.workspace(account) as uow:
        first = [t.id for t in uow.tags.ensure(["a", "B", "c"], START)]
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.2)  # the second transaction now waits on the first (its lock or its unique keys)
        uow.commit()
    thread.join(timeout=10)

    with database.uow.workspace(account, readonly=True) as uow:
        listed = uow.tags.list(ALL_TAGS).items
    assert [t.title for t in listed] == ["a", "B", "c", "d"]
    assert results[0][:2] == first[1:]


def _titles(count: int, prefix: str) -> list[str]:
    """`count` distinct titles of the longest legal length."""
    return [f"{prefix} {n:04d} ".ljust(100, "x") for n in range(count)]


def _statements_of(statements: list[str], action: Callable[[], object]) -> int:
    statements.clear()
    action()
    return len(statements)


def test_creating_a_contact_costs_the_same_statements_for_2_or_100_tags(
    services: Services, account: int, make_contact: Callable[..., Contact], statements: list[str]
) -> None:
    """The tags of a new contact are found, created and linked in a fixed number of statements."""
    services.tags.create(account, "known")

    few = _statements_of(statements, lambda: make_contact(tags=["known", *_titles(1, "few")]))
    many = _statements_of(statements, lambda: make_contact(tags=["known", *_titles(99, "many")]))

    assert few == many


def test_replacing_a_contacts_tags_costs_the_same_statements_for_2_or_100_tags(
    services: Services, account: int, make_contact: Callable[..., Contact], statements: list[str]
) -> None:
    """Replacing a contact's whole set of tags takes a fixed number of statements, whatever its size."""
    small, large = make_contact(tags=_titles(2, "a")), make_contact(tags=_titles(100, "b"))

    few = _statements_of(
        statements, lambda: services.contacts.update(account, small.id, ContactPatch(tags=_titles(2, "c")))
    )
    many = _statements_of(
        statements, lambda: services.contacts.update(account, large.id, ContactPatch(tags=_titles(100, "d")))
    )

    assert few == many
