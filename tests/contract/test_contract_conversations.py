"""Conversation summaries: one per contact, unread counts, filters, pages and their tenancy, on
every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from support import NOW, MakeContact, add_message, draft_for, draft_to

from engage_core.contacts.model import ContactPatch
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.services import Services
from engage_core.unit_of_work import UnitOfWorkFactory

ALL = PageRequest(per_page=100)


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _list(uow: UnitOfWorkFactory, account: int, page: PageRequest = ALL, **filters: Any) -> Page[ConversationSummary]:
    with uow.workspace(account, readonly=True) as unit:
        return unit.messages.conversations(ConversationFilter(**filters), page)


def _rows(page: Page[ConversationSummary]) -> list[tuple[str, str, str, int]]:
    return [(s.contact_name, s.channel, s.last_message, s.unread_count) for s in page.items]


def test_one_summary_per_contact_newest_first(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """Each contact's newest message decides its place; equal instants put the later insert first."""
    ada, bob, cy = make_contact(name="Ada"), make_contact(name="Bob"), make_contact(name="Cy")
    add_message(uow, account, draft_to(ada.id, content="a1"), NOW + timedelta(minutes=1))
    add_message(uow, account, draft_to(bob.id, content="b1"))
    add_message(uow, account, draft_to(cy.id, content="c1"))
    add_message(uow, account, draft_to(ada.id, content="a0"), NOW - timedelta(minutes=1))  # older: not last
    assert _rows(_list(uow, account)) == [
        ("Ada", "whatsapp", "a1", 2),
        ("Cy", "whatsapp", "c1", 1),
        ("Bob", "whatsapp", "b1", 1),
    ]


def test_only_unread_inbound_messages_are_counted(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """Outbound messages and read inbound ones do not count."""
    contact = make_contact()
    add_message(uow, account, draft_to(contact.id))
    add_message(uow, account, draft_to(contact.id, status="read"))
    add_message(uow, account, draft_to(contact.id, direction="outbound", status="sent"))
    summary = _list(uow, account).items[0]
    assert (summary.unread_count, summary.last_message) == (1, "Hello")


def test_marking_read_clears_the_count_and_a_new_message_counts_again(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """mark_read zeroes every scope's count; the next inbound message counts 1."""
    contact = make_contact()
    add_message(uow, account, draft_to(contact.id))
    add_message(uow, account, draft_to(contact.id, channel="telegram"))
    with uow.workspace(account) as unit:
        unit.messages.mark_read(contact.id, NOW)
        unit.commit()
    cleared = [_list(uow, account, channel=c).items[0].unread_count for c in (None, "whatsapp", "telegram")]
    add_message(uow, account, draft_to(contact.id))
    assert (cleared, _list(uow, account).items[0].unread_count) == ([0, 0, 0], 1)


def test_updating_an_inbound_message_moves_the_count(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """An inbound message set to read stops counting; set back, it counts again."""
    contact = make_contact()
    add_message(uow, account, draft_to(contact.id))
    with uow.workspace(account) as unit:
        message = unit.messages.for_contact(contact.id, None, ALL).items[0]
        unit.messages.update(attrs.evolve(message, status="read"))
        read = unit.messages.conversations(ConversationFilter(), ALL).items[0].unread_count
        unit.messages.update(attrs.evolve(message, status="delivered"))
        unit.commit()
    assert (read, _list(uow, account).items[0].unread_count) == (0, 1)


def test_the_channel_filter_sums_up_that_channels_messages_only(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """Last message and unread count of the channel; contacts without any are left out."""
    ada, bob = make_contact(name="Ada"), make_contact(name="Bob")
    add_message(uow, account, draft_to(ada.id, channel="telegram", content="tg"))
    add_message(uow, account, draft_to(ada.id, content="wa"), NOW + timedelta(minutes=1))
    add_message(uow, account, draft_to(bob.id, content="bob"))
    page = _list(uow, account, channel="telegram")
    assert (page.total, _rows(page)) == (1, [("Ada", "telegram", "tg", 1)])


def test_the_contact_filter_gives_that_contact_only(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """One summary, total 1; its second page is empty with the same total."""
    ada, bob = make_contact(name="Ada"), make_contact(name="Bob")
    add_message(uow, account, draft_to(ada.id))
    add_message(uow, account, draft_to(bob.id))
    first = _list(uow, account, contact_id=ada.id)
    second = _list(uow, account, PageRequest(page=2), contact_id=ada.id)
    assert [(p.total, [s.contact_id for s in p.items]) for p in (first, second)] == [(1, [ada.id]), (1, [])]


def test_pages_carry_the_total(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """Five conversations in pages of two: the third page has one; a page past the end none."""
    for n in range(5):
        add_message(uow, account, draft_to(make_contact(name=f"C{n}").id), NOW + timedelta(minutes=n))
    pages = [_list(uow, account, PageRequest(page=p, per_page=2)) for p in (1, 3, 4)]
    assert [(p.total, [s.contact_name for s in p.items]) for p in pages] == [
        (5, ["C4", "C3"]),
        (5, ["C0"]),
        (5, []),
    ]


def test_conversations_are_the_accounts_own(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """Another account sees neither the summaries nor their total."""
    add_message(uow, account, draft_to(make_contact().id))
    page = _list(uow, other)
    assert (page.total, list(page.items)) == (0, [])


def test_the_contact_name_is_the_current_one(
    uow: UnitOfWorkFactory, account: int, services: Services, make_contact: MakeContact
) -> None:
    """A renamed contact shows its new name."""
    contact = make_contact(name="Ada")
    add_message(uow, account, draft_to(contact.id))
    services.contacts.update(account, contact.id, ContactPatch(name="Ada Lovelace"))
    assert _list(uow, account).items[0].contact_name == "Ada Lovelace"


def test_deleting_a_contact_removes_its_conversation_from_the_total(
    uow: UnitOfWorkFactory, account: int, services: Services, make_contact: MakeContact
) -> None:
    """The summary rows go with the contact, and every scope's total drops."""
    ada, bob = make_contact(name="Ada"), make_contact(name="Bob")
    add_message(uow, account, draft_to(ada.id))
    add_message(uow, account, draft_to(ada.id, channel="telegram"))
    add_message(uow, account, draft_to(bob.id))
    services.contacts.delete(account, ada.id)
    pages = [_list(uow, account, channel=c) for c in (None, "whatsapp", "telegram")]
    assert [(p.total, [s.contact_name for s in p.items]) for p in pages] == [(1, ["Bob"]), (1, ["Bob"]), (0, [])]


def test_mark_read_of_a_read_conversation_counts_nothing(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """A second mark_read() finds nothing unread."""
    contact = make_contact()
    add_message(uow, account, draft_for(contact))
    with uow.workspace(account) as unit:
        counts = [unit.messages.mark_read(contact.id, NOW) for _ in range(2)]

    assert counts == [1, 0]
