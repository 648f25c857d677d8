"""Tags of one account, and their links to contacts."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from datetime import datetime
from typing import Final, TypeVar

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.exc import IntegrityError

from engage_core.contacts.tags import Tag, title_key
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.contacts.tables import contact_tags, contacts, tags
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore, is_unique_violation
from engage_sql.types import AnyRow

T = TypeVar("T")

CHUNK: Final = 500
"""Titles or ids per statement at most: a few hundred bound parameters, far below either driver's limit."""

_COLUMNS = (tags.c.id, tags.c.title, tags.c.created_at, tags.c.updated_at)
_CONTACTS_COUNT = (
    select(func.count()).where(contact_tags.c.tag_id == tags.c.id).scalar_subquery().label("contacts_count")
)


def tag_from_row(row: AnyRow, contacts_count: int | None) -> Tag:
    return Tag(
        id=row.id,
        title=row.title,
        contacts_count=contacts_count,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlTagRepository(WorkspaceRepository):
    def add(self, title: str, now: datetime) -> Tag:
        row = self._conn.execute(
            insert_or_ignore(self._conn, tags, ("account_id", "title_key"))
            .values(
                account_id=self._account_id, title=title, title_key=title_key(title), created_at=now, updated_at=now
            )
            .returning(*_COLUMNS)
        ).one_or_none()
        if row is not None:
            return tag_from_row(row, 0)
        # Created concurrently since the caller looked: that tag is the one wanted.
        existing = self.by_title(title)
        assert existing is not None
        return existing

    def create(self, title: str, now: datetime) -> Tag:
        # The unique index on (account_id, title_key) decides between concurrent creates: the
        # loser's insert is skipped (no error, so a PostgreSQL transaction stays usable).
        row = self._conn.execute(
            insert_or_ignore(self._conn, tags, ("account_id", "title_key"))
            .values(
                account_id=self._account_id, title=title, title_key=title_key(title), created_at=now, updated_at=now
            )
            .returning(*_COLUMNS)
        ).one_or_none()
        if row is None:
            raise ValidationFailed.on("title", "A tag with this title already exists.")
        return tag_from_row(row, 0)

    def get(self, tag_id: int) -> Tag | None:
        return self._one(tags.c.id == tag_id)

    def by_title(self, title: str) -> Tag | None:
        return self._one(tags.c.title_key == title_key(title))

    def list(self, page: PageRequest) -> Page[Tag]:
        total = self._conn.execute(select(func.count()).select_from(tags).where(self.owned(tags))).scalar_one()
        rows = self._conn.execute(
            select(*_COLUMNS, _CONTACTS_COUNT)
            .where(self.owned(tags))
            .order_by(tags.c.id)
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page([tag_from_row(row, row.contacts_count) for row in rows], page, total)

    def ensure(self, titles: Sequence[str], now: datetime) -> Sequence[Tag]:
        # One SELECT of those that exist, one multi-row INSERT of the rest, per chunk of titles; a
        # title created concurrently in between is skipped by the INSERT and read by a last SELECT.
        found: dict[str, Tag] = {}
        for chunk in _chunks(titles):
            found.update(self._by_keys([title_key(title) for title in chunk]))
            missing = {title_key(title): title for title in chunk if title_key(title) not in found}
            if missing:
                rows = self._conn.execute(
                    insert_or_ignore(self._conn, tags, ("account_id", "title_key"))
                    .values(
                        [
                            {"account_id": self._account_id, "title": title, "title_key": key}
                            | {"created_at": now, "updated_at": now}
                            for key, title in missing.items()
                        ]
                    )
                    .returning(*_COLUMNS, tags.c.title_key)
                )
                found.update((row.title_key, tag_from_row(row, None)) for row in rows)
                raced = [key for key in missing if key not in found]
                if raced:
                    found.update(self._by_keys(raced))
        return [found[title_key(title)] for title in titles]

    def _by_keys(self, keys: Sequence[str]) -> dict[str, Tag]:
        rows = self._conn.execute(
            select(*_COLUMNS, tags.c.title_key).where(self.owned(tags), tags.c.title_key.in_(keys))
        )
        return {row.title_key: tag_from_row(row, None) for row in rows}

    def rename(self, tag_id: int, title: str, now: datetime) -> None:
        try:
            with self._conn.begin_nested():  # keeps a PostgreSQL transaction usable after a collision
                self._conn.execute(
                    update(tags)
                    .where(self.owned(tags), tags.c.id == tag_id)
                    .values(title=title, title_key=title_key(title), updated_at=now)
                )
        except IntegrityError as exc:
            if is_unique_violation(exc):
                raise ValidationFailed.on("title", "A tag with this title already exists.") from exc
            raise

    def delete(self, tag_id: int) -> None:
        self._conn.execute(delete(tags).where(self.owned(tags), tags.c.id == tag_id))  # links cascade

    def attach(self, contact_id: int, tag_id: int) -> bool:
        # INSERT ... SELECT: nothing is linked unless both the contact and the tag are this account's.
        linked = self._conn.execute(
            insert_or_ignore(self._conn, contact_tags, ("contact_id", "tag_id"))
            .from_select(
                ["account_id", "contact_id", "tag_id"],
                select(contacts.c.account_id, contacts.c.id, tags.c.id)
                .join_from(contacts, tags, tags.c.account_id == contacts.c.account_id)
                .where(self.owned(contacts), contacts.c.id == contact_id, tags.c.id == tag_id),
            )
            # RETURNING, not rowcount: drivers need not report a row count for INSERT ... SELECT.
            .returning(contact_tags.c.tag_id)
        ).first()
        return linked is not None

    def detach(self, contact_id: int, tag_id: int) -> bool:
        unlinked = self._conn.execute(
            delete(contact_tags).where(
                self.owned(contact_tags), contact_tags.c.contact_id == contact_id, contact_tags.c.tag_id == tag_id
            )
        )
        return unlinked.rowcount == 1

    def attach_all(self, contact_id: int, tag_ids: Collection[int]) -> int:
        linked = 0
        for chunk in _chunks(sorted(set(tag_ids))):
            # As `attach`: only this account's contact and tags are linked.
            rows = self._conn.execute(
                insert_or_ignore(self._conn, contact_tags, ("contact_id", "tag_id"))
                .from_select(
                    ["account_id", "contact_id", "tag_id"],
                    select(contacts.c.account_id, contacts.c.id, tags.c.id)
                    .join_from(contacts, tags, tags.c.account_id == contacts.c.account_id)
                    .where(self.owned(contacts), contacts.c.id == contact_id, tags.c.id.in_(chunk)),
                )
                .returning(contact_tags.c.tag_id)
            )
            linked += len(rows.all())
        return linked

    def detach_others(self, contact_id: int, keep: Collection[int]) -> int:
        unlinked = self._conn.execute(
            delete(contact_tags)
            .where(
                self.owned(contact_tags),
                contact_tags.c.contact_id == contact_id,
                contact_tags.c.tag_id.not_in(sorted(set(keep))),
            )
            .returning(contact_tags.c.tag_id)
        )
        return len(unlinked.all())

    def _one(self, *where: ColumnElement[bool]) -> Tag | None:
        row = self._conn.execute(select(*_COLUMNS, _CONTACTS_COUNT).where(self.owned(tags), *where)).one_or_none()
        return None if row is None else tag_from_row(row, row.contacts_count)


def _chunks(items: Sequence[T]) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]
