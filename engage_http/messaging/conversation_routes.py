"""Conversations (SPEC 4 Messages): one summary per contact, and, beyond the spec, marking a
conversation read and who answers it, the AI or a human (`engage_core.messaging.handling`).

Taking over and releasing never fail on the conversation's state: a take-over where a human answers
already (with no other team member named), or a release where the AI does, changes nothing and
answers 200 with the state, so a retried request is harmless. They are database work only, so they
may run on the write lane.
"""

from __future__ import annotations

from engage_core.kernel.pagination import Page
from engage_core.messaging import conversations as domain
from engage_core.messaging.conversations import CONVERSATIONS
from engage_core.messaging.handling import ConversationHandling as Handling
from engage_http.messaging.schemas import (
    ConversationFilters,
    ConversationHandling,
    ConversationRead,
    ConversationSummary,
    ConversationTakeOver,
)
from engage_http.operations import Call, Operation, Reply, Shape, declare

TAG = "Conversations"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may answer a take-over the document calls valid, for a rule no schema
can state (a team member of the workspace, and active)."""


def index(call: Call[None, domain.ConversationFilter]) -> Page[domain.ConversationSummary]:
    assert call.page is not None
    return call.services.messages.conversations(call.account_id, call.query, call.page)


def mark_read(call: Call[None, None]) -> Reply:
    contact_id = call.path["contact_id"]
    count = call.services.messages.mark_read(call.account_id, contact_id)
    message = "Conversation marked read." if count else "The conversation had no unread messages."
    return Reply(ConversationRead(contact_id=contact_id, marked_read=count), message)


def handling(call: Call[None, None]) -> Handling:
    return call.services.conversation_handling.get(call.account_id, call.path["contact_id"])


def take_over(call: Call[ConversationTakeOver, None]) -> Handling:
    contact_id = call.path["contact_id"]
    return call.services.conversation_handling.take_over(call.account_id, contact_id, call.body.team_member_id)


def release(call: Call[None, None]) -> Handling:
    return call.services.conversation_handling.release(call.account_id, call.path["contact_id"])


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/conversations",
        index,
        "List conversations",
        TAG,
        ConversationSummary,
        Shape.PAGE,
        query=ConversationFilters,
        page=CONVERSATIONS,
        description="One summary per contact with messages, newest message first. `unread_count` counts the "
        "contact's inbound messages not yet read. Beyond the spec, `handled_by` says who answers each "
        "conversation, and filters them: `handled_by=pending` lists the conversations waiting for a human.",
    ),
    Operation(
        "POST",
        "/conversations/{contact_id:id}/read",
        mark_read,
        "Mark a conversation read",
        TAG,
        ConversationRead,
        message="Conversation marked read.",
        description="Beyond the spec: every inbound message of the contact not yet read becomes `read`, so its "
        "`unread_count` drops to 0. `marked_read` is how many did.",
    ),
    *declare(
        Operation(
            "GET",
            "/conversations/{contact_id:id}/handling",
            handling,
            "Get who answers a conversation",
            TAG,
            ConversationHandling,
            message="Conversation handling retrieved.",
            description="Beyond the spec: `ai` (the AI agent answers), `pending` (the AI handed over and waits "
            "for a human) or `human` (a person took over; the AI is silent), with the hand-over's `reason`, the "
            "`assignee_id` and the AI's `context_since`. A contact never moved is `ai` with nulls.",
        ),
        Operation(
            "POST",
            "/conversations/{contact_id:id}/take-over",
            take_over,
            "Take a conversation over",
            TAG,
            ConversationHandling,
            message="Conversation taken over.",
            body=ConversationTakeOver,
            body_optional=True,
            errors=RULES,
            description="Beyond the spec: a human answers from now on and the AI stays silent (from `ai` or "
            "`pending` to `human`; emits `conversation.taken_over`). `team_member_id` (an active member) becomes "
            "the assignee; naming another member reassigns a conversation a human has already. Taken over again "
            "with no other member named: nothing changes.",
        ),
        Operation(
            "POST",
            "/conversations/{contact_id:id}/release",
            release,
            "Release a conversation to the AI",
            TAG,
            ConversationHandling,
            message="Conversation released.",
            description="Beyond the spec: the AI answers again from the next message on (from `pending` or "
            "`human` to `ai`; emits `conversation.released`); its context is kept. Already `ai`: nothing changes.",
        ),
        write_lane=True,
    ),
)
