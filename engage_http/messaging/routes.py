"""Messages (SPEC 4 Messages): send a message, and list the messages exchanged with a contact.

A send routes through the connected account of the contact's channel. One that cannot go (no
connected account, a blacklisted contact, the provider's refusal or outage) is still stored, as
`failed`: the answer is then `success` false with the record and its `error` (SPEC 7 lists it among
the non-error outcomes), with the same status 201, since a record was created either way.
"""

from __future__ import annotations

from engage_core.kernel.pagination import Page
from engage_core.messaging import messages as domain
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.messages import MESSAGES
from engage_http.messaging.schemas import Message, MessageFilters, MessageSend, SentMessage
from engage_http.operations import Call, Operation, Reply, Shape

TAG = "Messages"


def send(call: Call[SendInput, None]) -> Reply:
    result = call.services.messages.send(call.account_id, call.body, plan=call.plan)
    return Reply(result.message, result.notice, success=result.success)


def for_contact(call: Call[None, MessageFilters]) -> Page[domain.Message]:
    assert call.page is not None
    return call.services.messages.for_contact(call.account_id, call.path["contact_id"], call.query.direction, call.page)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/messages/send",
        send,
        "Send a message to a contact",
        TAG,
        SentMessage,
        status=201,
        message="Message sent successfully.",
        body=MessageSend,
        reports_failure=True,
        errors=frozenset({404}),
        description="Routed through the connected account of the contact's channel (`type`), to its phone "
        "(WhatsApp, Telegram) or its handle (Instagram, LinkedIn); emits `message.sent`. A message that cannot "
        "be delivered is stored `failed`: the answer is then `success` false, with `error` saying why.",
    ),
    Operation(
        "GET",
        "/contacts/{contact_id:id}/messages",
        for_contact,
        "List a contact's messages",
        TAG,
        Message,
        Shape.PAGE,
        query=MessageFilters,
        page=MESSAGES,
        description="Newest first.",
    ),
)
