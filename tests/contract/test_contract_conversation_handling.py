"""Conversation handling (who answers a contact's conversation) on every adapter: the repository's rows,
what deleting a contact or a team member does to them, the service's moves and events, and the
`handled_by` of the conversation listing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from support import NOW, MakeContact

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.handling import ConversationHandling
from engage_core.messaging.messages import MessageDraft
from engage_core.services import Services
from engage_core.team.service import MemberInput
from engage_core.unit_of_work import UnitOfWorkFactory

ALL = PageRequest(per_page=100)
Events = Callable[..., list[DomainEvent]]


@pytest.fixture
def contact(make_contact: MakeContact) -> Contact:
    return make_contact()


@pytest.fixture
def member(services: Services, account: int) -> int:
    created = services.team.create(account, MemberInput("Agent", "agent@example.com", "agent", "long enough"))
    return created.member.id


def _get(uow: UnitOfWorkFactory, account: int, contact_id: int) -> ConversationHandling | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.conversation_handling.get(contact_id)


def _put(uow: UnitOfWorkFactory, account: int, handling: ConversationHandling) -> None:
    with uow.workspace(account) as unit:
        unit.conversation_handling.put(handling)
        unit.commit()


def _say(uow: UnitOfWorkFactory, account: int, contact: Contact, text: str = "Hello") -> None:
    with uow.workspace(account) as unit:
        unit.messages.add(MessageDraft(contact.id, "inbound", "whatsapp", text, "delivered"), NOW)
        unit.commit()


# -- the repository --------------------------------------------------------------------------------


def test_a_contact_without_a_state_has_no_row(uow: UnitOfWorkFactory, account: int, contact: Contact) -> None:
    """`get` answers None until a state is put, also inside a write unit of work."""
    with uow.workspace(account) as unit:
        assert unit.conversation_handling.get(contact.id) is None


def test_a_state_put_is_read_back_whole(uow: UnitOfWorkFactory, account: int, contact: Contact, member: int) -> None:
    """Every field survives the round trip, timestamps with their microseconds."""
    stored = ConversationHandling(
        contact.id, "human", "Wants a refund", member, NOW + timedelta(microseconds=7), NOW + timedelta(seconds=1)
    )
    _put(uow, account, stored)
    assert _get(uow, account, contact.id) == stored


def test_a_second_put_replaces_the_state(uow: UnitOfWorkFactory, account: int, contact: Contact) -> None:
    """`put` writes over the stored state: back to `ai`, reason and assignee gone."""
    _put(uow, account, ConversationHandling(contact.id, "pending", "Why", None, None, NOW))
    _put(uow, account, ConversationHandling(contact.id, "ai", None, None, NOW, NOW))
    assert _get(uow, account, contact.id) == ConversationHandling(contact.id, "ai", None, None, NOW, NOW)


def test_a_state_is_seen_only_in_its_account(
    uow: UnitOfWorkFactory, account: int, contact: Contact, make_account: Callable[..., int]
) -> None:
    """Another account's unit of work does not see the contact's state."""
    _put(uow, account, ConversationHandling(contact.id, "human", updated_at=NOW))
    assert _get(uow, make_account("Other"), contact.id) is None


def test_deleting_the_contact_deletes_its_state(
    services: Services, uow: UnitOfWorkFactory, account: int, contact: Contact
) -> None:
    """The row goes with its contact."""
    _put(uow, account, ConversationHandling(contact.id, "human", updated_at=NOW))
    services.contacts.delete(account, contact.id)
    assert _get(uow, account, contact.id) is None


def test_unassigning_a_member_clears_their_conversations(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact, member: int
) -> None:
    """Only the member's states lose their assignee, stay `human`, and get the new `updated_at`."""
    theirs, other = make_contact(), make_contact()
    _put(uow, account, ConversationHandling(theirs.id, "human", None, member, None, NOW))
    _put(uow, account, ConversationHandling(other.id, "human", None, None, None, NOW))
    later = NOW + timedelta(minutes=1)
    with uow.workspace(account) as unit:
        assert unit.conversation_handling.unassign_member(member, later) == 1
        unit.commit()
    assert _get(uow, account, theirs.id) == ConversationHandling(theirs.id, "human", None, None, None, later)
    assert _get(uow, account, other.id) == ConversationHandling(other.id, "human", None, None, None, NOW)


# -- the service -----------------------------------------------------------------------------------


def test_a_member_deleted_leaves_the_conversation_human(
    services: Services, account: int, contact: Contact, member: int
) -> None:
    """Deleting the assignee keeps the AI silent: `human`, no assignee."""
    services.conversation_handling.take_over(account, contact.id, member)
    services.team.delete(account, member)
    after = services.conversation_handling.get(account, contact.id)
    assert (after.handled_by, after.assignee_id) == ("human", None)


