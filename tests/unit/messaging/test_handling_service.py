"""ConversationHandlingService over the in-memory fakes: reading who answers, the AI's decisions, the
people's moves, their events, and what deleting a contact or a team member does to them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import pytest

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.messages import MessageDraft
from engage_core.services import Services
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory

NewContact = Callable[..., Contact]
NewMember = Callable[..., int]


@pytest.fixture
def contact(new_contact: NewContact) -> Contact:
    return new_contact()


@pytest.fixture
def new_member(uow: InMemoryUnitOfWorkFactory, account_id: int, clock: FakeClock) -> NewMember:
    """`new_member(email="agent@example.com", status="active") -> member id`, stored directly."""

    def make(email: str = "agent@example.com", status: str = "active") -> int:
        with uow.workspace(account_id) as tx:
            member = tx.team.add(MemberDraft("Agent", email, "agent", status), "fake$x$y", clock.now())
            tx.commit()
        return member.id

    return make


def events(store: InMemoryStore, account_id: int) -> list[tuple[str, Mapping[str, Any]]]:
    return [(e.name, e.payload) for e in store.events(account_id) if e.name.startswith("conversation.")]


# -- reading ---------------------------------------------------------------------------------------


def test_a_new_contact_is_handled_by_the_ai(services: Services, account_id: int, contact: Contact) -> None:
    """No state stored: `ai`, the AI may answer, no context reset."""
    handling = services.conversation_handling
    assert handling.get(account_id, contact.id).handled_by == "ai"
    assert handling.may_ai_answer(account_id, contact.id) is True
    assert handling.ai_context_since(account_id, contact.id) is None


def test_reading_stores_nothing(
    services: Services, account_id: int, contact: Contact, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Asking about a contact creates no row: only contacts whose state moved have one."""
    services.conversation_handling.may_ai_answer(account_id, contact.id)
    with uow.workspace(account_id, readonly=True) as tx:
        assert tx.conversation_handling.get(contact.id) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda s, a, c: s.conversation_handling.get(a, c),
        lambda s, a, c: s.conversation_handling.may_ai_answer(a, c),
        lambda s, a, c: s.conversation_handling.take_over(a, c),
        lambda s, a, c: s.conversation_handling.release(a, c),
        lambda s, a, c: s.conversation_handling.hand_over(a, c, "Why"),
        lambda s, a, c: s.conversation_handling.resolve(a, c),
    ],
    ids=["get", "may_ai_answer", "take_over", "release", "hand_over", "resolve"],
)
def test_another_accounts_contact_is_not_found(
    services: Services, new_account: Callable[..., int], new_contact: NewContact, call: Any
) -> None:
    """Every method answers NotFound for a contact of another account."""
    theirs = new_contact(account=new_account("Other"))
    mine = new_account("Mine")
    with pytest.raises(NotFound):
        call(services, mine, theirs.id)


# -- the AI's decisions ----------------------------------------------------------------------------


def test_a_hand_over_silences_the_ai_and_says_why(
    services: Services, account_id: int, contact: Contact, store: InMemoryStore
) -> None:
    """After the AI hands over, it may not answer; the state and the event carry the reason."""
    moved = services.conversation_handling.hand_over(account_id, contact.id, "  Wants a refund  ")
    assert (moved.handled_by, moved.reason) == ("pending", "Wants a refund")
    assert services.conversation_handling.may_ai_answer(account_id, contact.id) is False
    assert [(name, data["reason"]) for name, data in events(store, account_id)] == [
        ("conversation.handed_over", "Wants a refund")
    ]


@pytest.mark.parametrize("reason", ["", "   ", "x" * 1001])
def test_a_hand_over_needs_a_reason_of_at_most_1000_characters(
    services: Services, account_id: int, contact: Contact, reason: str
) -> None:
    """A blank or too long reason is a 422 on `reason`, and nothing moves."""
    with pytest.raises(ValidationFailed) as refused:
        services.conversation_handling.hand_over(account_id, contact.id, reason)
    assert list(refused.value.errors) == ["reason"]
    assert services.conversation_handling.may_ai_answer(account_id, contact.id) is True


