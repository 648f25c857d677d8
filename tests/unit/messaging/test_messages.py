"""Message status rules: sends settle once, receipts move forward only, failed stays failed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from engage_core.messaging.messages import Message, apply_receipt, mark_failed, mark_sent

from ..factories import START

LATER = START + timedelta(seconds=30)


def message(**overrides: Any) -> Message:
    """An outbound WhatsApp message, `sent` by default."""
    fields: dict[str, Any] = {
        "id": 3,
        "contact_id": 5,
        "direction": "outbound",
        "channel": "whatsapp",
        "content": "Hello",
        "status": "sent",
        "sent_at": START,
        "created_at": START,
        "updated_at": START,
        "provider_message_id": "p-1",
    }
    fields.update(overrides)
    return Message(**fields)


@pytest.mark.parametrize(
    ("status", "receipt", "after"),
    [("sent", "delivered", "delivered"), ("sent", "read", "read"), ("delivered", "read", "read")],
)
def test_receipts_move_forward(status: str, receipt: str, after: str) -> None:
    """sent -> delivered -> read, and a read receipt may skip delivered."""
    moved = apply_receipt(message(status=status), receipt, LATER)
    assert moved is not None
    assert (moved.status, moved.updated_at) == (after, LATER)


@pytest.mark.parametrize(
    ("status", "receipt"),
    [("read", "delivered"), ("read", "read"), ("delivered", "delivered"), ("failed", "read"), ("pending", "read")],
)
def test_receipts_never_move_backwards_or_out_of_failed(status: str, receipt: str) -> None:
    """A receipt that would go backwards, repeat, or leave failed/pending changes nothing."""
    assert apply_receipt(message(status=status), receipt, LATER) is None


def test_receipts_ignore_inbound_messages() -> None:
    """Receipts are about outbound messages; an inbound one is marked read by its conversation."""
    assert apply_receipt(message(direction="inbound", status="delivered"), "read", LATER) is None


def test_a_receipt_is_delivered_or_read() -> None:
    """Any other receipt status is a programming error."""
    with pytest.raises(ValueError, match="delivered or read"):
        apply_receipt(message(), "failed", LATER)


def test_a_pending_message_becomes_sent_with_the_provider_id() -> None:
    """mark_sent records the provider id and the time the provider gave."""
    sent = mark_sent(message(status="pending", provider_message_id=None, sent_at=None), "p-9", LATER, LATER)
    assert (sent.status, sent.provider_message_id, sent.sent_at) == ("sent", "p-9", LATER)


def test_a_failed_message_cannot_become_sent() -> None:
    """failed is final."""
    with pytest.raises(ValueError, match="failed message cannot become sent"):
        mark_sent(message(status="failed"), "p-9", LATER, LATER)


def test_a_pending_message_fails_with_the_error() -> None:
    """mark_failed keeps the reason."""
    failed = mark_failed(message(status="pending"), "Provider down", LATER)
    assert (failed.status, failed.error) == ("failed", "Provider down")


def test_unread_means_inbound_and_not_read() -> None:
    """Only inbound messages not yet read count as unread."""
    assert message(direction="inbound", status="delivered").is_unread
    assert not message(direction="inbound", status="read").is_unread
    assert not message(direction="outbound", status="delivered").is_unread


def test_an_inbound_payload_says_received_from_the_contact() -> None:
    """message.received carries message_by contact, status received, source the channel."""
    payload = message(direction="inbound", status="delivered").event_payload()
    assert (payload["message_by"], payload["status"], payload["source"], payload["value"]) == (
        "contact",
        "received",
        "whatsapp",
        "Hello",
    )


def test_an_outbound_payload_says_sent_by_the_client() -> None:
    """message.sent carries message_by client and the message's status."""
    payload = message().event_payload()
    assert (payload["message_by"], payload["status"], payload["campaign_id"]) == ("client", "sent", None)
