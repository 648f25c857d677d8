"""Automatic replies of one account: at most one per inbound message (a unique constraint), with the
booking step's offer as a JSON document."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import insert, select

from engage_core.agents.replies import AiReply, AiReplyDraft
from engage_core.answering.booking import offer_document, offer_from_document
from engage_sql.agents.tables import ai_replies
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow


def reply_from_row(row: AnyRow) -> AiReply:
    return AiReply(
        id=row.id,
        account_id=row.account_id,
        contact_id=row.contact_id,
        inbound_message_id=row.inbound_message_id,
        outbound_message_id=row.outbound_message_id,
        action=row.action,
        citations=tuple(int(c) for c in row.citations),
        confidence=row.confidence,
        created_at=row.created_at,
        offer=None if row.offer is None else offer_from_document(row.offer),
        booking_id=row.booking_id,
    )


class SqlAiReplyRepository(WorkspaceRepository):
    def add(self, draft: AiReplyDraft, now: datetime) -> AiReply:
        values = {
            "account_id": self._account_id,
            "contact_id": draft.contact_id,
            "inbound_message_id": draft.inbound_message_id,
            "outbound_message_id": draft.outbound_message_id,
            "action": draft.action,
            "citations": list(draft.citations),
            "confidence": draft.confidence,
            "created_at": now,
            "offer": None if draft.offer is None else offer_document(draft.offer),
            "booking_id": draft.booking_id,
        }
        reply_id = self._conn.execute(insert(ai_replies).values(values).returning(ai_replies.c.id)).scalar_one()
        return draft.recorded(reply_id, self._account_id, now)

    def by_inbound(self, inbound_message_id: int) -> AiReply | None:
        row = self._conn.execute(
            select(ai_replies).where(self.owned(ai_replies), ai_replies.c.inbound_message_id == inbound_message_id)
        ).one_or_none()
        return None if row is None else reply_from_row(row)

    def latest(self, contact_id: int) -> AiReply | None:
        row = self._conn.execute(
            select(ai_replies)
            .where(self.owned(ai_replies), ai_replies.c.contact_id == contact_id)
            .order_by(ai_replies.c.id.desc())
            .limit(1)
        ).one_or_none()
        return None if row is None else reply_from_row(row)

    def for_outbound(self, outbound_message_ids: Sequence[int]) -> list[AiReply]:
        if not outbound_message_ids:
            return []
        rows = self._conn.execute(
            select(ai_replies).where(
                self.owned(ai_replies), ai_replies.c.outbound_message_id.in_(list(outbound_message_ids))
            )
        )
        return [reply_from_row(row) for row in rows]
