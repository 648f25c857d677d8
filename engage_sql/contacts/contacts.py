"""Contacts of one account.

The statements of the hot paths (`GET /contacts`, `POST /contacts`, reading one contact) are built
once, at import, with `bindparam`s: building a statement costs more than running it on SQLite, and a
prebuilt statement also keeps its cache key. A page of contacts is one statement: the rows, their tag
titles (a JSON array per row) and the account's contact total from `account_counters`, which every
add and delete keeps in the same transaction (on PostgreSQL as it commits: `counter_moves`). The
statements of the hot paths (the unfiltered page, one contact, the insert and the counter update)
run on the driver's cursor (`DriverStatement`): SQLAlchemy's execution of them cost more than
SQLite's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ColumnElement, Select, bindparam, delete, exists, func, or_, select, type_coerce, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import Insert

from engage_core.contacts.model import Contact, ContactDraft, ContactFilter
from engage_core.contacts.tags import tag_order, title_key
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.accounts.tables import account_counters
from engage_sql.agents.tables import ai_agents
from engage_sql.contacts import counter_moves
from engage_sql.contacts.tables import contact_tags, contacts, tags
from engage_sql.driver import DriverStatement
from engage_sql.messaging.messages import forget_conversations
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import is_unique_violation, json_array_agg
from engage_sql.text import fold, fold_optional
from engage_sql.types import Id

COLUMNS = (
    contacts.c.id,
    contacts.c.name,
    contacts.c.email,
    contacts.c.phone,
    contacts.c.type,
    contacts.c.status,
    contacts.c.blacklisted,
    contacts.c.last_message_at,
    contacts.c.created_at,
    contacts.c.updated_at,
    contacts.c.source,
    contacts.c.company,
    contacts.c.address,
    contacts.c.country_id,
    contacts.c.ai_agent_id,
)
"""The columns of a contact, in the order `contact_from_row` reads them."""

_ACCOUNT = bindparam("account", type_=Id)

_TITLES = (
    select(type_coerce(json_array_agg(tags.c.title), JSON))
    .select_from(contact_tags)
    .join(tags, tags.c.id == contact_tags.c.tag_id)
    .where(contact_tags.c.contact_id == contacts.c.id)
    .scalar_subquery()
    .label("tag_titles")
)
"""A contact's tag titles as one JSON array (a correlated subquery over the primary key of `contact_tags`)."""

_TOTAL = (
    select(account_counters.c.contacts)
    .where(account_counters.c.account_id == _ACCOUNT)
    .scalar_subquery()
    .label("total")
)

_NEWEST_FIRST = (contacts.c.created_at.desc(), contacts.c.id.desc())


DEEP_PAGE_OFFSET = 100
"""From this OFFSET on, a page's ids are chosen first (see `_page`)."""


def _page(*where: ColumnElement[bool], deep: bool = False) -> Select[Any]:
    """One page of the account's contacts matching `where`, newest first, each row also carrying
    the account's total.

    `deep`: the page's ids are chosen first, from the index on (account_id, created_at, id) alone
    (it covers them), and only those rows are read and given their tags. A deep page then skips its
    OFFSET rows in the index, instead of reading each one and running its tag subquery (which
    PostgreSQL does for every row before the OFFSET). Near the first page the plain form is cheaper:
    it needs no sort of the page afterwards."""
    if not deep:
        return (
            select(*COLUMNS, _TITLES, _TOTAL)
            .where(contacts.c.account_id == _ACCOUNT, *where)
            .order_by(*_NEWEST_FIRST)
            .limit(bindparam("limit"))
            .offset(bindparam("offset"))
        )
    ids = (
        select(contacts.c.id)
        .where(contacts.c.account_id == _ACCOUNT, *where)
        .order_by(*_NEWEST_FIRST)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
        .subquery("page")
    )
    return (
        select(*COLUMNS, _TITLES, _TOTAL)
        .select_from(ids.join(contacts, contacts.c.id == ids.c.id))
        .order_by(*_NEWEST_FIRST)
    )


_PAGE = DriverStatement(_page())
_DEEP_PAGE = DriverStatement(_page(deep=True))

_COUNTER = select(account_counters.c.contacts).where(account_counters.c.account_id == _ACCOUNT)
_TOUCHED_AT = bindparam("at", type_=contacts.c.last_message_at.type)
_TOUCH = (
    update(contacts)
    .where(
        contacts.c.account_id == _ACCOUNT,
        contacts.c.id.in_(bindparam("ids", expanding=True)),
        or_(contacts.c.last_message_at.is_(None), contacts.c.last_message_at < _TOUCHED_AT),
    )
    .values(last_message_at=_TOUCHED_AT)
)
_COUNT = select(func.count()).select_from(contacts).where(contacts.c.account_id == _ACCOUNT)

