"""Receipts of campaign messages: the recipient follows its message forward (`delivered`, `read`),
and the campaign's counters with it. Called by `MessageService.receipt` in its transaction."""

from __future__ import annotations

from datetime import datetime

from engage_core.campaigns.model import Counters, can_move, counter_deltas
from engage_core.unit_of_work import WorkspaceUnitOfWork


def campaign_receipt(uow: WorkspaceUnitOfWork, message_id: int, status: str, now: datetime) -> bool:
    """Move the recipient the message was sent to into `status`, if that is forward: whether it moved."""
    recipient = uow.campaign_recipients.by_message(message_id)
    if recipient is None or not can_move(recipient.status, status):
        return False
    old = uow.campaign_recipients.move(recipient.id, status, now)
    if old is None:
        return False
    deltas = counter_deltas(old, status)
    if deltas != Counters():
        uow.campaigns.adjust(recipient.campaign_id, deltas)
    return True
