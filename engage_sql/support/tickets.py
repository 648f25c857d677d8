"""Support tickets of one account with their replies.

Ticket numbers come from the account's `account_counters` row: `UPDATE ... SET tickets = tickets
+ 1 RETURNING tickets` is atomic on both engines (the row stays locked until the transaction ends
on PostgreSQL; SQLite runs one writer at a time), and a unique index on `(account_id, ticket_id)`
backs it.

Changes of one ticket are serialised like orders': in a write unit of work on PostgreSQL, `get`
reads the ticket `FOR UPDATE`, so a reply racing a close reads the ticket only once the close has
committed, and is refused as a reply to a closed ticket instead of reopening it.

Tickets are read with their department (id and title) joined in: a renamed department shows its
new title on every ticket filed under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, bindparam, func, insert, select, update

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.support.departments import Department
from engage_core.support.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply
from engage_sql.accounts.tables import account_counters
from engage_sql.contacts.tables import contacts
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore
from engage_sql.support.tables import departments, ticket_replies, tickets
from engage_sql.types import AnyRow, Id

_COLUMNS = (
    tickets.c.id,
    tickets.c.ticket_id,
    tickets.c.subject,
    tickets.c.body,
    tickets.c.priority,
    tickets.c.status,
    tickets.c.assignee_id,
    tickets.c.last_reply_at,
    tickets.c.closed_at,
    tickets.c.created_at,
    tickets.c.updated_at,
    tickets.c.department_id,
    departments.c.title.label("department_title"),
    departments.c.created_at.label("department_created_at"),
    departments.c.updated_at.label("department_updated_at"),
)
_JOINED = tickets.outerjoin(
    departments, (departments.c.account_id == tickets.c.account_id) & (departments.c.id == tickets.c.department_id)
)
_REPLY_COLUMNS = (
    ticket_replies.c.id,
    ticket_replies.c.reply,
    ticket_replies.c.type,
    ticket_replies.c.author_id,
    ticket_replies.c.created_at,
)
_NEWEST_FIRST = (tickets.c.created_at.desc(), tickets.c.id.desc())

_ACCOUNT = bindparam("account", type_=Id)
_NEXT_NUMBER = (
    update(account_counters)
    .where(account_counters.c.account_id == _ACCOUNT)
    .values(tickets=account_counters.c.tickets + 1)
    .returning(account_counters.c.tickets)
)


def ticket_from_row(row: AnyRow) -> Ticket:
    department = (
        None
        if row.department_id is None
        else Department(row.department_id, row.department_title, row.department_created_at, row.department_updated_at)
    )
    return Ticket(
        id=row.id,
        ticket_id=row.ticket_id,
        subject=row.subject,
        body=row.body,
        priority=row.priority,
        status=row.status,
        department=department,
        assignee_id=row.assignee_id,
        last_reply_at=row.last_reply_at,
        closed_at=row.closed_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def reply_from_row(row: AnyRow) -> TicketReply:
    return TicketReply(id=row.id, reply=row.reply, type=row.type, author_id=row.author_id, created_at=row.created_at)


class SqlTicketRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` locks the ticket it reads (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock_reads = lock_reads and connection.dialect.name == "postgresql"

    def next_number(self) -> int:
        number = self._conn.execute(_NEXT_NUMBER, {"account": self._account_id}).scalar()
        if number is None:  # no counter row: create it from what the account has, then count on
            self._create_counter()
            number = self._conn.execute(_NEXT_NUMBER, {"account": self._account_id}).scalar_one()
        return int(number)

    def add(self, draft: TicketDraft, now: datetime) -> Ticket:
        ticket_id = self._conn.execute(
            insert(tickets)
            .values(
                account_id=self._account_id,
                ticket_id=draft.ticket_id,
                subject=draft.subject,
                body=draft.body,
                priority=draft.priority,
                status=draft.status,
                department_id=draft.department_id,
                assignee_id=draft.assignee_id,
                created_at=now,
                updated_at=now,
            )
            .returning(tickets.c.id)
        ).scalar_one()
        ticket = self._first(tickets.c.id == ticket_id)  # joins the department in
        assert ticket is not None
        return ticket

    def get(self, ticket_id: int) -> Ticket | None:
        """In a write unit of work on PostgreSQL, the ticket row stays locked until the transaction ends."""
        return self._first(tickets.c.id == ticket_id, for_update=self._lock_reads)

    def by_reference(self, reference: str) -> Ticket | None:
        """Through the unique index on `(account_id, ticket_id)`; locked like `get`."""
        return self._first(tickets.c.ticket_id == reference, for_update=self._lock_reads)

    def find(self, filters: TicketFilter, page: PageRequest) -> Page[Ticket]:
        """Newest first (`created_at`, then `id`, descending)."""
        where = [self.owned(tickets), *_filters(filters)]
        total = self._conn.execute(select(func.count()).select_from(tickets).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            _select().where(*where).order_by(*_NEWEST_FIRST).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[ticket_from_row(row) for row in rows], request=page, total=total)

    def update(self, ticket: Ticket) -> None:
        self._conn.execute(
            update(tickets)
            .where(self.owned(tickets), tickets.c.id == ticket.id)
            .values(
                status=ticket.status,
                priority=ticket.priority,
                department_id=ticket.department_id,
                assignee_id=ticket.assignee_id,
                last_reply_at=ticket.last_reply_at,
                closed_at=ticket.closed_at,
                updated_at=ticket.updated_at,
            )
        )

    def add_reply(self, ticket_id: int, draft: ReplyDraft, now: datetime) -> TicketReply:
        reply_id = self._conn.execute(
            insert(ticket_replies)
            .values(
                account_id=self._account_id,
                ticket_id=ticket_id,
                reply=draft.reply,
                type=draft.type,
                author_id=draft.author_id,
                created_at=now,
            )
            .returning(ticket_replies.c.id)
        ).scalar_one()
        return TicketReply(id=reply_id, reply=draft.reply, type=draft.type, author_id=draft.author_id, created_at=now)

    def replies(self, ticket_id: int) -> Sequence[TicketReply]:
        rows = self._conn.execute(
            select(*_REPLY_COLUMNS)
            .where(self.owned(ticket_replies), ticket_replies.c.ticket_id == ticket_id)
            .order_by(ticket_replies.c.created_at, ticket_replies.c.id)
        )
        return [reply_from_row(row) for row in rows]

    def unassign_member(self, member_id: int, now: datetime) -> Sequence[Ticket]:
        unassigned = self._conn.execute(
            update(tickets)
            .where(self.owned(tickets), tickets.c.assignee_id == member_id)
            .values(assignee_id=None, updated_at=now)
            .returning(tickets.c.id)
        ).scalars()
        ids = list(unassigned)
        if not ids:
            return []
        rows = self._conn.execute(_select().where(self.owned(tickets), tickets.c.id.in_(ids)).order_by(tickets.c.id))
        return [ticket_from_row(row) for row in rows]

    # -- helpers ---------------------------------------------------------------------------------

    def _first(self, *where: ColumnElement[bool], for_update: bool = False) -> Ticket | None:
        query = _select().where(self.owned(tickets), *where)
        if for_update:
            query = query.with_for_update(of=tickets)  # not the department, on the outer join's nullable side
        row = self._conn.execute(query).one_or_none()
        return None if row is None else ticket_from_row(row)

    def _create_counter(self) -> None:
        """The account's counter row, counted from its rows (tickets are never deleted, so their count
        is the last number handed out). A concurrent creation wins; ours then does nothing."""
        account = self._account_id
        counted = select(
            _ACCOUNT,
            select(func.count()).select_from(contacts).where(contacts.c.account_id == _ACCOUNT).scalar_subquery(),
            select(func.count()).select_from(tickets).where(tickets.c.account_id == _ACCOUNT).scalar_subquery(),
        )
        self._conn.execute(
            insert_or_ignore(self._conn, account_counters, ("account_id",)).from_select(
                ["account_id", "contacts", "tickets"], counted
            ),
            {"account": account},
        )


def _select() -> Select[Any]:
    return select(*_COLUMNS).select_from(_JOINED)


def _filters(filters: TicketFilter) -> list[ColumnElement[bool]]:
    """`TicketFilter.matches` in SQL."""
    where: list[ColumnElement[bool]] = []
    if filters.status is not None:
        where.append(tickets.c.status == filters.status)
    if filters.priority is not None:
        where.append(tickets.c.priority == filters.priority)
    return where
