"""Messages of one account, and the conversation summaries that `GET /conversations` pages through.

A page of conversations never reads the messages: every write here (`add`, `update`, `mark_read`)
also changes, in the same transaction, the contact's rows in `conversations` (one for scope `*`,
every channel, and one for the message's channel), and `conversation_totals` counts the rows of
each scope. A page is then a backwards scan of the index on `(account_id, scope, last_message_at,
last_message_id)` joined to the contact and the last message by primary key, plus the total read
from one row: its cost depends on the page, not on how many messages or contacts there are.

Concurrency (PostgreSQL; SQLite's writers run one at a time):

- unread counts only move by deltas computed in the database (`unread_count = unread_count + :d`),
  and each delta comes from rows this transaction has locked: `mark_read` from the messages its
  UPDATE changed (a concurrent UPDATE of the same rows waits, then skips those already `read`),
  `update` from the message as read `FOR UPDATE`. Concurrent writes for one contact therefore add
  up, whatever their interleaving;
- the last message only ever moves to a newer one (a conditional SET), so the order in which two
  inserts reach the row does not matter;
- a contact's first message in a scope inserts its row with `ON CONFLICT DO NOTHING`; the loser of
  a race for it finds the winner's committed row and updates it instead. Only an inserted row
  raises the scope's total;
- reads of a message in a write unit of work lock it (`FOR UPDATE`), so two receipts for one
  message apply one after the other and the second sees the first: receipts never move backwards.

Every outbound message stored also counts in its month's tally (`month_tally`: the
`messages_per_month` limit without a COUNT).

Deleting a contact deletes its messages and summary rows (ON DELETE CASCADE); the contact
repository calls `forget_conversations` first, which lowers the totals and the month tallies.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    bindparam,
    case,
    func,
    literal_column,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import BindParameter

from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.handling import AI, HUMAN, PENDING
from engage_core.messaging.messages import Message, MessageDraft
from engage_sql.contacts.tables import contacts
from engage_sql.driver import DriverStatement
from engage_sql.messaging import month_tally
from engage_sql.messaging.tables import conversation_handling, conversation_totals, conversations, messages
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import outer_loop_join
from engage_sql.types import AnyRow, Id, UTCDateTime

ALL_CHANNELS = "*"
"""The scope of a contact's summary over every channel (channel names are the other scopes)."""
DEEP_PAGE_OFFSET = 100
"""From this OFFSET on, a page's rows are chosen from the index first (see `_page`)."""

_COLUMNS = (
    messages.c.id,
    messages.c.contact_id,
    messages.c.direction,
    messages.c.channel,
    messages.c.content,
    messages.c.status,
    messages.c.sent_at,
    messages.c.created_at,
    messages.c.updated_at,
    messages.c.error,
    messages.c.provider_message_id,
    messages.c.campaign_id,
)
"""The columns of a message, in the order of `Message`'s fields."""

_ACCOUNT = bindparam("account", type_=Id)
_CONTACT = bindparam("contact", type_=Id)
_SCOPES: BindParameter[Any] = bindparam("scopes", expanding=True)
_NEWEST_FIRST = (messages.c.created_at.desc(), messages.c.id.desc())


def message_from_row(row: AnyRow) -> Message:
    return Message(*row)


def _unread(direction: str, status: str) -> int:
    return 1 if direction == "inbound" and status != "read" else 0


# -- messages ----------------------------------------------------------------------------------


def _insert_message(insert: Any) -> Insert:
    # ON CONFLICT instead of catching the error: the transaction stays usable on PostgreSQL.
    statement: Insert = insert(messages).on_conflict_do_nothing(
        index_elements=["account_id", "channel", "provider_message_id"]
    )
    return statement.returning(messages.c.id)


