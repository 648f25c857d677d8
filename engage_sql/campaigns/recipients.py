"""The recipients of one account's campaigns, and their send counts per channel and day.

The snapshot is one `INSERT ... SELECT`: the audience (contacts named, list members, segment
members as `engage_sql.contacts.segment_sql` compiles each segment's rules) is a `UNION` the
database deduplicates, joined to the contacts for the skip reasons, so 100,000 contacts take one
statement, not one per contact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    and_,
    bindparam,
    case,
    exists,
    func,
    insert,
    literal,
    null,
    select,
    union,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from engage_core.campaigns.model import (
    BLACKLISTED,
    MOVES,
    NO_ADDRESS,
    OTHER_CHANNEL,
    Campaign,
    Counters,
    Recipient,
    RecipientFilter,
    RecipientView,
    can_move,
)
from engage_core.contacts.segments import SegmentRules
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.message_service import PHONE_ADDRESSED
from engage_sql.alone import alone
from engage_sql.campaigns.tables import campaign_recipients, campaign_send_counts, campaigns
from engage_sql.contacts.segment_sql import contacts_with_overrides, membership
from engage_sql.contacts.segments import segment_from_row
from engage_sql.contacts.tables import contacts, list_members, segments
from engage_sql.driver import DriverStatement
from engage_sql.messaging.tables import contact_handles
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow, Id

_R = campaign_recipients.c
_ONLY_FROM = {
    to: froms[0]
    for to in {t for ts in MOVES.values() for t in ts}
    if len(froms := [old for old, moves in MOVES.items() if to in moves]) == 1
}
"""The statuses only one status moves to (`sending` from `pending`, `sent` from `sending`, ...): a
move there needs no read of the current status first."""
_COLUMNS = (
    _R.id,
    _R.campaign_id,
    _R.contact_id,
    _R.status,
    _R.reason,
    _R.error,
    _R.message_id,
    _R.attempts,
    _R.sent_at,
    _R.updated_at,
    _R.handed_at,
)


_HAND = DriverStatement(
    update(campaign_recipients)
    .where(
        _R.account_id == bindparam("account"),
        _R.id == bindparam("recipient"),
        _R.status == "sending",
        _R.handed_at.is_(None),
    )
    .values(
        handed_at=bindparam("at", type_=_R.handed_at.type),
        updated_at=bindparam("at", type_=_R.updated_at.type),
        attempts=_R.attempts + 1,
    )
)
"""One statement per message, the sender's hottest: built once."""
_MARK_SENT = (
    update(campaign_recipients)
    .where(_R.account_id == bindparam("account"), _R.id == bindparam("recipient"), _R.status == "sending")
    .values(
        status="sent",
        message_id=bindparam("message", type_=_R.message_id.type),
        sent_at=bindparam("sent", type_=_R.sent_at.type),
        updated_at=bindparam("at", type_=_R.updated_at.type),
    )
)


def recipient_from_row(row: AnyRow) -> Recipient:
    return Recipient(*row[: len(_COLUMNS)])


class SqlRecipientRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so reads lock what they find (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._postgres = connection.dialect.name == "postgresql"
        self._lock = lock_reads and self._postgres

    def snapshot(self, campaign: Campaign, now: datetime) -> Counters:
        if self._campaign_exists(campaign.id) is False or self._has_recipients(campaign.id):
            return Counters()
        chosen = self._audience(campaign, now)
        if chosen is None:
            return Counters()
        c = contacts.c
        reason = _reason(campaign.channel, self._account_id)
        self._conn.execute(
            insert(campaign_recipients).from_select(
                ["account_id", "campaign_id", "contact_id", "status", "reason", "attempts", "updated_at"],
                select(
                    literal(self._account_id, Id),
                    literal(campaign.id, Id),
                    c.id,
                    case((reason.is_(None), literal("pending")), else_=literal("skipped")),
                    reason,
                    literal(0),
                    literal(now, campaign_recipients.c.updated_at.type),
                )
                .where(self.owned(contacts), c.id.in_(select(chosen.c.id)))
                .order_by(c.id),
            )
        )
        return Counters.of(self.statuses(campaign.id))

    def _campaign_exists(self, campaign_id: int) -> bool:
        found = self._conn.execute(
            select(campaigns.c.id).where(self.owned(campaigns), campaigns.c.id == campaign_id)
        ).first()
        return found is not None

    def _has_recipients(self, campaign_id: int) -> bool:
        return self._conn.execute(select(_R.id).where(_R.campaign_id == campaign_id).limit(1)).first() is not None

    def _audience(self, campaign: Campaign, now: datetime) -> Any:
        """The audience's contact ids as one subquery (a UNION: duplicates go), or None when empty."""
        audience = campaign.audience
        parts: list[Select[Any]] = []
        if audience.contact_ids:
            parts.append(select(contacts.c.id).where(self.owned(contacts), contacts.c.id.in_(audience.contact_ids)))
        if audience.list_ids:
            parts.append(
                select(list_members.c.contact_id.label("id")).where(
                    list_members.c.account_id == self._account_id, list_members.c.list_id.in_(audience.list_ids)
                )
            )
        if audience.segment_ids:
            rows = self._conn.execute(
                select(segments).where(self.owned(segments), segments.c.id.in_(audience.segment_ids))
            ).all()
            for row in rows:
                segment = segment_from_row(row, None)
                rules = SegmentRules(segment.match, segment.conditions)
                parts.append(
                    select(contacts.c.id)
                    .select_from(contacts_with_overrides(segment.id))
                    .where(self.owned(contacts), membership(rules, now))
                )
        if not parts:
            return None
        return (parts[0] if len(parts) == 1 else union(*parts)).subquery()

    def claim(self, campaign_id: int, limit: int, now: datetime) -> Sequence[Recipient]:
        mine = (self.owned(campaign_recipients), _R.campaign_id == campaign_id, _R.status == "pending")
        query = select(_R.id).where(*mine).order_by(_R.id).limit(limit)
        if self._postgres:  # materialised: run once, so the limit holds (inlined, it may run per row)
            chosen = query.with_for_update(skip_locked=True).cte("chosen").prefix_with("MATERIALIZED")
        else:
            chosen = query.cte("chosen")
        # Joined by id alone (`UPDATE ... FROM chosen`; the rows are locked and checked in `chosen`):
        # right after a snapshot the planner's statistics still see no recipients, and with the
        # campaign and status here too it scanned every pending recipient for each chosen one.
        rows = self._conn.execute(
            update(campaign_recipients)
            .where(self.owned(campaign_recipients), _R.id == chosen.c.id)
            .values(status="sending", handed_at=None, updated_at=now)
            .returning(*_COLUMNS)
        )
        return sorted((recipient_from_row(row) for row in rows), key=lambda r: r.id)

    def hand(self, recipient_id: int, now: datetime) -> bool:
        params = {"account": self._account_id, "recipient": recipient_id, "at": now}
        with alone(self._conn):  # the sender commits it alone, at once
            return _HAND.execute(self._conn, params) == 1

    def release(
        self,
        campaign_id: int,
        to: str,
        now: datetime,
        *,
        recipient_ids: Sequence[int] | None = None,
        reason: str | None = None,
    ) -> int:
        if not can_move("sending", to):
            return 0
        where = [
            self.owned(campaign_recipients),
            _R.campaign_id == campaign_id,
            _R.status == "sending",
            _R.handed_at.is_(None),
        ]
        if recipient_ids is not None:
            if not recipient_ids:
                return 0
            where.append(_R.id.in_(recipient_ids))
        values: dict[str, Any] = {"status": to, "updated_at": now}
        if reason is not None:
            values["reason"] = reason
        return int(self._conn.execute(update(campaign_recipients).where(*where).values(**values)).rowcount)

    def move(
        self,
        recipient_id: int,
        to: str,
        now: datetime,
        *,
        reason: str | None = None,
        error: str | None = None,
        message_id: int | None = None,
        sent_at: datetime | None = None,
    ) -> str | None:
        only = _ONLY_FROM.get(to)
        if only is None:
            current = self._get(recipient_id, lock=True)
            if current is None or not can_move(current.status, to):
                return None
            old = current.status
        else:  # one status leads here (the sender's hot moves): the conditional update is the check
            old = only
        values: dict[str, Any] = {"status": to, "updated_at": now}
        if reason is not None:
            values["reason"] = reason
        if error is not None:
            values["error"] = error[:1000]
        if message_id is not None:
            values["message_id"] = message_id
        if sent_at is not None:
            values["sent_at"] = sent_at
        if to == "sending":
            values["attempts"] = _R.attempts + 1
        moved = self._conn.execute(
            update(campaign_recipients)
            .where(self.owned(campaign_recipients), _R.id == recipient_id, _R.status == old)
            .values(**values)
        )
        return old if moved.rowcount else None

    def mark_sent(self, sent: Sequence[tuple[int, int, datetime]], now: datetime) -> Sequence[int]:
        if not sent:
            return []
        rows = [
            {"account": self._account_id, "recipient": recipient_id, "message": message_id, "sent": at, "at": now}
            for recipient_id, message_id, at in sent
        ]
        moved = self._conn.execute(_MARK_SENT, rows).rowcount  # psycopg pipelines the rows: one round trip
        if moved == len(sent):
            return [recipient_id for recipient_id, _, _ in sent]
        # Some had moved on: the rows now holding this settle's messages are the ones it moved.
        found = self._conn.execute(
            select(_R.id).where(
                self.owned(campaign_recipients),
                _R.status == "sent",
                _R.message_id.in_([message_id for _, message_id, _ in sent]),
            )
        )
        return list(found.scalars())

    def move_all(self, campaign_id: int, old: str, to: str, now: datetime, *, reason: str) -> Sequence[Recipient]:
        if not can_move(old, to):
            return []
        where = (self.owned(campaign_recipients), _R.campaign_id == campaign_id, _R.status == old)
        query = select(*_COLUMNS).where(*where).order_by(_R.id)
        if self._lock:
            query = query.with_for_update()
        found = [recipient_from_row(row) for row in self._conn.execute(query)]
        if found:
            self._conn.execute(
                update(campaign_recipients)
                .where(*where, _R.id.in_(select(_R.id).where(*where)))
                .values(status=to, reason=reason, updated_at=now)
            )
        return found

    def stale_sending(self, campaign_id: int, claimed_before: datetime) -> Sequence[Recipient]:
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(
                self.owned(campaign_recipients),
                _R.campaign_id == campaign_id,
                _R.status == "sending",
                _R.updated_at < claimed_before,
            )
            .order_by(_R.id)
        )
        return [recipient_from_row(row) for row in rows]

    def by_message(self, message_id: int) -> Recipient | None:
        row = self._conn.execute(
            select(*_COLUMNS).where(self.owned(campaign_recipients), _R.message_id == message_id).limit(1)
        ).first()
        return None if row is None else recipient_from_row(row)

    def get(self, recipient_id: int) -> Recipient | None:
        return self._get(recipient_id, lock=False)

    def _get(self, recipient_id: int, *, lock: bool) -> Recipient | None:
        query = select(*_COLUMNS).where(self.owned(campaign_recipients), _R.id == recipient_id)
        if lock and self._lock:
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else recipient_from_row(row)

    def find(self, campaign_id: int, filters: RecipientFilter, page: PageRequest) -> Page[RecipientView]:
        where: list[ColumnElement[bool]] = [self.owned(campaign_recipients), _R.campaign_id == campaign_id]
        if filters.status is not None:
            where.append(_R.status == filters.status)
        if filters.reason is not None:
            where.append(_R.reason == filters.reason)
        total = self._conn.execute(select(func.count()).select_from(campaign_recipients).where(*where)).scalar_one()
        rows = self._conn.execute(
            select(*_COLUMNS, contacts.c.name, contacts.c.phone)
            .select_from(
                campaign_recipients.outerjoin(
                    contacts, and_(contacts.c.account_id == _R.account_id, contacts.c.id == _R.contact_id)
                )
            )
            .where(*where)
            .order_by(_R.id)
            .limit(page.per_page)
            .offset(page.offset)
        )
        items = [RecipientView.of(recipient_from_row(row), row.name, row.phone) for row in rows]
        return Page(items=items, request=page, total=int(total))

    def statuses(self, campaign_id: int) -> Mapping[str, int]:
        rows = self._conn.execute(
            select(_R.status, func.count())
            .where(self.owned(campaign_recipients), _R.campaign_id == campaign_id)
            .group_by(_R.status)
        )
        return {status: int(n) for status, n in rows}