def test_every_move_commits_its_event(
    services: Services, account: int, contact: Contact, member: int, outbox_events: Events
) -> None:
    """Hand-over, take-over, release and resolve each commit their `conversation.*` event with the state."""
    handling = services.conversation_handling
    handling.hand_over(account, contact.id, "Wants a refund")
    handling.take_over(account, contact.id, member)
    handling.release(account, contact.id)
    handling.resolve(account, contact.id)
    moves = [(e.name, e.payload["handled_by"]) for e in outbox_events(account) if e.name.startswith("conversation.")]
    assert moves == [
        ("conversation.handed_over", "pending"),
        ("conversation.taken_over", "human"),
        ("conversation.released", "ai"),
        ("conversation.resolved", "ai"),
    ]


def test_a_late_hand_over_changes_nothing(services: Services, account: int, contact: Contact) -> None:
    """After a take-over the AI's hand-over is refused and the stored state stays `human`."""
    services.conversation_handling.take_over(account, contact.id)
    with pytest.raises(ValidationFailed):
        services.conversation_handling.hand_over(account, contact.id, "Too late")
    assert services.conversation_handling.get(account, contact.id).handled_by == "human"


# -- the listing -----------------------------------------------------------------------------------


def test_the_listing_shows_and_filters_who_answers(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """Summaries carry `handled_by` (`ai` without a state); each filter lists its conversations, with its total."""
    ai, pending, human, silent = (make_contact() for _ in range(4))
    for contact in (ai, pending, human):
        _say(uow, account, contact)
    services.conversation_handling.hand_over(account, pending.id, "Why")
    services.conversation_handling.take_over(account, human.id)
    services.conversation_handling.take_over(account, silent.id)  # no messages: no conversation

    def listed(handled_by: str | None = None, **filters: object) -> tuple[int, set[tuple[int, str]]]:
        page = services.messages.conversations(account, ConversationFilter(handled_by=handled_by, **filters), ALL)
        return page.total, {(s.contact_id, s.handled_by) for s in page.items}

    assert listed() == (3, {(ai.id, "ai"), (pending.id, "pending"), (human.id, "human")})
    assert listed("ai") == (1, {(ai.id, "ai")})
    assert listed("pending") == (1, {(pending.id, "pending")})
    assert listed("human", channel="whatsapp") == (1, {(human.id, "human")})
    assert listed("human", contact_id=ai.id) == (0, set())
    assert listed("pending", contact_id=pending.id) == (1, {(pending.id, "pending")})


def test_a_page_of_one_state_is_newest_first(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """`handled_by=pending` pages its conversations newest first, with the state's total."""
    contacts = [make_contact() for _ in range(5)]
    for n, contact in enumerate(contacts):
        with uow.workspace(account) as unit:
            unit.messages.add(MessageDraft(contact.id, "inbound", "whatsapp", f"m{n}", "delivered"), NOW + timedelta(n))
            unit.commit()
        if n != 2:
            services.conversation_handling.hand_over(account, contact.id, "Why")
    second = services.messages.conversations(
        account, ConversationFilter(handled_by="pending"), PageRequest(page=2, per_page=2)
    )
    assert (second.total, [s.last_message for s in second.items]) == (4, ["m1", "m0"])


def test_an_agent_sees_unassigned_conversations_and_their_own(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact, member: int
) -> None:
    """`visible_to` keeps unassigned conversations and the member's, in every state filter, with its total."""
    other = services.team.create(account, MemberInput("Other", "other@example.com", "agent", "long enough")).member.id
    free, mine, theirs, waiting = (make_contact() for _ in range(4))
    for contact in (free, mine, theirs, waiting):
        _say(uow, account, contact)
    services.conversation_handling.take_over(account, mine.id, member)
    services.conversation_handling.take_over(account, theirs.id, other)
    services.conversation_handling.hand_over(account, waiting.id, "Why")

    def listed(handled_by: str | None = None, page: PageRequest = ALL) -> tuple[int, set[int]]:
        found = services.messages.conversations(
            account, ConversationFilter(handled_by=handled_by, visible_to=member), page
        )
        return found.total, {s.contact_id for s in found.items}

    assert listed() == (3, {free.id, mine.id, waiting.id})
    assert listed("human") == (1, {mine.id})
    assert listed("ai") == (1, {free.id})
    assert listed("pending") == (1, {waiting.id})
    assert listed(page=PageRequest(page=2, per_page=2))[0] == 3


def test_the_assigned_and_unread_filters(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact, member: int
) -> None:
    """`assignee_id` keeps the member's conversations; `unread` those with unread messages; with totals."""
    mine, read, free = (make_contact() for _ in range(3))
    for contact in (mine, read, free):
        _say(uow, account, contact)
    services.conversation_handling.take_over(account, mine.id, member)
    services.messages.mark_read(account, read.id)

    def listed(**filters: object) -> tuple[int, set[int]]:
        found = services.messages.conversations(account, ConversationFilter(**filters), ALL)  # type: ignore[arg-type]
        return found.total, {s.contact_id for s in found.items}

    assert listed(assignee_id=member) == (1, {mine.id})
    assert listed(unread=True) == (2, {mine.id, free.id})
    assert listed(unread=True, assignee_id=member, handled_by="human") == (1, {mine.id})
    assert listed(unread=True, handled_by="ai") == (1, {free.id})
