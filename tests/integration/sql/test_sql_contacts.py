"""Contacts on SQL only: the statements a page costs, the cascade of a delete seen in the tables,
and concurrent creates (what every adapter must do is in tests/contract/test_contract_contacts.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from engage_core.contacts.model import Contact, ContactFilter, ContactInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""

MakeContact = Callable[..., Contact]


def test_find_costs_one_statement(
    services: Services, account: int, make_contact: MakeContact, statements: list[str]
) -> None:
    """A page of contacts with tags is one statement (rows, tags and total), whatever its size."""
    for n in range(20):
        make_contact(tags=[f"tag {n}", "common"])
    statements.clear()

    page = services.contacts.find(account, ContactFilter(), PageRequest(per_page=15))

    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert (len(page.items), page.total, len(queries)) == (15, 20, 1)
    assert all(len(c.tags) == 2 for c in page.items)


def test_filtered_find_costs_two_statements(
    services: Services, account: int, make_contact: MakeContact, statements: list[str]
) -> None:
    """A filtered page is one COUNT of the matches and one page query, whatever its size."""
    for n in range(20):
        make_contact(tags=[f"tag {n}", "common"])
    statements.clear()

    page = services.contacts.find(account, ContactFilter(tag="common"), PageRequest(per_page=15))

    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert (len(page.items), page.total, len(queries)) == (15, 20, 2)
    assert all(len(c.tags) == 2 for c in page.items)


def test_delete_cascades_to_links(
    services: Services, database: Database, account: int, make_contact: MakeContact
) -> None:
    """Deleting a contact removes its notes, tag links, list memberships and segment overrides."""
    contact = make_contact(tags=["vip"])
    services.contacts.add_note(account, contact.id, "Called twice")
    newsletter = services.lists.create(account, "Newsletter")
    services.contacts.add_to_list(account, contact.id, newsletter.id)
    manual = services.segments.create(account, "Manual")
    services.contacts.add_to_segment(account, contact.id, manual.id)

    services.contacts.delete(account, contact.id)

    tag = services.tags.list(account, ALL_TAGS).items[0]
    left = (
        tag.contacts_count,
        services.lists.get(account, newsletter.id).contacts_count,
        services.segments.get(account, manual.id).contacts_count,
    )
    assert left == (0, 0, 0)
    with database.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM contact_notes").scalar() == 0


def test_concurrent_creates_of_one_phone_make_one_contact(services: Services, database: Database, account: int) -> None:
    """Two requests racing to create the same phone: one contact, and the loser gets a phone error."""
    outcomes: list[str] = []

    def create(name: str) -> None:
        try:
            services.contacts.create(account, ContactInput(name=name, type="whatsapp", phone="+966501234567"))
            outcomes.append("created")
        except ValidationFailed as exc:
            outcomes.append(next(iter(exc.errors)))

    threads = [threading.Thread(target=create, args=(f"Racer {n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (sorted(outcomes), uow.contacts.count()) == (["created", "phone", "phone", "phone"], 1)
