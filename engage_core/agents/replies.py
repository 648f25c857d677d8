"""Automatic replies: what the AI answered to an inbound message, recorded once.

Every new inbound message queues `REPLY_JOB`, keyed by the message's id, in the transaction that
stores it (`engage_core.agents.reply_service`). The job's reply is an outbound message like any
other, and an `AiReply` row ties it to the inbound message it answers: stored in the same
transaction as the outbound message, and at most one per inbound message, it is what makes the
reply happen once across crashes and retries. It also keeps what the answer drew on (`citations`,
chunk ids) and how sure the engine was; and the booking step's state: the slots it offered (`offer`)
(which the customer's next message may pick) and the booking it made.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from engage_core.answering.booking import SlotOffer

REPLY_JOB = "ai_agent.reply"
"""The job kind of an automatic reply; its key and payload name the inbound message."""
AI_AGENTS_FEATURE = "ai_agents"
"""The plan feature without which nothing is answered automatically."""
HISTORY_LIMIT = 20
"""The most messages of the conversation (before the one answered) shown to the engine."""


@attrs.frozen
class AiReplyDraft:
    """A reply to record: the inbound message answered, the outbound message that answers it, and
    the engine's turn (`action`, `citations`, `confidence`); for the booking step, the slots
    offered or the booking made."""

    contact_id: int
    inbound_message_id: int
    outbound_message_id: int
    action: str
    citations: tuple[int, ...] = ()
    confidence: float = 0.0
    offer: SlotOffer | None = None
    booking_id: int | None = None

    def recorded(self, reply_id: int, account_id: int, now: datetime) -> AiReply:
        """The reply as stored under `reply_id` at `now`."""
        return AiReply(
            id=reply_id,
            account_id=account_id,
            contact_id=self.contact_id,
            inbound_message_id=self.inbound_message_id,
            outbound_message_id=self.outbound_message_id,
            action=self.action,
            citations=tuple(self.citations),
            confidence=self.confidence,
            created_at=now,
            offer=self.offer,
            booking_id=self.booking_id,
        )


@attrs.frozen
class AiReply:
    """A recorded automatic reply (see `AiReplyDraft`)."""

    id: int
    account_id: int
    contact_id: int
    inbound_message_id: int
    outbound_message_id: int
    action: str
    citations: tuple[int, ...]
    confidence: float
    created_at: datetime
    offer: SlotOffer | None = None
    booking_id: int | None = None


def reply_key(inbound_message_id: int) -> str:
    """The job key of the reply to an inbound message: one job per message."""
    return str(inbound_message_id)
