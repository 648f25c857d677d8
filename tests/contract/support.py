"""Helpers shared by the contract tests: the moment the clock starts at, the contact factory's type,
and messages written and read through the repositories (the messaging, channels and conversations
tests)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from engage_core.contacts.model import Contact
from engage_core.messaging.messages import Message, MessageDraft
from engage_core.unit_of_work import UnitOfWorkFactory

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""Where the `clock` fixture starts."""

MakeContact = Callable[..., Contact]


def draft_for(contact: Contact, **fields: object) -> MessageDraft:
    """An inbound WhatsApp "Hello" from `contact`, with `fields` over it."""
    return draft_to(contact.id, **fields)


def draft_to(contact_id: int, **fields: Any) -> MessageDraft:
    values: dict[str, Any] = {
        "contact_id": contact_id,
        "direction": "inbound",
        "channel": "whatsapp",
        "content": "Hello",
        "status": "delivered",
    }
    return MessageDraft(**(values | fields))


def add_message(uow: UnitOfWorkFactory, account: int, draft: MessageDraft, now: datetime = NOW) -> Message:
    with uow.workspace(account) as unit:
        message = unit.messages.add(draft, now)
        unit.commit()
    return message


def get_message(uow: UnitOfWorkFactory, account: int, message_id: int) -> Message | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.messages.get(message_id)