def test_a_hand_over_after_a_take_over_is_refused(
    services: Services, account_id: int, contact: Contact, store: InMemoryStore
) -> None:
    """The AI's late decision does not undo a take-over: 422 on `handled_by`, no event."""
    services.conversation_handling.take_over(account_id, contact.id)
    with pytest.raises(ValidationFailed) as refused:
        services.conversation_handling.hand_over(account_id, contact.id, "Too late")
    assert list(refused.value.errors) == ["handled_by"]
    assert services.conversation_handling.get(account_id, contact.id).handled_by == "human"
    assert [name for name, _ in events(store, account_id)] == ["conversation.taken_over"]


def test_a_hand_over_stamped_by_the_caller_uses_that_time(
    services: Services, account_id: int, contact: Contact, clock: FakeClock
) -> None:
    """`now` given: the move and its event carry it."""
    decided = clock.now() - timedelta(seconds=3)
    moved = services.conversation_handling.hand_over(account_id, contact.id, "Why", decided)
    assert moved.updated_at == decided


def test_a_resolve_restarts_the_ai_context(
    services: Services, account_id: int, contact: Contact, clock: FakeClock, store: InMemoryStore
) -> None:
    """The AI keeps the conversation; its context starts at the resolve; `conversation.resolved`."""
    now = clock.advance(minutes=2)
    services.conversation_handling.resolve(account_id, contact.id)
    assert services.conversation_handling.ai_context_since(account_id, contact.id) == now
    assert services.conversation_handling.may_ai_answer(account_id, contact.id) is True
    assert [name for name, _ in events(store, account_id)] == ["conversation.resolved"]