_BY_ID = DriverStatement(
    select(*COLUMNS, _TITLES).where(contacts.c.account_id == _ACCOUNT, contacts.c.id == bindparam("id", type_=Id))
)
_BY_IDS = select(*COLUMNS, _TITLES).where(
    contacts.c.account_id == _ACCOUNT, contacts.c.id.in_(bindparam("ids", expanding=True))
)
_BY_PHONE = select(*COLUMNS, _TITLES).where(
    contacts.c.account_id == _ACCOUNT, contacts.c.type == bindparam("type"), contacts.c.phone == bindparam("phone")
)

_COUNTER_ADD = DriverStatement(
    update(account_counters)
    .where(account_counters.c.account_id == _ACCOUNT)
    .values(contacts=account_counters.c.contacts + bindparam("delta", type_=Id))
)
"""`contacts = contacts + delta`, computed by the database: atomic under concurrent writers."""

_INSERTED = (
    "account_id", "name", "name_key", "email", "email_key", "phone", "type", "status", "blacklisted", "source",
    "company", "address", "country_id", "ai_agent_id", "last_message_at", "created_at", "updated_at",
)  # fmt: skip
"""Every column an insert writes, each from the parameter of its own name."""


# SQLite adds a contact in two statements (the default agent, then the insert) and moves the
# counter at once; PostgreSQL adds in one (`_ADD`) and moves the counter as it commits.


def _insert_contact() -> DriverStatement:
    # ON CONFLICT instead of catching the error, as `_ADD` does on PostgreSQL.
    values = {name: bindparam(name, type_=contacts.c[name].type) for name in _INSERTED}
    statement = (
        sqlite.insert(contacts).values(values).on_conflict_do_nothing(index_elements=["account_id", "type", "phone"])
    )
    # The new id is the cursor's `lastrowid`, without RETURNING's cost (`inserted_id`).
    return DriverStatement(statement)


def _insert_counter() -> Insert:
    # A missing counter row is recounted; the row's creation races only with itself.
    recount = select(_ACCOUNT, func.count()).select_from(contacts).where(contacts.c.account_id == _ACCOUNT)
    statement = sqlite.insert(account_counters).from_select(["account_id", "contacts"], recount)
    # RETURNING, not rowcount: drivers need not report a row count for INSERT ... SELECT.
    returning: Insert = statement.on_conflict_do_nothing(index_elements=["account_id"])
    return returning.returning(account_counters.c.account_id)


_INSERT = _insert_contact()
_INSERT_COUNTER = _insert_counter()

_DEFAULT_AGENT = select(ai_agents.c.id).where(
    ai_agents.c.account_id == _ACCOUNT, ai_agents.c.is_default.is_(True), ai_agents.c.is_active.is_(True)
)
"""The account's active default AI agent: every new contact is assigned it (SPEC 2, `is_default`)."""
_DEFAULT_AGENT_SQLITE = DriverStatement(_DEFAULT_AGENT)


def _add_in_one_statement() -> DriverStatement:
    """PostgreSQL's whole `add` in one round trip instead of two: the default agent read (and
    key-share locked) in a CTE, and the insert taking it; its one row is the new id and the agent.
    The counter moves as the transaction commits (`counter_moves`)."""
    # Key-share locked until commit, so the agent cannot be deleted before the new contact pointing at it is in.
    agent = _DEFAULT_AGENT.with_for_update(read=True, key_share=True).cte("agent")
    values: dict[str, Any] = {name: bindparam(name, type_=contacts.c[name].type) for name in _INSERTED}
    values["ai_agent_id"] = select(agent.c.id).scalar_subquery()
    return DriverStatement(
        postgresql.insert(contacts)
        .values(values)
        .on_conflict_do_nothing(index_elements=["account_id", "type", "phone"])
        .returning(contacts.c.id, contacts.c.ai_agent_id)
    )


_ADD = _add_in_one_statement()


def contact_from_row(row: Sequence[Any], tags: Sequence[str]) -> Contact:
    """A contact from a row of `COLUMNS` (by position: this runs for every row of every page)."""
    id, name, email, phone, kind, status, blacklisted, last_message_at, created_at, updated_at = row[:10]
    source, company, address, country_id, ai_agent_id = row[10:15]
    return Contact(
        id, name, email, phone, kind, status, blacklisted, tuple(tags), last_message_at, created_at, updated_at,
        source, company, address, country_id, ai_agent_id,
    )  # fmt: skip