_INSERT = {"sqlite": _insert_message(sqlite.insert), "postgresql": _insert_message(postgresql.insert)}
_ADD_SUMMARISED = DriverStatement(
    text(
        """
    WITH contact AS MATERIALIZED (
        SELECT id FROM contacts WHERE account_id = :account_id AND id = :contact_id FOR KEY SHARE
    ), inserted AS (
        INSERT INTO messages (account_id, contact_id, direction, channel, content, status, error,
            provider_message_id, sent_at, campaign_id, created_at, updated_at)
        SELECT :account_id, :contact_id, :direction, :channel, :content, :status, :error,
            :provider_message_id, :sent_at, :campaign_id, :created_at, :updated_at
        FROM (SELECT 1) AS one LEFT JOIN contact ON true
        ON CONFLICT (account_id, channel, provider_message_id) DO NOTHING
        RETURNING id
    ), summarised AS (
        INSERT INTO conversations AS c (account_id, contact_id, scope, last_message_id, last_message_at, unread_count)
        SELECT :account_id, :contact_id, s.scope, inserted.id, :created_at, :unread
        FROM inserted CROSS JOIN (VALUES (1, '*'), (2, :channel)) AS s (n, scope)
        ORDER BY s.n
        ON CONFLICT (account_id, contact_id, scope) DO UPDATE SET
            last_message_id = CASE WHEN c.last_message_at < excluded.last_message_at
                OR (c.last_message_at = excluded.last_message_at AND c.last_message_id < excluded.last_message_id)
                THEN excluded.last_message_id ELSE c.last_message_id END,
            last_message_at = CASE WHEN c.last_message_at < excluded.last_message_at
                OR (c.last_message_at = excluded.last_message_at AND c.last_message_id < excluded.last_message_id)
                THEN excluded.last_message_at ELSE c.last_message_at END,
            unread_count = c.unread_count + excluded.unread_count
        RETURNING c.scope, (c.xmax = 0) AS created
    ), counted AS (
        INSERT INTO conversation_totals (account_id, scope, conversations)
        SELECT :account_id, scope, 1 FROM summarised WHERE created ORDER BY scope <> '*', scope
        ON CONFLICT (account_id, scope) DO UPDATE
            SET conversations = conversation_totals.conversations + excluded.conversations
    )
    SELECT id FROM inserted
    """
    )
    .bindparams(
        *(bindparam(name, type_=messages.c[name].type) for name in ("sent_at", "created_at", "updated_at")),
        bindparam("account_id", type_=Id),
        bindparam("contact_id", type_=Id),
        bindparam("campaign_id", type_=Id),
    )
    .columns(id=Id)
)
"""PostgreSQL's whole `add` in one round trip instead of two to four: the contact key-share locked
first (as the message's foreign key would, but before any summary row: a foreign-key check runs at
the end of the statement, and a contact's delete locks the contact, then its summary rows), the
message (a gone contact still fails its foreign key, as before), the contact's summary rows (`*`,
then its channel, as every writer takes them) created or moved on in one upsert, and the totals
counted, `*` first, for the rows it created (`xmax = 0`: inserted, not updated). The summary's SET
expressions read the row as it was before, like `_SUMMARISE`; the upsert needs no retry for a row
another transaction created meanwhile."""
_BY_ID = select(*_COLUMNS).where(messages.c.account_id == _ACCOUNT, messages.c.id == bindparam("id"))
_BY_PROVIDER_ID = select(*_COLUMNS).where(
    messages.c.account_id == _ACCOUNT,
    messages.c.channel == bindparam("channel"),
    messages.c.provider_message_id == bindparam("provider_message_id"),
)
_STORED = select(messages.c.contact_id, messages.c.direction, messages.c.channel, messages.c.status).where(
    messages.c.account_id == _ACCOUNT, messages.c.id == bindparam("id")
)
_UPDATE = (
    update(messages)
    .where(messages.c.account_id == _ACCOUNT, messages.c.id == bindparam("message"))
    .values(
        # Named apart from the columns: SQLAlchemy reserves those names for its own parameters.
        status=bindparam("to_status"),
        sent_at=bindparam("to_sent_at", type_=UTCDateTime()),
        error=bindparam("to_error"),
        provider_message_id=bindparam("to_provider_message_id"),
        updated_at=bindparam("to_updated_at", type_=UTCDateTime()),
    )
)
_MARK_READ = (
    update(messages)
    .where(
        messages.c.account_id == _ACCOUNT,
        messages.c.contact_id == _CONTACT,
        messages.c.direction == "inbound",
        messages.c.status != "read",
    )
    .values(status="read", updated_at=bindparam("now", type_=UTCDateTime()))
    .returning(messages.c.channel)
)