def test_a_new_message_after_a_resolve_starts_a_fresh_context(
    services: Services, account_id: int, contact: Contact, clock: FakeClock, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Only the messages created after `context_since` are the AI's context: the next one starts it."""
    with uow.workspace(account_id) as tx:
        tx.messages.add(MessageDraft(contact.id, "inbound", "instagram", "Old question", "delivered"), clock.now())
        tx.commit()
    services.conversation_handling.resolve(account_id, contact.id, clock.advance(seconds=1))
    with uow.workspace(account_id) as tx:
        tx.messages.add(
            MessageDraft(contact.id, "inbound", "instagram", "New question", "delivered"), clock.advance(seconds=1)
        )
        tx.commit()
    since = services.conversation_handling.ai_context_since(account_id, contact.id)
    history = services.messages.for_contact(account_id, contact.id, None, PageRequest()).items
    assert since is not None
    assert [m.content for m in history if m.created_at > since] == ["New question"]


def test_a_resolve_while_a_human_handles_is_refused(services: Services, account_id: int, contact: Contact) -> None:
    """The AI cannot reset a conversation it does not handle: 422 on `handled_by`."""
    services.conversation_handling.hand_over(account_id, contact.id, "Why")
    with pytest.raises(ValidationFailed):
        services.conversation_handling.resolve(account_id, contact.id)
    assert services.conversation_handling.ai_context_since(account_id, contact.id) is None


# -- the people's moves ----------------------------------------------------------------------------


def test_a_take_over_assigns_the_team_member(
    services: Services, account_id: int, contact: Contact, new_member: NewMember, store: InMemoryStore
) -> None:
    """The named member is the assignee; `conversation.taken_over` says so."""
    member = new_member()
    moved = services.conversation_handling.take_over(account_id, contact.id, member)
    assert (moved.handled_by, moved.assignee_id) == ("human", member)
    assert [(name, data["assignee_id"]) for name, data in events(store, account_id)] == [
        ("conversation.taken_over", member)
    ]


def test_a_take_over_of_a_pending_conversation_keeps_the_reason(
    services: Services, account_id: int, contact: Contact
) -> None:
    """The human sees why the AI handed over."""
    services.conversation_handling.hand_over(account_id, contact.id, "Wants a refund")
    moved = services.conversation_handling.take_over(account_id, contact.id)
    assert (moved.handled_by, moved.reason) == ("human", "Wants a refund")


@pytest.mark.parametrize(
    ("status", "message"), [(None, "does not exist"), ("inactive", "inactive team member")], ids=["unknown", "inactive"]
)
def test_a_take_over_needs_an_active_member_of_the_account(
    services: Services, account_id: int, contact: Contact, new_member: NewMember, status: str | None, message: str
) -> None:
    """An unknown or inactive member is a 422 on `team_member_id`, and nothing moves."""
    member = 999_999 if status is None else new_member(status=status)
    with pytest.raises(ValidationFailed) as refused:
        services.conversation_handling.take_over(account_id, contact.id, member)
    assert message in refused.value.errors["team_member_id"][0]
    assert services.conversation_handling.may_ai_answer(account_id, contact.id) is True


def test_taking_over_twice_emits_once(
    services: Services, account_id: int, contact: Contact, store: InMemoryStore
) -> None:
    """A retried take-over changes nothing and emits nothing."""
    first = services.conversation_handling.take_over(account_id, contact.id)
    again = services.conversation_handling.take_over(account_id, contact.id)
    assert again == first
    assert [name for name, _ in events(store, account_id)] == ["conversation.taken_over"]


def test_a_release_lets_the_ai_answer_again_with_its_context(
    services: Services, account_id: int, contact: Contact, clock: FakeClock, store: InMemoryStore
) -> None:
    """human -> ai; the context reset before the take-over is kept; `conversation.released`."""
    resolved_at = clock.now()
    services.conversation_handling.resolve(account_id, contact.id)
    services.conversation_handling.take_over(account_id, contact.id)
    moved = services.conversation_handling.release(account_id, contact.id)
    assert (moved.handled_by, moved.context_since) == ("ai", resolved_at)
    assert services.conversation_handling.may_ai_answer(account_id, contact.id) is True
    assert [name for name, _ in events(store, account_id)][-1] == "conversation.released"


def test_a_release_dismisses_a_pending_hand_over(services: Services, account_id: int, contact: Contact) -> None:
    """pending -> ai without anybody taking over; the reason is cleared."""
    services.conversation_handling.hand_over(account_id, contact.id, "Why")
    moved = services.conversation_handling.release(account_id, contact.id)
    assert (moved.handled_by, moved.reason) == ("ai", None)


def test_releasing_an_ai_conversation_emits_nothing(
    services: Services, account_id: int, contact: Contact, store: InMemoryStore
) -> None:
    """A release where the AI answers already is harmless: no row, no event."""
    assert services.conversation_handling.release(account_id, contact.id).updated_at is None
    assert events(store, account_id) == []


# -- listing, and what deletes do ------------------------------------------------------------------


def test_conversations_show_and_filter_by_who_answers(
    services: Services, account_id: int, new_contact: NewContact, uow: InMemoryUnitOfWorkFactory, clock: FakeClock
) -> None:
    """Each summary has `handled_by`; `handled_by=pending` lists the conversations waiting for a human."""
    ada, bob = new_contact("Ada"), new_contact("Bob")
    with uow.workspace(account_id) as tx:
        for contact in (ada, bob):
            tx.messages.add(
                MessageDraft(contact.id, "inbound", "instagram", "Hi", "delivered"), clock.advance(seconds=1)
            )
        tx.commit()
    services.conversation_handling.hand_over(account_id, bob.id, "Why")

    def listed(handled_by: str | None) -> list[tuple[str, str]]:
        found = services.messages.conversations(account_id, ConversationFilter(handled_by=handled_by), PageRequest())
        return [(s.contact_name, s.handled_by) for s in found.items]

    assert listed(None) == [("Bob", "pending"), ("Ada", "ai")]
    assert (listed("pending"), listed("ai"), listed("human")) == ([("Bob", "pending")], [("Ada", "ai")], [])


def test_an_unknown_handled_by_filter_is_refused(services: Services, account_id: int) -> None:
    """`handled_by` outside ai, pending, human is a 422 on `handled_by`."""
    with pytest.raises(ValidationFailed) as refused:
        services.messages.conversations(account_id, ConversationFilter(handled_by="bot"), PageRequest())
    assert list(refused.value.errors) == ["handled_by"]


def test_deleting_the_contact_removes_its_state(
    services: Services, account_id: int, contact: Contact, uow: InMemoryUnitOfWorkFactory
) -> None:
    """The state row goes with the contact."""
    services.conversation_handling.take_over(account_id, contact.id)
    services.contacts.delete(account_id, contact.id)
    with uow.workspace(account_id, readonly=True) as tx:
        assert tx.conversation_handling.get(contact.id) is None


def test_deleting_the_assignee_keeps_the_conversation_with_a_human(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int, contact: Contact, new_member: NewMember
) -> None:
    """The member's conversations stay `human`, with no assignee: the AI stays silent."""
    services = Services.build(uow, clock)
    member = new_member()
    services.conversation_handling.take_over(account_id, contact.id, member)
    services.team.delete(account_id, member)
    after = services.conversation_handling.get(account_id, contact.id)
    assert (after.handled_by, after.assignee_id) == ("human", None)
