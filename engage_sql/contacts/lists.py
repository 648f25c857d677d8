"""Contact lists of one account and their members."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, literal, select, update

from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Member
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.contacts.tables import contact_lists, contacts, list_members
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore
from engage_sql.types import AnyRow, UTCDateTime

_COLUMNS = (
    contact_lists.c.id,
    contact_lists.c.name,
    contact_lists.c.status,
    contact_lists.c.created_at,
    contact_lists.c.updated_at,
)
_CONTACTS_COUNT = (
    select(func.count()).where(list_members.c.list_id == contact_lists.c.id).scalar_subquery().label("contacts_count")
)
MEMBER_COLUMNS = (contacts.c.id, contacts.c.name, contacts.c.phone, contacts.c.type)


def list_from_row(row: AnyRow) -> ContactList:
    return ContactList(
        id=row.id,
        name=row.name,
        status=row.status,
        contacts_count=row.contacts_count,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def member_from_row(row: AnyRow) -> Member:
    return Member(id=row.id, name=row.name, phone=row.phone, type=row.type)


class SqlContactListRepository(WorkspaceRepository):
    def add(self, name: str, now: datetime) -> ContactList:
        row = self._conn.execute(
            contact_lists.insert()
            .values(account_id=self._account_id, name=name, status=1, created_at=now, updated_at=now)
            .returning(*_COLUMNS, literal(0).label("contacts_count"))
        ).one()
        return list_from_row(row)

    def get(self, list_id: int) -> ContactList | None:
        row = self._conn.execute(
            select(*_COLUMNS, _CONTACTS_COUNT).where(self.owned(contact_lists), contact_lists.c.id == list_id)
        ).one_or_none()
        return None if row is None else list_from_row(row)

    def list(self) -> Sequence[ContactList]:
        rows = self._conn.execute(
            select(*_COLUMNS, _CONTACTS_COUNT).where(self.owned(contact_lists)).order_by(contact_lists.c.id)
        )
        return [list_from_row(row) for row in rows]

    def update(self, list_id: int, name: str, status: int, now: datetime) -> None:
        self._conn.execute(
            update(contact_lists)
            .where(self.owned(contact_lists), contact_lists.c.id == list_id)
            .values(name=name, status=status, updated_at=now)
        )

    def delete(self, list_id: int) -> None:
        # Memberships cascade; the contacts stay.
        self._conn.execute(delete(contact_lists).where(self.owned(contact_lists), contact_lists.c.id == list_id))

    def add_member(self, list_id: int, contact_id: int, now: datetime) -> bool:
        # INSERT ... SELECT: nothing is added unless both the list and the contact are this account's.
        added = self._conn.execute(
            insert_or_ignore(self._conn, list_members, ("list_id", "contact_id"))
            .from_select(
                ["account_id", "list_id", "contact_id", "added_at"],
                select(contact_lists.c.account_id, contact_lists.c.id, contacts.c.id, literal(now, UTCDateTime()))
                .join_from(contact_lists, contacts, contacts.c.account_id == contact_lists.c.account_id)
                .where(self.owned(contact_lists), contact_lists.c.id == list_id, contacts.c.id == contact_id),
            )
            # RETURNING, not rowcount: drivers need not report a row count for INSERT ... SELECT.
            .returning(list_members.c.id)
        ).first()
        return added is not None

    def remove_member(self, list_id: int, contact_id: int) -> bool:
        removed = self._conn.execute(
            delete(list_members).where(
                self.owned(list_members), list_members.c.list_id == list_id, list_members.c.contact_id == contact_id
            )
        )
        return removed.rowcount == 1

    def members(self, list_id: int, page: PageRequest) -> Page[Member]:
        """In the order they were added (the surrogate key grows with every insert)."""
        where: tuple[ColumnElement[bool], ...] = (self.owned(list_members), list_members.c.list_id == list_id)
        total = self._conn.execute(select(func.count()).select_from(list_members).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*MEMBER_COLUMNS)
            .join_from(list_members, contacts, contacts.c.id == list_members.c.contact_id)
            .where(*where)
            .order_by(list_members.c.id)
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page(items=[member_from_row(row) for row in rows], request=page, total=total)