# -- conversation summaries --------------------------------------------------------------------

_NEW_ID = bindparam("message_id", type_=Id)
_NEW_AT = bindparam("message_at", type_=UTCDateTime())
_IS_NEWER = or_(
    conversations.c.last_message_at < _NEW_AT,
    (conversations.c.last_message_at == _NEW_AT) & (conversations.c.last_message_id < _NEW_ID),
)
"""The message being added is newer than the row's last message (created_at, then id)."""
_OF_CONTACT = (conversations.c.account_id == _ACCOUNT, conversations.c.contact_id == _CONTACT)

_SUMMARISE = (
    update(conversations)
    .where(*_OF_CONTACT, conversations.c.scope.in_(_SCOPES))
    .values(
        # Both SET expressions read the row as it was before this UPDATE.
        last_message_id=case((_IS_NEWER, _NEW_ID), else_=conversations.c.last_message_id),
        last_message_at=case((_IS_NEWER, _NEW_AT), else_=conversations.c.last_message_at),
        unread_count=conversations.c.unread_count + bindparam("unread"),
    )
    .returning(conversations.c.scope)
)
"""Count a new message in the contact's existing rows of `scopes`; the scopes it found."""

_MOVE_UNREAD = (
    update(conversations)
    .where(*_OF_CONTACT, conversations.c.scope == bindparam("in_scope"))
    .values(unread_count=conversations.c.unread_count + bindparam("delta"))
)


# SQLite's summary statements; PostgreSQL stores a message and its summary in `_ADD_SUMMARISED`.
_INSERT_SUMMARY = sqlite.insert(conversations)
_SUMMARY_ROW = ("account_id", "contact_id", "scope", "last_message_id", "last_message_at", "unread_count")


@functools.cache
def _insert_summary_rows(count: int) -> DriverStatement:
    """`_INSERT_SUMMARY` of `count` rows, its values bound by name (`scope_0`, ...), compiled once:
    SQLAlchemy has no cache key for a multi-row insert, so it would compile it for every message."""
    rows = [
        {name: bindparam(f"{name}_{n}", type_=conversations.c[name].type) for name in _SUMMARY_ROW}
        for n in range(count)
    ]
    return DriverStatement(_INSERT_SUMMARY.values(rows))


_NEW_TOTAL = sqlite.insert(conversation_totals)
_RAISE_TOTAL = _NEW_TOTAL.on_conflict_do_update(
    index_elements=["account_id", "scope"],
    set_={"conversations": conversation_totals.c.conversations + _NEW_TOTAL.excluded.conversations},
)

_LOWER_TOTALS = (
    update(conversation_totals)
    .where(
        conversation_totals.c.account_id == _ACCOUNT,
        conversation_totals.c.scope.in_(select(conversations.c.scope).where(*_OF_CONTACT)),
    )
    .values(conversations=conversation_totals.c.conversations - 1)
)
_LOCK_CONTACT = (
    select(contacts.c.id).where(contacts.c.account_id == _ACCOUNT, contacts.c.id == _CONTACT).with_for_update()
)

# -- the listing -------------------------------------------------------------------------------

_SCOPE: BindParameter[str] = bindparam("scope")
_STATE: BindParameter[str] = bindparam("handled_by")
_TOTAL = select(conversation_totals.c.conversations).where(
    conversation_totals.c.account_id == _ACCOUNT, conversation_totals.c.scope == _SCOPE
)
_NEWEST_CONVERSATIONS = (conversations.c.last_message_at.desc(), conversations.c.last_message_id.desc())

ANY, AI_ONLY, ONE_STATE = "any", "ai", "one"
"""What a `handled_by` filter keeps: every conversation; those the AI handles (no state row, or
`ai`); those in the one other state `:handled_by` (`pending` or `human`)."""
_HANDLING = (conversation_handling.c.account_id == conversations.c.account_id) & (
    conversation_handling.c.contact_id == conversations.c.contact_id
)
_AI: ColumnElement[str] = literal_column(f"'{AI}'")
_PEOPLE: tuple[ColumnElement[str], ...] = tuple(literal_column(f"'{state}'") for state in (PENDING, HUMAN))
"""Constants of the statements, written into them (never user input)."""
_BY_AI = or_(conversation_handling.c.handled_by.is_(None), conversation_handling.c.handled_by == _AI)


