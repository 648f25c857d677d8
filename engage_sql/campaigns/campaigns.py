"""Campaigns of one account."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, delete, func, select, update

from engage_core.campaigns.model import ACTIVE, Audience, Campaign, CampaignDraft, CampaignFilter, Counters
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.campaigns.tables import campaigns
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_C = campaigns.c
_COLUMNS = (
    _C.id,
    _C.name,
    _C.channel,
    _C.message,
    _C.audience,
    _C.starts_at,
    _C.send_rate,
    _C.status,
    _C.total,
    _C.sent,
    _C.delivered,
    _C.read,
    _C.failed,
    _C.skipped,
    _C.error,
    _C.started_at,
    _C.completed_at,
    _C.created_at,
    _C.updated_at,
)


def campaign_from_row(row: AnyRow) -> Campaign:
    return Campaign(
        id=row.id,
        name=row.name,
        channel=row.channel,
        message=row.message,
        audience=Audience.from_json(row.audience),
        starts_at=row.starts_at,
        send_rate=row.send_rate,
        status=row.status,
        counters=Counters(row.total, row.sent, row.delivered, row.read, row.failed, row.skipped),
        error=row.error,
        started_at=row.started_at,
        completed_at=row.completed_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlCampaignRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` locks the campaign's row (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock = lock_reads and connection.dialect.name == "postgresql"

    def add(self, draft: CampaignDraft, now: datetime) -> Campaign:
        row = self._conn.execute(
            campaigns.insert()
            .values(
                account_id=self._account_id,
                name=draft.name,
                channel=draft.channel,
                message=draft.message,
                audience=draft.audience.to_json(),
                starts_at=draft.starts_at,
                send_rate=draft.send_rate,
                status="draft",
                total=0,
                sent=0,
                delivered=0,
                read=0,
                failed=0,
                skipped=0,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one()
        return campaign_from_row(row)

    def get(self, campaign_id: int) -> Campaign | None:
        query = select(*_COLUMNS).where(self.owned(campaigns), _C.id == campaign_id)
        if self._lock:
            query = query.with_for_update()
        row = self._conn.execute(query).one_or_none()
        return None if row is None else campaign_from_row(row)

    def find(self, filters: CampaignFilter, page: PageRequest) -> Page[Campaign]:
        where = [self.owned(campaigns)]
        if filters.status is not None:
            where.append(_C.status == filters.status)
        if filters.channel is not None:
            where.append(_C.channel == filters.channel)
        total = self._conn.execute(select(func.count()).select_from(campaigns).where(*where)).scalar_one()
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(*where)
            .order_by(_C.created_at.desc(), _C.id.desc())
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page(items=[campaign_from_row(row) for row in rows], request=page, total=int(total))

    def update(self, campaign: Campaign) -> None:
        self._conn.execute(
            update(campaigns)
            .where(self.owned(campaigns), _C.id == campaign.id)
            .values(
                name=campaign.name,
                channel=campaign.channel,
                message=campaign.message,
                audience=campaign.audience.to_json(),
                starts_at=campaign.starts_at,
                send_rate=campaign.send_rate,
                status=campaign.status,
                error=campaign.error,
                started_at=campaign.started_at,
                completed_at=campaign.completed_at,
                updated_at=campaign.updated_at,
            )
        )

    def adjust(self, campaign_id: int, deltas: Counters) -> None:
        changes = {name: _C[name] + value for name, value in _changed(deltas).items()}
        if changes:
            self._conn.execute(update(campaigns).where(self.owned(campaigns), _C.id == campaign_id).values(**changes))

    def delete(self, campaign_id: int) -> None:
        self._conn.execute(delete(campaigns).where(self.owned(campaigns), _C.id == campaign_id))

    def active_on(self, channel: str) -> bool:
        found = self._conn.execute(
            select(_C.id).where(self.owned(campaigns), _C.channel == channel, _C.status.in_(ACTIVE)).limit(1)
        ).first()
        return found is not None


def _changed(deltas: Counters) -> dict[str, int]:
    return {
        name: value
        for name, value in (
            ("total", deltas.total),
            ("sent", deltas.sent),
            ("delivered", deltas.delivered),
            ("read", deltas.read),
            ("failed", deltas.failed),
            ("skipped", deltas.skipped),
        )
        if value
    }
