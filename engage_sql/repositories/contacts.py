"""Contacts of one account."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, delete, exists, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from engage_core.contacts import Contact, ContactDraft, ContactFilter
from engage_core.errors import ValidationFailed
from engage_core.pagination import Page, PageRequest
from engage_core.tags import title_key
from engage_sql.repositories.base import WorkspaceRepository
from engage_sql.statements import insert_or_ignore, is_unique_violation
from engage_sql.tables import contact_tags, contacts, tags
from engage_sql.text import fold, fold_optional
from engage_sql.types import AnyRow

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
)


def contact_from_row(row: AnyRow, tags: Sequence[str]) -> Contact:
    return Contact(
        id=row.id,
        name=row.name,
        email=row.email,
        phone=row.phone,
        type=row.type,
        status=row.status,
        blacklisted=row.blacklisted,
        tags=tuple(tags),
        last_message_at=row.last_message_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
        source=row.source,
        company=row.company,
        address=row.address,
        country_id=row.country_id,
    )


def _phone_taken(kind: str) -> ValidationFailed:
    return ValidationFailed.on("phone", f"A {kind} contact with this phone already exists.")


def _searchable(name: str, email: str | None) -> dict[str, str | None]:
    return {"name_key": fold(name), "email_key": fold_optional(email)}


class SqlContactRepository(WorkspaceRepository):
    def add(self, draft: ContactDraft, now: datetime) -> Contact:
        # ON CONFLICT instead of catching the error: the transaction stays usable on PostgreSQL.
        row = self._conn.execute(
            insert_or_ignore(self._conn, contacts, ("account_id", "type", "phone"))
            .values(
                account_id=self._account_id,
                name=draft.name,
                email=draft.email,
                phone=draft.phone,
                type=draft.type,
                status=draft.status,
                blacklisted=False,
                source=draft.source,
                company=draft.company,
                address=draft.address,
                country_id=draft.country_id,
                last_message_at=None,
                created_at=now,
                updated_at=now,
                **_searchable(draft.name, draft.email),
            )
            .returning(*COLUMNS)
        ).one_or_none()
        if row is None:
            raise _phone_taken(draft.type)
        return contact_from_row(row, ())

    def get(self, contact_id: int) -> Contact | None:
        return self._one(contacts.c.id == contact_id)

    def by_phone(self, type: str, phone: str) -> Contact | None:
        return self._one(contacts.c.type == type, contacts.c.phone == phone)

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """One COUNT, one page, one query for the page's tags: the cost does not grow with the page."""
        where = [self.owned(contacts), *self._filters(filters)]
        total = self._conn.execute(select(func.count()).select_from(contacts).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*COLUMNS)
            .where(*where)
            .order_by(contacts.c.created_at.desc(), contacts.c.id.desc())
            .limit(page.per_page)
            .offset(page.offset)
        ).all()
        titles = self._titles([row.id for row in rows])
        return Page(items=[contact_from_row(row, titles[row.id]) for row in rows], request=page, total=total)

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

    def delete(self, contact_id: int) -> None:
        # Notes, tag links, list and segment memberships go with it (ON DELETE CASCADE).
        self._conn.execute(delete(contacts).where(self.owned(contacts), contacts.c.id == contact_id))

    def count(self) -> int:
        return self._conn.execute(select(func.count()).select_from(contacts).where(self.owned(contacts))).scalar_one()

    # -- helpers ---------------------------------------------------------------------------------

    def _one(self, *where: ColumnElement[bool]) -> Contact | None:
        row = self._conn.execute(select(*COLUMNS).where(self.owned(contacts), *where)).one_or_none()
        return None if row is None else contact_from_row(row, self._titles([row.id])[row.id])

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

    def _titles(self, contact_ids: Sequence[int]) -> defaultdict[int, list[str]]:
        """Tag titles of each contact, ordered as the core orders them (by casefolded title)."""
        found: defaultdict[int, list[str]] = defaultdict(list)
        if not contact_ids:
            return found
        rows = self._conn.execute(
            select(contact_tags.c.contact_id, tags.c.title)
            .join(tags, tags.c.id == contact_tags.c.tag_id)
            .where(self.owned(contact_tags), contact_tags.c.contact_id.in_(contact_ids))
        )
        for contact_id, title in rows:
            found[contact_id].append(title)
        for titles in found.values():
            # Sorted here, not in SQL: database collations disagree with Python on case and accents.
            titles.sort(key=str.casefold)
        return found


def has_tag(key: str) -> ColumnElement[bool]:
    """The contact (of the enclosing query) carries the tag whose `title_key` is `key`."""
    return exists(
        select(contact_tags.c.contact_id)
        .join(tags, tags.c.id == contact_tags.c.tag_id)
        .where(contact_tags.c.contact_id == contacts.c.id, tags.c.title_key == key)
    )