def _in_state(state: BindParameter[str] | tuple[ColumnElement[str], ...]) -> Select[Any]:
    """How many conversations of the scope are in `state` (a bound state, or any of several): read
    from the states' index, a few rows, each joined to its summary row by primary key."""
    handled_by = conversation_handling.c.handled_by
    return (
        select(func.count())
        .select_from(conversation_handling.join(conversations, _HANDLING & (conversations.c.scope == _SCOPE)))
        .where(
            conversation_handling.c.account_id == _ACCOUNT,
            handled_by.in_(state) if isinstance(state, tuple) else handled_by == state,
        )
    )


_TOTALS = {
    ANY: _TOTAL,
    AI_ONLY: select(_TOTAL.scalar_subquery() - _in_state(_PEOPLE).scalar_subquery()),
    ONE_STATE: _in_state(_STATE),
}
"""The `total` of a page of each kind: the scope's count; it less the conversations people have; the
conversations in the state."""


_SUMMARY_COLUMNS: tuple[ColumnElement[Any], ...] = (
    conversations.c.contact_id,
    contacts.c.name,
    messages.c.channel,
    messages.c.content,
    conversations.c.last_message_at,
    conversations.c.unread_count,
    func.coalesce(conversation_handling.c.handled_by, _AI).label("handled_by"),
)
"""A conversation summary's row (`_summary_from_row`), before any page's total."""


def _with_contact_and_message(source: Any) -> Any:
    """`source` (summary rows) joined to each summary's contact and last message."""
    return source.join(contacts, contacts.c.id == conversations.c.contact_id).join(
        messages,
        (messages.c.id == conversations.c.last_message_id) & (messages.c.account_id == conversations.c.account_id),
    )


def _page(*, deep: bool = False, one_contact: bool = False, state: str = ANY) -> Select[Any]:
    """A page of summaries of one scope, newest first: each row is (contact id, contact name,
    channel, last message, last message at, unread count, handled by, the page kind's total).

    `deep`: the page's rows are chosen first from the index on (account_id, scope,
    last_message_at, last_message_id, contact_id), which covers them, and only those are joined
    to their contact and message; a deep page then skips its OFFSET rows in the index alone.
    `one_contact`: the summary of one contact (the `contact_id` filter): a primary-key read with
    no order, limit or total (there is at most one row). `state`: which conversations by who
    answers them (`ANY`, `AI_ONLY`, `ONE_STATE`); a conversation's state row is joined by primary
    key (none: `ai`). A page of `ONE_STATE` is always chosen first, from the states' index: its
    few rows are sorted, where walking the newest-first index would read every conversation."""
    where: list[ColumnElement[bool]] = [conversations.c.account_id == _ACCOUNT, conversations.c.scope == _SCOPE]
    if one_contact:
        where.append(conversations.c.contact_id == _CONTACT)
    if state == AI_ONLY:
        where.append(_BY_AI)
    source: Any = conversations.join(conversation_handling, _HANDLING, isouter=True)
    if state == ONE_STATE:
        where.append(conversation_handling.c.handled_by == _STATE)
        deep = not one_contact
    if deep:
        ordered = (
            _chosen_in_state()
            if state == ONE_STATE
            else select(conversations.c.contact_id).select_from(source).where(*where).order_by(*_NEWEST_CONVERSATIONS)
        )
        chosen = ordered.limit(bindparam("limit")).offset(bindparam("offset")).subquery("chosen")
        source = chosen.join(
            conversations,
            (conversations.c.account_id == _ACCOUNT)
            & (conversations.c.contact_id == chosen.c.contact_id)
            & (conversations.c.scope == _SCOPE),
        ).join(conversation_handling, _HANDLING, isouter=True)
    columns = list(_SUMMARY_COLUMNS)
    if not one_contact:
        columns.append(_TOTALS[state].scalar_subquery().label("total"))
    query = select(*columns).select_from(_with_contact_and_message(source))
    if one_contact:
        return query.where(*where)
    query = query.order_by(*_NEWEST_CONVERSATIONS)
    return query if deep else query.where(*where).limit(bindparam("limit")).offset(bindparam("offset"))


