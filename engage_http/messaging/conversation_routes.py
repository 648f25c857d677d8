"""Conversations (SPEC 4 Messages): one summary per contact, and, beyond the spec, marking a
conversation read."""

from __future__ import annotations

from engage_core.kernel.pagination import Page
from engage_core.messaging import conversations as domain
from engage_core.messaging.conversations import CONVERSATIONS
from engage_http.messaging.schemas import ConversationFilters, ConversationRead, ConversationSummary
from engage_http.operations import Call, Operation, Reply, Shape

TAG = "Conversations"


def index(call: Call[None, domain.ConversationFilter]) -> Page[domain.ConversationSummary]:
    assert call.page is not None
    return call.services.messages.conversations(call.account_id, call.query, call.page)


def mark_read(call: Call[None, None]) -> Reply:
    contact_id = call.path["contact_id"]
    count = call.services.messages.mark_read(call.account_id, contact_id)
    message = "Conversation marked read." if count else "The conversation had no unread messages."
    return Reply(ConversationRead(contact_id=contact_id, marked_read=count), message)


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
        "contact's inbound messages not yet read.",
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
)