def _reason(channel: str, account_id: int) -> ColumnElement[Any]:
    """Why the contact row is skipped on `channel` (as `model`'s skip reasons), NULL when it is reachable."""
    c = contacts.c
    if channel in PHONE_ADDRESSED:
        no_address: ColumnElement[bool] = c.phone.is_(None) | (c.phone == "")
    else:
        no_address = ~exists(
            select(literal(1)).where(
                contact_handles.c.account_id == account_id,
                contact_handles.c.contact_id == c.id,
                contact_handles.c.channel == channel,
            )
        )
    return case(
        (c.blacklisted.is_(True), literal(BLACKLISTED)),
        (c.type != channel, literal(OTHER_CHANNEL)),
        (no_address, literal(NO_ADDRESS)),
        else_=null(),
    )


_COUNT_KEY = ["account_id", "channel", "day"]


class SqlSendCountRepository(WorkspaceRepository):
    def add(self, channel: str, day: date, amount: int) -> None:
        table = campaign_send_counts
        dialect = postgresql if self._conn.dialect.name == "postgresql" else sqlite
        statement = (
            dialect.insert(table)
            .values(account_id=self._account_id, channel=channel, day=day, sent=amount)
            .on_conflict_do_update(
                index_elements=["account_id", "channel", "day"], set_={"sent": table.c.sent + amount}
            )
        )
        self._conn.execute(statement)

    def since(self, channel: str, first_day: date) -> Mapping[date, int]:
        t = campaign_send_counts.c
        rows = self._conn.execute(
            select(t.day, t.sent).where(self.owned(campaign_send_counts), t.channel == channel, t.day >= first_day)
        )
        return {day: int(n) for day, n in rows}