def _chosen_in_state() -> Select[Any]:
    """The contacts of a page of the conversations in one state, newest first: read from the
    states' index, each joined to its summary row by primary key, then sorted (rather than walk every
    conversation newest first and keep those in the state: `outer_loop_join`)."""
    in_state = outer_loop_join(conversation_handling, conversations, _HANDLING & (conversations.c.scope == _SCOPE))
    return (
        select(conversations.c.contact_id)
        .select_from(in_state)
        .where(conversation_handling.c.account_id == _ACCOUNT, conversation_handling.c.handled_by == _STATE)
        .order_by(*_NEWEST_CONVERSATIONS)
    )


_PAGE = _page()
_DEEP_PAGE = _page(deep=True)
_ONE_CONTACT = _page(one_contact=True)
_PAGES: dict[tuple[str, bool, bool], Select[Any]] = {
    (state, deep, one): _page(deep=deep, one_contact=one, state=state)
    for state in (ANY, AI_ONLY, ONE_STATE)
    for deep, one in ((False, False), (True, False), (False, True))
}
"""Every page statement by (state, deep, one contact), built once."""


_MEMBER: BindParameter[int] = bindparam("member")


@functools.cache
def _plain_page(state: str, visible: bool, assigned: bool, unread: bool) -> tuple[Select[Any], Select[Any]]:
    """A page of summaries by the dashboard's filters, and its total: conversations a team member sees
    (`visible`: unassigned or theirs, `:member`), those assigned to them (`assigned`), those with unread
    messages (`unread`). A plain join of each summary to its state row, for the few conversations an
    agent's inbox holds, with its own count (the counters behind the other pages' totals know neither
    assignees nor unread)."""
    where: list[ColumnElement[bool]] = [conversations.c.account_id == _ACCOUNT, conversations.c.scope == _SCOPE]
    if visible:
        where.append(or_(conversation_handling.c.assignee_id.is_(None), conversation_handling.c.assignee_id == _MEMBER))
    if assigned:
        where.append(conversation_handling.c.assignee_id == bindparam("assignee"))
    if unread:
        where.append(conversations.c.unread_count > 0)
    if state == AI_ONLY:
        where.append(_BY_AI)
    elif state == ONE_STATE:
        where.append(conversation_handling.c.handled_by == _STATE)
    source = conversations.join(conversation_handling, _HANDLING, isouter=True)
    rows = (
        select(*_SUMMARY_COLUMNS)
        .select_from(_with_contact_and_message(source))
        .where(*where)
        .order_by(*_NEWEST_CONVERSATIONS)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )
    return rows, select(func.count()).select_from(source).where(*where)


def _state_kind(handled_by: str | None) -> str:
    if handled_by is None:
        return ANY
    return AI_ONLY if handled_by == AI else ONE_STATE


def _summary_from_row(row: AnyRow) -> ConversationSummary:
    contact_id, name, channel, content, last_message_at, unread_count, handled_by = row[:7]
    return ConversationSummary(contact_id, name, channel, content, last_message_at, unread_count, handled_by)


def forget_conversations(connection: Connection, account_id: int, contact_id: int) -> None:
    """Lower the conversation totals by the contact's summary rows, and the months' outbound tallies
    by its messages, before the contact (and so its rows, by cascade) is deleted in the same transaction.

    On PostgreSQL the contact is locked first: a message being added for it (whose foreign-key
    check holds a share lock on the contact) commits before the rows are counted, and one not yet
    added waits for the delete and then fails its foreign key. Either way no row escapes the count."""
    params = {"account": account_id, "contact": contact_id}
    if connection.dialect.name == "postgresql":
        connection.execute(_LOCK_CONTACT, params)
    connection.execute(_LOWER_TOTALS, params)
    month_tally.forget_contact(connection, account_id, contact_id)


