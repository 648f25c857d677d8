"""The LinkedIn plans and sequence follow-ups of one account's campaigns."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, func, insert, select, update

from engage_core.linkedin.model import FOLLOW_UP_MOVES, FollowUp, LinkedInPlan, can_move_follow_up
from engage_sql.campaigns.tables import campaigns
from engage_sql.linkedin.tables import linkedin_campaigns, linkedin_follow_ups
from engage_sql.messaging.tables import messages
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_F = linkedin_follow_ups.c
_COLUMNS = (
    _F.id,
    _F.campaign_id,
    _F.recipient_id,
    _F.contact_id,
    _F.step,
    _F.status,
    _F.reason,
    _F.error,
    _F.message_id,
    _F.due_at,
    _F.updated_at,
)


def follow_up_from_row(row: AnyRow) -> FollowUp:
    return FollowUp(*row[: len(_COLUMNS)])


class SqlLinkedInCampaignRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so reads lock what they find (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock = lock_reads and connection.dialect.name == "postgresql"

    def add_plan(self, campaign_id: int, plan: LinkedInPlan) -> None:
        self._conn.execute(
            insert(linkedin_campaigns).values(
                campaign_id=campaign_id,
                account_id=self._account_id,
                campaign_type=plan.campaign_type,
                invite_note=plan.invite_note,
                steps=plan.steps_json(),
            )
        )

    def plan_of(self, campaign_id: int) -> LinkedInPlan | None:
        c = linkedin_campaigns.c
        row = self._conn.execute(
            select(c.campaign_type, c.invite_note, c.steps).where(
                self.owned(linkedin_campaigns), c.campaign_id == campaign_id
            )
        ).first()
        if row is None:
            return None
        return LinkedInPlan(row.campaign_type, row.invite_note, LinkedInPlan.steps_from_json(row.steps))

    def schedule(
        self, campaign_id: int, recipient_id: int, contact_id: int, step: int, due_at: datetime, now: datetime
    ) -> bool:
        found = self._conn.execute(
            select(_F.id).where(self.owned(linkedin_follow_ups), _F.recipient_id == recipient_id, _F.step == step)
        ).first()
        if found is not None or not self._campaign_exists(campaign_id):
            return False
        self._conn.execute(
            insert(linkedin_follow_ups).values(
                account_id=self._account_id,
                campaign_id=campaign_id,
                recipient_id=recipient_id,
                contact_id=contact_id,
                step=step,
                status="pending",
                due_at=due_at,
                updated_at=now,
            )
        )
        return True

    def next_due(self, campaign_id: int, now: datetime) -> FollowUp | None:
        query = (
            select(*_COLUMNS)
            .where(
                self.owned(linkedin_follow_ups),
                _F.campaign_id == campaign_id,
                _F.status == "pending",
                _F.due_at <= now,
            )
            .order_by(_F.due_at, _F.id)
            .limit(1)
        )
        if self._lock:
            query = query.with_for_update(skip_locked=True)
        row = self._conn.execute(query).first()
        return None if row is None else follow_up_from_row(row)

    def next_due_at(self, campaign_id: int) -> datetime | None:
        found: datetime | None = self._conn.execute(
            select(func.min(_F.due_at)).where(
                self.owned(linkedin_follow_ups), _F.campaign_id == campaign_id, _F.status == "pending"
            )
        ).scalar_one()
        return found

    def move(
        self,
        follow_up_id: int,
        to: str,
        now: datetime,
        *,
        reason: str | None = None,
        error: str | None = None,
        message_id: int | None = None,
    ) -> str | None:
        current = self._get(follow_up_id, lock=True)
        if current is None or not can_move_follow_up(current.status, to):
            return None
        values: dict[str, Any] = {"status": to, "updated_at": now}
        if reason is not None:
            values["reason"] = reason
        if error is not None:
            values["error"] = error[:1000]
        if message_id is not None:
            values["message_id"] = message_id
        moved = self._conn.execute(
            update(linkedin_follow_ups)
            .where(self.owned(linkedin_follow_ups), _F.id == follow_up_id, _F.status == current.status)
            .values(**values)
        )
        return current.status if moved.rowcount else None

    def skip_pending(self, campaign_id: int, reason: str, now: datetime) -> int:
        assert "skipped" in FOLLOW_UP_MOVES["pending"]
        moved = self._conn.execute(
            update(linkedin_follow_ups)
            .where(self.owned(linkedin_follow_ups), _F.campaign_id == campaign_id, _F.status == "pending")
            .values(status="skipped", reason=reason, updated_at=now)
        )
        return int(moved.rowcount)

    def stale_sending(self, campaign_id: int, claimed_before: datetime) -> list[FollowUp]:
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(
                self.owned(linkedin_follow_ups),
                _F.campaign_id == campaign_id,
                _F.status == "sending",
                _F.updated_at < claimed_before,
            )
            .order_by(_F.id)
        )
        return [follow_up_from_row(row) for row in rows]

    def get(self, follow_up_id: int) -> FollowUp | None:
        return self._get(follow_up_id, lock=False)

    def of_campaign(self, campaign_id: int) -> list[FollowUp]:
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(self.owned(linkedin_follow_ups), _F.campaign_id == campaign_id)
            .order_by(_F.recipient_id, _F.step)
        )
        return [follow_up_from_row(row) for row in rows]

    def statuses(self, campaign_id: int) -> Mapping[str, int]:
        rows = self._conn.execute(
            select(_F.status, func.count())
            .where(self.owned(linkedin_follow_ups), _F.campaign_id == campaign_id)
            .group_by(_F.status)
        )
        return {status: int(n) for status, n in rows}

    def inbox_stats(self) -> tuple[int, int]:
        m = messages.c
        row = self._conn.execute(
            select(
                func.count(func.distinct(m.contact_id)),
                func.count().filter(and_(m.direction == "inbound", m.status != "read")),
            ).where(self.owned(messages), m.channel == "linkedin")
        ).one()
        return int(row[0]), int(row[1])

    def replied_since(self, contact_id: int, since: datetime) -> bool:
        m = messages.c
        found = self._conn.execute(
            select(m.id)
            .where(
                self.owned(messages),
                m.contact_id == contact_id,
                m.direction == "inbound",
                m.created_at >= since,
            )
            .limit(1)
        ).first()
        return found is not None

    def _get(self, follow_up_id: int, *, lock: bool) -> FollowUp | None:
        query = select(*_COLUMNS).where(self.owned(linkedin_follow_ups), _F.id == follow_up_id)
        if lock and self._lock:
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else follow_up_from_row(row)

    def _campaign_exists(self, campaign_id: int) -> bool:
        found = self._conn.execute(
            select(campaigns.c.id).where(self.owned(campaigns), campaigns.c.id == campaign_id)
        ).first()
        return found is not None
