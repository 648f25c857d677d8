"""The hand-over of a conversation between the AI and the people: the moves of
`engage_core.messaging.handling`, each in one unit of work with its event.

People move a conversation through the API or the CLI (`take_over`, `release`); the automatic
replies ask `may_ai_answer` and `ai_context_since` before answering and report the AI's decision
with `hand_over` or `resolve`. The AI's decision is refused (ValidationFailed on `handled_by`) when a
human took the conversation over since the reply was started, so an automatic reply that loses that
race learns it, instead of undoing the take-over.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from engage_core.contacts.model import Contact
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.validation import required_text
from engage_core.messaging import handling as rules
from engage_core.messaging.handling import REASON_MAX, ConversationHandling, Move
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

AiMove = Callable[[ConversationHandling, datetime], Move]
"""One of the AI's moves (`handling.hand_over` with its reason, `handling.resolve`)."""


class ConversationHandlingService:
    """Who answers each contact's conversation: read it, hand it over, resolve it, take it over,
    release it."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- reading ------------------------------------------------------------------------------

    def get(self, account_id: int, contact_id: int) -> ConversationHandling:
        """`GET /conversations/{contact_id}/handling`: the contact's state (`ai`, never moved, when
        none is stored).

        Raises :class:`.NotFound` when the contact is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _current(uow, contact_id)

    def may_ai_answer(self, account_id: int, contact_id: int) -> bool:
        """Whether the AI may answer the contact now: its conversation is handled by `ai`.

        Raises :class:`.NotFound` when the contact is not in the account."""
        return self.get(account_id, contact_id).ai_may_answer

    def ai_context_since(self, account_id: int, contact_id: int) -> datetime | None:
        """The AI is shown only the contact's messages created after this moment (its last resolve);
        None: every message.

        Raises :class:`.NotFound` when the contact is not in the account."""
        return self.get(account_id, contact_id).context_since

    # -- the AI's decisions -------------------------------------------------------------------

    def hand_over(
        self, account_id: int, contact_id: int, reason: str, now: datetime | None = None
    ) -> ConversationHandling:
        """The AI decided `handoff`: `ai` -> `pending` with `reason` (`conversation.handed_over`).
        `now`: when the AI decided (the clock's time by default).

        Raises :class:`.ValidationFailed` on `reason` when it is blank or longer than 1,000
        characters, on `handled_by` when the conversation is not handled by the AI (a human took it
        over, or it waits for one already); :class:`.NotFound` when the contact is not in the
        account."""
        text = required_text("reason", reason, max_length=REASON_MAX)
        return self._move(account_id, contact_id, lambda h, at: rules.hand_over(h, text, at), now)

    def resolve(self, account_id: int, contact_id: int, now: datetime | None = None) -> ConversationHandling:
        """The AI decided `resolve`: its context restarts after `now` (the clock's time by default):
        the messages created until then are no longer shown to it (`conversation.resolved`). The
        conversation stays with the AI; the next message starts a fresh context.

        Raises :class:`.ValidationFailed` on `handled_by` when the conversation is not handled by the
        AI; :class:`.NotFound` when the contact is not in the account."""
        return self._move(account_id, contact_id, rules.resolve, now)

    # -- the people's moves -------------------------------------------------------------------

    def take_over(self, account_id: int, contact_id: int, team_member_id: int | None = None) -> ConversationHandling:
        """`POST /conversations/{contact_id}/take-over`: a human answers from now on; the AI is silent
        (`conversation.taken_over`). `team_member_id` (an active member) becomes the assignee; naming
        another member reassigns a conversation a human handles already. Taken over again with no
        other member named: nothing changes, no event.

        Raises :class:`.ValidationFailed` on `team_member_id` for a member that does not exist or is
        inactive; :class:`.NotFound` when the contact is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _current(uow, contact_id)
            assignee = None if team_member_id is None else _assignee(uow, team_member_id)
            return _apply(uow, current, rules.take_over(current, assignee, now))

    def release(self, account_id: int, contact_id: int) -> ConversationHandling:
        """`POST /conversations/{contact_id}/release`: the AI answers again, from the next message on
        (`conversation.released`); its context is kept. A conversation the AI handles already:
        nothing changes, no event.

        Raises :class:`.NotFound` when the contact is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _current(uow, contact_id)
            return _apply(uow, current, rules.release(current, now))

    def _move(self, account_id: int, contact_id: int, move: AiMove, now: datetime | None) -> ConversationHandling:
        at = self._clock.now() if now is None else now
        with self._uow.workspace(account_id) as uow:
            current = _current(uow, contact_id)
            return _apply(uow, current, move(current, at))


# -- helpers -----------------------------------------------------------------------------------


def decide_in(uow: WorkspaceUnitOfWork, contact_id: int, move: AiMove, now: datetime) -> ConversationHandling:
    """Apply one of the AI's moves inside `uow`, with its event, without committing: the automatic
    reply records it in the transaction that stores its outbound message.

    Raises :class:`.ValidationFailed` on `handled_by` when the conversation is not handled by the AI."""
    current = _current(uow, contact_id)
    moved, events = move(current, now)
    uow.conversation_handling.put(moved)
    for event in events:
        uow.emit(event)
    return moved


def hand_over_move(reason: str) -> AiMove:
    """The AI's `handoff` with `reason` (cut to the longest allowed), as `decide_in` takes it."""
    text = reason.strip()[:REASON_MAX] or "Handed over by the AI."
    return lambda h, at: rules.hand_over(h, text, at)


def unassign_member(uow: WorkspaceUnitOfWork, member_id: int, now: datetime) -> None:
    """Clear the team member, about to be deleted, from every conversation they took over (they stay
    handled by a human, with no assignee)."""
    uow.conversation_handling.unassign_member(member_id, now)


def _current(uow: WorkspaceUnitOfWork, contact_id: int) -> ConversationHandling:
    """The contact's state (read first: in a write unit of work, it holds the conversation's moves)."""
    stored = uow.conversation_handling.get(contact_id)
    if stored is not None:
        return stored
    _contact(uow, contact_id)
    return ConversationHandling(contact_id)


def _contact(uow: WorkspaceUnitOfWork, contact_id: int) -> Contact:
    contact = uow.contacts.get(contact_id)
    if contact is None:
        raise NotFound("Contact")
    return contact


def _assignee(uow: WorkspaceUnitOfWork, member_id: int) -> int:
    member = uow.team.get(member_id)
    if member is None:
        raise ValidationFailed.on("team_member_id", "The selected team member does not exist.")
    if not member.is_active:
        raise ValidationFailed.on("team_member_id", "An inactive team member cannot take a conversation over.")
    return member.id


def _apply(uow: WorkspaceUnitOfWork, current: ConversationHandling, move: Move) -> ConversationHandling:
    moved, events = move
    if not events:
        return current  # nothing changed: no write, no event
    uow.conversation_handling.put(moved)
    for event in events:
        uow.emit(event)
    uow.commit()
    return moved