def _stored(draft: MessageDraft, now: datetime, message_id: int | None) -> Message:
    """The message `draft` stored as `message_id`; ValueError when the insert stored nothing (its
    provider message id was taken)."""
    if message_id is None:
        raise ValueError("a message with this provider message id is already stored")
    return Message(
        id=message_id,
        contact_id=draft.contact_id,
        direction=draft.direction,
        channel=draft.channel,
        content=draft.content,
        status=draft.status,
        sent_at=draft.sent_at,
        created_at=now,
        updated_at=now,
        error=draft.error,
        provider_message_id=draft.provider_message_id,
        campaign_id=draft.campaign_id,
    )


class SqlMessageRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so reads lock the message they find (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._postgres = connection.dialect.name == "postgresql"
        self._lock_reads = lock_reads and self._postgres

    def add(self, draft: MessageDraft, now: datetime) -> Message:
        """Raises ValueError when the account has a message of the channel with the same provider
        message id (like the fake; the services look it up first)."""
        params = self._params(draft, now)
        if self._postgres:
            added = _ADD_SUMMARISED.first(self._conn, params)
            message_id = None if added is None else added[0]
        else:
            message_id = self._conn.execute(_INSERT[self._conn.dialect.name], params).scalar()
        message = _stored(draft, now, message_id)
        if draft.direction == "outbound":
            month_tally.added(self._conn, self._account_id, now)
        if not self._postgres:
            self._summarise(message)
        return message

    def add_many(self, drafts: Sequence[MessageDraft], now: datetime) -> Sequence[Message]:
        """On PostgreSQL every `_ADD_SUMMARISED` of the batch in one round trip (pipelined)."""
        if not self._postgres:
            return [self.add(draft, now) for draft in drafts]
        runs = _ADD_SUMMARISED.rows_many(self._conn, [self._params(draft, now) for draft in drafts])
        outbound = sum(1 for draft, rows in zip(drafts, runs, strict=True) if rows and draft.direction == "outbound")
        month_tally.added(self._conn, self._account_id, now, outbound)  # what was stored, should one raise below
        return [_stored(draft, now, rows[0][0] if rows else None) for draft, rows in zip(drafts, runs, strict=True)]

    def _params(self, draft: MessageDraft, now: datetime) -> dict[str, Any]:
        params = {
            "account_id": self._account_id,
            "contact_id": draft.contact_id,
            "direction": draft.direction,
            "channel": draft.channel,
            "content": draft.content,
            "status": draft.status,
            "error": draft.error,
            "provider_message_id": draft.provider_message_id,
            "campaign_id": draft.campaign_id,
            "sent_at": draft.sent_at,
            "created_at": now,
            "updated_at": now,
        }
        if self._postgres:
            params["unread"] = _unread(draft.direction, draft.status)
        return params

    def get(self, message_id: int) -> Message | None:
        return self._first(_BY_ID, {"id": message_id})

    def by_provider_id(self, channel: str, provider_message_id: str) -> Message | None:
        return self._first(_BY_PROVIDER_ID, {"channel": channel, "provider_message_id": provider_message_id})

    def update(self, message: Message) -> None:
        params = {"account": self._account_id, "id": message.id}
        # The stored row, locked: what the unread count moves from (the caller's copy may be stale).
        stored = self._conn.execute(_STORED.with_for_update() if self._postgres else _STORED, params).first()
        if stored is None:
            return
        contact_id, direction, channel, status = stored
        self._conn.execute(
            _UPDATE,
            {
                "account": self._account_id,
                "message": message.id,
                "to_status": message.status,
                "to_sent_at": message.sent_at,
                "to_error": message.error,
                "to_provider_message_id": message.provider_message_id,
                "to_updated_at": message.updated_at,
            },
        )
        delta = _unread(direction, message.status) - _unread(direction, status)
        if delta:
            self._move_unread(contact_id, {channel: delta})

    def for_contact(self, contact_id: int, direction: str | None, page: PageRequest) -> Page[Message]:
        where = [messages.c.account_id == self._account_id, messages.c.contact_id == contact_id]
        if direction is not None:
            where.append(messages.c.direction == direction)
        total = self._conn.execute(select(func.count()).select_from(messages).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS).where(*where).order_by(*_NEWEST_FIRST).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[message_from_row(row) for row in rows], request=page, total=total)

    def conversations(self, filters: ConversationFilter, page: PageRequest) -> Page[ConversationSummary]:
        """One statement: the page's rows, each carrying the scope's total (read apart only when
        the page is past the end)."""
        params = {
            "account": self._account_id,
            "scope": filters.channel or ALL_CHANNELS,
            "handled_by": filters.handled_by,
            "limit": page.per_page,
            "offset": page.offset,
        }
        state = _state_kind(filters.handled_by)
        plain = filters.visible_to is not None or filters.assignee_id is not None or filters.unread
        if plain and filters.contact_id is None:
            assigned = filters.assignee_id is not None
            rows_of, total_of = _plain_page(state, filters.visible_to is not None, assigned, filters.unread)
            params.update(member=filters.visible_to, assignee=filters.assignee_id)
            rows = self._conn.execute(rows_of, params).all()
            total = self._conn.execute(total_of, params).scalar_one()
            return Page(items=[_summary_from_row(row) for row in rows], request=page, total=int(total))
        if filters.contact_id is not None:
            one = _PAGES[state, False, True]
            rows = self._conn.execute(one, {**params, "contact": filters.contact_id}).all()
            return paginate([_summary_from_row(row) for row in rows], page)
        deep = page.offset >= DEEP_PAGE_OFFSET  # a page in one state is always chosen first (`_page`)
        rows = self._conn.execute(_PAGES[state, deep, False], params).all()
        total = rows[0][7] if rows else self._conn.execute(_TOTALS[state], params).scalar()
        return Page(items=[_summary_from_row(row) for row in rows], request=page, total=int(total or 0))

    def mark_read(self, contact_id: int, now: datetime) -> int:
        channels = self._conn.execute(
            _MARK_READ, {"account": self._account_id, "contact": contact_id, "now": now}
        ).scalars()
        read = Counter(channels)
        if read:
            self._move_unread(contact_id, {channel: -count for channel, count in read.items()})
        return read.total()

    # -- helpers ---------------------------------------------------------------------------------

    def _first(self, query: Select[Any], params: dict[str, Any]) -> Message | None:
        statement = query.with_for_update() if self._lock_reads else query
        row = self._conn.execute(statement, {"account": self._account_id, **params}).first()
        return None if row is None else message_from_row(row)

    def _summarise(self, message: Message) -> None:
        """Count a new message in the contact's summary rows (`*` and its channel), creating those
        it has none of yet: SQLite's, where one writer at a time means no other transaction creates
        them meanwhile (PostgreSQL's `add` is `_ADD_SUMMARISED`)."""
        scopes = [ALL_CHANNELS, message.channel]
        params = {
            "account": self._account_id,
            "contact": message.contact_id,
            "message_id": message.id,
            "message_at": message.created_at,
            "unread": _unread(message.direction, message.status),
        }
        found = set(self._conn.execute(_SUMMARISE, {**params, "scopes": scopes}).scalars())
        missing = [scope for scope in scopes if scope not in found]
        if not missing:
            return
        values: dict[str, Any] = {}
        for n, scope in enumerate(missing):
            row = (self._account_id, message.contact_id, scope, message.id, message.created_at, params["unread"])
            values.update((f"{name}_{n}", value) for name, value in zip(_SUMMARY_ROW, row, strict=True))
        _insert_summary_rows(len(missing)).execute(self._conn, values)
        totals = [{"account_id": self._account_id, "scope": scope, "conversations": 1} for scope in missing]
        self._conn.execute(_RAISE_TOTAL, totals)

    def _move_unread(self, contact_id: int, by_channel: Mapping[str, int]) -> None:
        """Move the contact's unread counts: each channel's row by its delta, `*` by their sum.
        Rows are changed in one order (`*`, then channels by name) so that writers never deadlock."""
        deltas = [(ALL_CHANNELS, sum(by_channel.values())), *sorted(by_channel.items())]
        self._conn.execute(
            _MOVE_UNREAD,
            [
                {"account": self._account_id, "contact": contact_id, "in_scope": scope, "delta": delta}
                for scope, delta in deltas
                if delta
            ],
        )