def _sorted_titles(titles: Sequence[str] | None) -> tuple[str, ...]:
    # Sorted here, not in SQL: database collations disagree with Python on case and accents.
    return tag_order(titles) if titles else ()


def _contact_with_titles(row: Sequence[Any]) -> Contact:
    """A contact from a row of `COLUMNS` followed by its tag titles."""
    return contact_from_row(row, _sorted_titles(row[15]))


def _phone_taken(kind: str) -> ValidationFailed:
    return ValidationFailed.on("phone", f"A {kind} contact with this phone already exists.")


def _searchable(name: str, email: str | None) -> dict[str, str | None]:
    return {"name_key": fold(name), "email_key": fold_optional(email)}


class SqlContactRepository(WorkspaceRepository):
    def add(self, draft: ContactDraft, now: datetime) -> Contact:
        dialect = self._conn.dialect.name
        values = {
            "account_id": self._account_id,
            "name": draft.name,
            "email": draft.email,
            "phone": draft.phone,
            "type": draft.type,
            "status": draft.status,
            "blacklisted": False,
            "source": draft.source,
            "company": draft.company,
            "address": draft.address,
            "country_id": draft.country_id,
            "last_message_at": None,
            "created_at": now,
            "updated_at": now,
            **_searchable(draft.name, draft.email),
        }
        if dialect == "postgresql":
            added = _ADD.first(self._conn, {**values, "account": self._account_id})
            if added is None:
                raise _phone_taken(draft.type)
            contact_id, ai_agent_id = added
            counter_moves.move(self._conn, self._account_id, +1)
        else:
            default_agent = _DEFAULT_AGENT_SQLITE.first(self._conn, {"account": self._account_id})
            ai_agent_id = None if default_agent is None else default_agent[0]
            contact_id = _INSERT.inserted_id(self._conn, {**values, "ai_agent_id": ai_agent_id})
            if contact_id is None:
                raise _phone_taken(draft.type)
            self._count(+1)
        # Everything else is what was written: no need to read it back.
        return Contact(
            id=contact_id,
            name=draft.name,
            email=draft.email,
            phone=draft.phone,
            type=draft.type,
            status=draft.status,
            blacklisted=False,
            tags=(),
            last_message_at=None,
            created_at=now,
            updated_at=now,
            source=draft.source,
            company=draft.company,
            address=draft.address,
            country_id=draft.country_id,
            ai_agent_id=ai_agent_id,
        )

    def get(self, contact_id: int) -> Contact | None:
        row = _BY_ID.first(self._conn, {"account": self._account_id, "id": contact_id})
        return None if row is None else _contact_with_titles(row)

    def get_many(self, contact_ids: Collection[int]) -> Mapping[int, Contact]:
        if not contact_ids:
            return {}
        rows = self._conn.execute(_BY_IDS, {"account": self._account_id, "ids": sorted(set(contact_ids))})
        return {contact.id: contact for contact in map(_contact_with_titles, rows)}

    def by_phone(self, type: str, phone: str) -> Contact | None:
        params = {"account": self._account_id, "type": type, "phone": phone}
        row = self._conn.execute(_BY_PHONE, params).first()
        return None if row is None else _contact_with_titles(row)

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """One statement for an unfiltered page (rows, tags and total); a COUNT more with filters."""
        params = {"account": self._account_id, "limit": page.per_page, "offset": page.offset}
        where = self._filters(filters)
        rows: Sequence[Any]
        if not where:
            rows = (_DEEP_PAGE if page.offset >= DEEP_PAGE_OFFSET else _PAGE).rows(self._conn, params)
            counter = rows[0][16] if rows else None
            # Past the last page, or no counter row: count apart.
            total = self.count() if counter is None else counter_moves.counted(self._conn, self._account_id, counter)
        else:
            total = self._conn.execute(_COUNT.where(*where), params).scalar_one()
            if total <= page.offset:
                return Page(items=[], request=page, total=total)
            rows = self._conn.execute(_page(*where, deep=page.offset >= DEEP_PAGE_OFFSET), params).all()
        return Page(items=[_contact_with_titles(row) for row in rows], request=page, total=total)

    def update(self, contact: Contact) -> None:
        statement = (
            update(contacts)
            .where(self.owned(contacts), contacts.c.id == contact.id)
            .values(
                name=contact.name,
                email=contact.email,
                phone=contact.phone,
                type=contact.type,
                status=contact.status,
                blacklisted=contact.blacklisted,
                source=contact.source,
                company=contact.company,
                address=contact.address,
                country_id=contact.country_id,
                last_message_at=contact.last_message_at,
                created_at=contact.created_at,
                updated_at=contact.updated_at,
                **_searchable(contact.name, contact.email),
            )
        )
        if contact.phone is None:  # no phone, no possible collision: skip the savepoint
            self._conn.execute(statement)
            return
        try:
            # A savepoint, because on PostgreSQL a failed statement aborts the whole transaction.
            with self._conn.begin_nested():
                self._conn.execute(statement)
        except IntegrityError as exc:
            if is_unique_violation(exc):
                raise _phone_taken(contact.type) from exc
            raise

    def touch(self, contact_ids: Collection[int], at: datetime) -> None:
        if contact_ids:
            self._conn.execute(_TOUCH, {"account": self._account_id, "ids": sorted(set(contact_ids)), "at": at})

    def assign_agent(self, agent_id: int, contact_ids: Collection[int]) -> int:
        if not contact_ids:
            return 0
        assigned = self._conn.execute(
            update(contacts)
            .where(self.owned(contacts), contacts.c.id.in_(sorted(set(contact_ids))))
            .values(ai_agent_id=agent_id)
        )
        return assigned.rowcount

    def delete(self, contact_id: int) -> None:
        # Notes, tag links, list and segment memberships, messages and conversation summaries go
        # with it (ON DELETE CASCADE); the conversation totals are lowered first.
        forget_conversations(self._conn, self._account_id, contact_id)
        deleted = self._conn.execute(delete(contacts).where(self.owned(contacts), contacts.c.id == contact_id))
        if deleted.rowcount:
            self._count(-deleted.rowcount)

    def count(self) -> int:
        """The account's contacts: its counter row, or a COUNT where the row is missing."""
        params = {"account": self._account_id}
        total = self._conn.execute(_COUNTER, params).scalar()
        if total is None:
            return int(self._conn.execute(_COUNT, params).scalar_one())  # it sees this transaction's own changes
        return counter_moves.counted(self._conn, self._account_id, total)

    # -- helpers ---------------------------------------------------------------------------------

    def _count(self, delta: int) -> None:
        """Move the account's counter by `delta`, in this transaction; create it, recounted, if missing.
        On PostgreSQL as the transaction commits (`counter_moves`)."""
        if self._conn.dialect.name == "postgresql":
            counter_moves.move(self._conn, self._account_id, delta)
            return
        params = {"account": self._account_id, "delta": delta}
        if not _COUNTER_ADD.execute(self._conn, params):
            self._recount(delta)

    def _recount(self, delta: int = 1) -> None:
        """Create the missing counter row, recounted, after a change of `delta` contacts."""
        params = {"account": self._account_id, "delta": delta}
        # The recount sees this transaction's own change (SQLite only: PostgreSQL's is `counter_moves`).
        if self._conn.execute(_INSERT_COUNTER, params).first() is None:
            _COUNTER_ADD.execute(self._conn, params)

    def _filters(self, filters: ContactFilter) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = []
        if filters.type is not None:
            where.append(contacts.c.type == filters.type)
        if filters.blacklisted is not None:
            where.append(contacts.c.blacklisted == filters.blacklisted)
        if filters.tag is not None:
            where.append(has_tag(title_key(filters.tag)))
        if filters.search:
            needle = fold(filters.search)
            # autoescape: `%`, `_` and the escape character in the search match themselves.
            where.append(
                or_(
                    contacts.c.name_key.contains(needle, autoescape=True),
                    contacts.c.email_key.contains(needle, autoescape=True),
                    contacts.c.phone.contains(needle, autoescape=True),  # E.164: nothing to fold
                )
            )
        return where


def has_tag(key: str) -> ColumnElement[bool]:
    """The contact (of the enclosing query) carries the tag whose `title_key` is `key`."""
    return exists(
        select(contact_tags.c.contact_id)
        .join(tags, tags.c.id == contact_tags.c.tag_id)
        .where(contact_tags.c.contact_id == contacts.c.id, tags.c.title_key == key)
    )


SHORT_PAGE_END = 1000
"""Unfiltered pages that end within this many rows are short reads: the page query walks at most
this many entries of the index on (account_id, created_at, id), then reads a page of rows and tags."""


def is_short_page(filters: ContactFilter, page: PageRequest | None) -> bool:
    """An unfiltered page near the start: a few indexed rows, whatever the account's size (filters
    such as `search` may scan every contact of the account)."""
    return filters == ContactFilter() and page is not None and page.offset + page.per_page <= SHORT_PAGE_END
