"""The hand-over rules of `engage_core.messaging.handling`: pure moves and their events."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest

from engage_core.kernel.errors import ValidationFailed
from engage_core.messaging.handling import (
    AI,
    HUMAN,
    PENDING,
    ConversationHandling,
    hand_over,
    release,
    resolve,
    take_over,
)

from ..factories import START

LATER = START + timedelta(minutes=5)


def state(handled_by: str = AI, **fields: object) -> ConversationHandling:
    return attrs.evolve(ConversationHandling(7), handled_by=handled_by, **fields)


def test_a_contact_that_never_moved_is_handled_by_the_ai() -> None:
    """The default state: `ai`, no reason, no assignee, no context reset, never updated."""
    default = ConversationHandling(7)
    assert (default.handled_by, default.reason, default.assignee_id, default.context_since, default.updated_at) == (
        AI,
        None,
        None,
        None,
        None,
    )


@pytest.mark.parametrize(("handled_by", "may"), [(AI, True), (PENDING, False), (HUMAN, False)])
def test_the_ai_may_answer_only_an_ai_conversation(handled_by: str, may: bool) -> None:
    """`ai_may_answer` is true exactly in `ai`."""
    assert state(handled_by).ai_may_answer is may


def test_a_hand_over_waits_for_a_human_with_its_reason() -> None:
    """ai -> pending, the reason kept, `conversation.handed_over` emitted with the state."""
    moved, events = hand_over(state(), "Asks for a refund", START)
    assert (moved.handled_by, moved.reason, moved.updated_at) == (PENDING, "Asks for a refund", START)
    assert [(e.name, e.payload["handled_by"], e.payload["reason"]) for e in events] == [
        ("conversation.handed_over", "pending", "Asks for a refund")
    ]


@pytest.mark.parametrize("handled_by", [PENDING, HUMAN])
def test_the_ai_cannot_hand_over_what_it_does_not_handle(handled_by: str) -> None:
    """A hand-over outside `ai` is a 422 on `handled_by`."""
    with pytest.raises(ValidationFailed) as refused:
        hand_over(state(handled_by), "Late decision", START)
    assert list(refused.value.errors) == ["handled_by"]


def test_a_resolve_resets_the_context_and_keeps_the_ai() -> None:
    """ai stays ai; `context_since` is the resolve's time; `conversation.resolved` emitted."""
    moved, events = resolve(state(), LATER)
    assert (moved.handled_by, moved.context_since) == (AI, LATER)
    assert [(e.name, e.payload["context_since"]) for e in events] == [
        ("conversation.resolved", "2026-01-01T12:05:00.000000Z")
    ]


def test_a_resolve_stamped_earlier_never_moves_the_context_back() -> None:
    """A late resolve with an older time keeps the later `context_since`."""
    moved, _ = resolve(state(context_since=LATER), START)
    assert moved.context_since == LATER


@pytest.mark.parametrize("handled_by", [PENDING, HUMAN])
def test_the_ai_cannot_resolve_what_it_does_not_handle(handled_by: str) -> None:
    """A resolve outside `ai` is a 422 on `handled_by`."""
    with pytest.raises(ValidationFailed) as refused:
        resolve(state(handled_by), START)
    assert list(refused.value.errors) == ["handled_by"]


@pytest.mark.parametrize("handled_by", [AI, PENDING])
def test_a_take_over_hands_the_conversation_to_a_human(handled_by: str) -> None:
    """ai or pending -> human with the assignee; `conversation.taken_over`."""
    moved, events = take_over(state(handled_by, reason="Why"), 3, START)
    assert (moved.handled_by, moved.assignee_id) == (HUMAN, 3)
    assert [(e.name, e.payload["assignee_id"]) for e in events] == [("conversation.taken_over", 3)]


def test_a_take_over_keeps_the_hand_over_reason() -> None:
    """The human who takes a pending conversation still sees why the AI handed it over."""
    moved, _ = take_over(state(PENDING, reason="Asks for a refund"), None, START)
    assert moved.reason == "Asks for a refund"


@pytest.mark.parametrize("assignee", [None, 3])
def test_taking_over_again_changes_nothing(assignee: int | None) -> None:
    """Already human: the same member, or none named, is no move and no event."""
    current = state(HUMAN, assignee_id=3)
    assert take_over(current, assignee, START) == (current, [])


def test_taking_over_with_another_member_reassigns() -> None:
    """A human conversation taken over by another member moves to them, with an event."""
    moved, events = take_over(state(HUMAN, assignee_id=3), 4, START)
    assert (moved.handled_by, moved.assignee_id, [e.name for e in events]) == (
        HUMAN,
        4,
        ["conversation.taken_over"],
    )


@pytest.mark.parametrize("handled_by", [PENDING, HUMAN])
def test_a_release_gives_the_conversation_back_to_the_ai(handled_by: str) -> None:
    """pending or human -> ai; reason and assignee cleared, context kept; `conversation.released`."""
    current = state(handled_by, reason="Why", assignee_id=3, context_since=START)
    moved, events = release(current, LATER)
    assert (moved.handled_by, moved.reason, moved.assignee_id, moved.context_since) == (AI, None, None, START)
    assert [e.name for e in events] == ["conversation.released"]


def test_releasing_an_ai_conversation_changes_nothing() -> None:
    """Already ai: no move and no event (a retried release is harmless)."""
    current = state(AI, context_since=START)
    assert release(current, LATER) == (current, [])


def test_every_event_carries_the_whole_state() -> None:
    """The payload: contact_id, handled_by, reason, assignee_id, context_since, occurred_at."""
    _, events = take_over(state(PENDING, reason="Why", context_since=START), 3, LATER)
    assert events[0].payload == {
        "contact_id": 7,
        "handled_by": "human",
        "reason": "Why",
        "assignee_id": 3,
        "context_since": "2026-01-01T12:00:00.000000Z",
        "occurred_at": "2026-01-01T12:05:00.000000Z",
    }
