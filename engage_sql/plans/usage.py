"""What one workspace uses, counted from its records: plan limits and the usage report.

Limits are checked by lock-then-count in the write's own transaction (`entitlements.reserve`).
On PostgreSQL `lock()` takes the row lock of the account's `account_counters` row (every account
has one from its creation), so limit-checked writes of one account queue there and each counts
what the previous one committed. On SQLite the write transaction already holds the database's
single write lock (`BEGIN IMMEDIATE`).

Contacts are the one limit checked on a hot path (every `POST /contacts`), so their count is the
`account_counters.contacts` total that every contact insert and delete keeps in the same
transaction, not a COUNT over the account's contacts; a missing counter row falls back to
counting. On PostgreSQL their limit is checked as the transaction commits, in the statement that
moves the counter (`engage_sql.contacts.counter_moves`), so that no lock is held in between.

Outbound messages a month (`messages_per_month`, every send) come from the months' tallies that
every message write keeps (`engage_sql.messaging.month_tally`), counted only for a `since` that is
not a month's first instant. On PostgreSQL that limit too is checked as the transaction commits,
after the tallies' moves, so that a send holds no lock across its round trips.

`ai_agent_sessions` is the distinct contacts the AI replied to (`ai_replies`) in the period.

`client_counts` is the partner usage summary's part of the report for all of a partner's clients
in one statement, with the report's own definitions.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, Connection, Table, bindparam, case, distinct, func, select

from engage_core.plans.model import CHANNELS, CONTACTS, MEDIA_FILES, MESSAGES_PER_MONTH, TEAM_MEMBERS, check_room
from engage_core.plans.usage import UsageCounts, WorkspaceUsage
from engage_sql.accounts.tables import account_counters
from engage_sql.agents.tables import ai_replies
from engage_sql.bookings.tables import bookings
from engage_sql.campaigns.tables import campaigns
from engage_sql.contacts import counter_moves
from engage_sql.contacts.tables import contacts
from engage_sql.driver import DriverStatement
from engage_sql.media.tables import media_files
from engage_sql.messaging import month_tally
from engage_sql.messaging.tables import channel_accounts, messages
from engage_sql.partners.tables import partner_clients
from engage_sql.repository import WorkspaceRepository
from engage_sql.team.tables import team_members
from engage_sql.types import Id

_ACCOUNT = bindparam("account", type_=Id)
_LOCK = DriverStatement(
    select(account_counters.c.account_id).where(account_counters.c.account_id == _ACCOUNT).with_for_update()
)
_CONTACTS_TOTAL = DriverStatement(select(account_counters.c.contacts).where(account_counters.c.account_id == _ACCOUNT))
_CONTACTS_COUNTED = DriverStatement(select(func.count()).select_from(contacts).where(contacts.c.account_id == _ACCOUNT))
_SENT = (messages.c.direction == "outbound") & (messages.c.status != "failed")
"""A message the report counts as sent (among those created in the period)."""


def _tally(condition: ColumnElement[bool]) -> ColumnElement[int]:
    """How many rows of the group meet `condition` (a portable `COUNT(*) FILTER (WHERE ...)`)."""
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


class SqlUsageRepository(WorkspaceRepository):
    def reserve(self, limit: str, since: datetime, amount: int, maximum: int) -> None:
        if limit == CONTACTS and self._conn.dialect.name == "postgresql":
            counter_moves.reserve(self._conn, self._account_id, maximum)
            return
        if limit == MESSAGES_PER_MONTH and month_tally.reserve(self._conn, self._account_id, since, maximum):
            return
        self.lock()
        check_room(limit, self.count(limit, since), amount, maximum)

    def lock(self) -> None:
        if self._conn.dialect.name == "postgresql":
            _LOCK.first(self._conn, {"account": self._account_id})

    def count(self, limit: str, since: datetime) -> int:
        if limit == CONTACTS:
            return self._contacts()
        if limit == TEAM_MEMBERS:
            return self._rows(team_members)
        if limit == CHANNELS:
            return self._rows(channel_accounts)
        if limit == MEDIA_FILES:
            return self._rows(media_files)
        if limit == MESSAGES_PER_MONTH:
            tallied = month_tally.count(self._conn, self._account_id, since)
            if tallied is not None:
                return tallied
            return self._rows(messages, messages.c.direction == "outbound", messages.c.created_at >= since)
        raise ValueError(f"unknown limit {limit!r}")

    def report(self, start: datetime, end: datetime) -> WorkspaceUsage:
        c, m, b = contacts.c, messages.c, bookings.c
        contact_row = self._conn.execute(
            select(
                func.count(),
                _tally((c.created_at >= start) & (c.created_at < end)),
                _tally(c.blacklisted),
            ).where(self.owned(contacts))
        ).one()
        message_row = self._conn.execute(
            select(
                _tally(_SENT),
                _tally(m.direction == "inbound"),
                _tally(m.status == "failed"),
            ).where(self.owned(messages), m.created_at >= start, m.created_at < end)
        ).one()
        campaign_row = self._conn.execute(
            select(func.count(), _tally(campaigns.c.status == "paused")).where(self.owned(campaigns))
        ).one()
        campaign_sent = self._rows(
            messages, _SENT, m.campaign_id.is_not(None), m.created_at >= start, m.created_at < end
        )
        booking_row = self._conn.execute(
            select(func.count(), _tally(b.status == "completed"), _tally(b.status == "cancelled")).where(
                self.owned(bookings)
            )
        ).one()
        sessions = self._conn.execute(
            select(func.count(distinct(ai_replies.c.contact_id))).where(
                self.owned(ai_replies), ai_replies.c.created_at >= start, ai_replies.c.created_at < end
            )
        ).scalar_one()
        connected = self._conn.execute(
            select(channel_accounts.c.type)
            .where(self.owned(channel_accounts), channel_accounts.c.is_connected)
            .order_by(channel_accounts.c.type)
        ).scalars()
        return WorkspaceUsage(
            contacts_total=int(contact_row[0]),
            contacts_created=int(contact_row[1]),
            contacts_blacklisted=int(contact_row[2]),
            messages_sent=int(message_row[0]),
            messages_received=int(message_row[1]),
            messages_failed=int(message_row[2]),
            campaigns_total=int(campaign_row[0]),
            campaigns_sent=campaign_sent,
            campaigns_paused=int(campaign_row[1]),
            bookings_total=int(booking_row[0]),
            bookings_completed=int(booking_row[1]),
            bookings_cancelled=int(booking_row[2]),
            ai_agent_sessions=int(sessions),
            team_members=self._rows(team_members),
            channels_connected=tuple(connected),
        )

    def _contacts(self) -> int:
        params = {"account": self._account_id}
        row = _CONTACTS_TOTAL.first(self._conn, params)
        if row is not None and row[0] is not None:
            return counter_moves.counted(self._conn, self._account_id, row[0])
        counted = _CONTACTS_COUNTED.first(self._conn, params)
        assert counted is not None
        return int(counted[0])

    def _rows(self, table: Table, *conditions: ColumnElement[bool]) -> int:
        query = select(func.count()).select_from(table).where(self.owned(table), *conditions)
        return int(self._conn.execute(query).scalar_one())


def client_counts(connection: Connection, partner_id: int, start: datetime, end: datetime) -> dict[int, UsageCounts]:
    """`ClientRepository.usage`: `report`'s sent messages, contacts total and AI agent sessions of every client of the
    partner, in one statement. Each count is grouped by account over the partner's client accounts
    (so the same indexes serve it as serve `report`), then outer-joined to the client rows so that
    a client with nothing counted reads zero."""
    pc, c, m, r = partner_clients.c, contacts.c, messages.c, ai_replies.c
    accounts = select(pc.account_id).where(pc.partner_id == partner_id)
    contacts_of = (
        select(c.account_id, func.count().label("n")).where(c.account_id.in_(accounts)).group_by(c.account_id)
    ).subquery()
    sent_of = (
        select(m.account_id, func.count().label("n"))
        .where(m.account_id.in_(accounts), _SENT, m.created_at >= start, m.created_at < end)
        .group_by(m.account_id)
    ).subquery()
    sessions_of = (
        select(r.account_id, func.count(distinct(r.contact_id)).label("n"))
        .where(r.account_id.in_(accounts), r.created_at >= start, r.created_at < end)
        .group_by(r.account_id)
    ).subquery()
    rows = connection.execute(
        select(
            pc.account_id,
            func.coalesce(sent_of.c.n, 0),
            func.coalesce(contacts_of.c.n, 0),
            func.coalesce(sessions_of.c.n, 0),
        )
        .select_from(
            partner_clients.outerjoin(sent_of, sent_of.c.account_id == pc.account_id)
            .outerjoin(contacts_of, contacts_of.c.account_id == pc.account_id)
            .outerjoin(sessions_of, sessions_of.c.account_id == pc.account_id)
        )
        .where(pc.partner_id == partner_id)
    )
    return {
        int(row[0]): UsageCounts(messages_sent=int(row[1]), contacts_total=int(row[2]), ai_agent_sessions=int(row[3]))
        for row in rows
    }
