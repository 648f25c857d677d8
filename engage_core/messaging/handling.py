"""Who answers a contact's conversation: the AI or a human (the hand-over state; beyond SPEC 4).

Every contact has one conversation across its channels, and one handling state, `handled_by`, in the
web chat's vocabulary (SPEC 2 Web chat session):

- `ai`: the AI agent may answer (the state of every contact until something happens);
- `pending`: the AI handed the conversation over and waits for a human; it stays silent;
- `human`: a team member (or the API key's caller) took the conversation over; the AI is silent.

Moves, the only ones there are::

    ai       --AI decides handoff (reason)---->  pending   conversation.handed_over
    ai       --AI decides resolve------------->  ai        conversation.resolved (context reset)
    ai, pending --take-over (team member?)---->  human     conversation.taken_over
    human    --take-over by another member---->  human     conversation.taken_over (reassigned)
    pending, human --release------------------>  ai        conversation.released

The AI's two moves are legal only where the AI may answer (`ai`): anywhere else a human owns the
conversation, so the AI's decision came too late and is refused (ValidationFailed on `handled_by`,
a 422, as the order and ticket state machines refuse theirs). The people's moves cannot be wrong:
taking over a conversation a human already handles, with no other team member named, and releasing
one the AI handles change nothing and emit nothing, so a retried request is harmless (as closing a
closed ticket is).

Resolving is not a state: it resets the AI's context. `context_since` is the moment of the last
resolve, and the AI is shown only the messages created after it; so the next inbound message of a
resolved conversation starts a fresh context by itself, with nothing to move. `context_since` only
moves forward (a resolve stamped earlier than the last one keeps the later), and a release keeps it:
the AI resumes with what the human said.

`reason` is why the AI handed over; it stays while a human handles the conversation and is cleared
when the conversation is released. `assignee_id` is the team member who took it over (None for the
API key's caller, or once that member is deleted).

A contact without a stored state is handled by the AI with no reset: storage keeps rows only for
contacts whose state ever moved. Events carry `ConversationHandling.event_payload()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent

AI = "ai"
PENDING = "pending"
HUMAN = "human"
HANDLED_BY: tuple[str, ...] = (AI, PENDING, HUMAN)
"""The web chat's `handled_by` values (SPEC 2), in the order a conversation usually meets them."""

REASON_MAX = 1000
"""The longest hand-over reason, in characters."""

HANDED_OVER = "conversation.handed_over"
RESOLVED = "conversation.resolved"
TAKEN_OVER = "conversation.taken_over"
RELEASED = "conversation.released"
EVENTS: tuple[str, ...] = (HANDED_OVER, RESOLVED, TAKEN_OVER, RELEASED)
"""The events of the moves: extensions of SPEC 6, listed in `engage_core.kernel.events.EXTENSIONS`."""


@attrs.frozen
class ConversationHandling:
    """Who answers a contact's conversation, and from when the AI's context starts."""

    contact_id: int
    handled_by: str = AI
    reason: str | None = None
    """Why the AI handed over (while `pending` or `human`)."""
    assignee_id: int | None = None
    """The team member who took the conversation over (while `human`)."""
    context_since: datetime | None = None
    """The last resolve: the AI is shown only messages created after it. None: every message."""
    updated_at: datetime | None = None
    """The last move; None for a contact whose state never moved."""

    def visible_to(self, member_id: int) -> bool:
        """Whether an `agent` team member sees the conversation: it is unassigned or theirs (admins
        see every conversation)."""
        return self.assignee_id is None or self.assignee_id == member_id

    @property
    def ai_may_answer(self) -> bool:
        """Whether the AI may answer: exactly when `handled_by` is `ai`."""
        return self.handled_by == AI

    def event_payload(self, occurred_at: datetime) -> Mapping[str, Any]:
        """The `data` of every `conversation.*` event."""
        return {
            "contact_id": self.contact_id,
            "handled_by": self.handled_by,
            "reason": self.reason,
            "assignee_id": self.assignee_id,
            "context_since": format_optional(self.context_since),
            "occurred_at": format_timestamp(occurred_at),
        }


Move = tuple[ConversationHandling, list[DomainEvent]]
"""A state after a move, and the events the move emits (none when nothing changed)."""


def hand_over(handling: ConversationHandling, reason: str, now: datetime) -> Move:
    """The AI decided `handoff`: `ai` -> `pending`, with the reason (already validated)."""
    _ai_decides(handling, "hand it over")
    return _moved(attrs.evolve(handling, handled_by=PENDING, reason=reason, assignee_id=None), HANDED_OVER, now)


def resolve(handling: ConversationHandling, now: datetime) -> Move:
    """The AI decided `resolve`: the state stays `ai`; the context starts after `now` (or after a
    later resolve, already stored)."""
    _ai_decides(handling, "resolve it")
    since = now if handling.context_since is None else max(handling.context_since, now)
    return _moved(attrs.evolve(handling, context_since=since), RESOLVED, now)


def take_over(handling: ConversationHandling, assignee_id: int | None, now: datetime) -> Move:
    """A human takes the conversation over: `ai` or `pending` -> `human`, assigned to `assignee_id`.
    Already `human`: naming another team member reassigns it; otherwise nothing changes."""
    if handling.handled_by == HUMAN and (assignee_id is None or assignee_id == handling.assignee_id):
        return handling, []
    return _moved(attrs.evolve(handling, handled_by=HUMAN, assignee_id=assignee_id), TAKEN_OVER, now)


def release(handling: ConversationHandling, now: datetime) -> Move:
    """The conversation goes back to the AI: `pending` or `human` -> `ai`, its reason and assignee
    cleared, its context kept. Already `ai`: nothing changes."""
    if handling.handled_by == AI:
        return handling, []
    return _moved(attrs.evolve(handling, handled_by=AI, reason=None, assignee_id=None), RELEASED, now)


def _ai_decides(handling: ConversationHandling, what: str) -> None:
    if not handling.ai_may_answer:
        who = "waits for a human" if handling.handled_by == PENDING else "is handled by a human"
        raise ValidationFailed.on(
            "handled_by", f"The conversation {who} ({handling.handled_by}); the AI cannot {what}."
        )


def _moved(handling: ConversationHandling, event: str, now: datetime) -> Move:
    moved = attrs.evolve(handling, updated_at=now)
    return moved, [DomainEvent(event, moved.event_payload(now), now)]
