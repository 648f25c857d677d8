"""The media files of one account (`media_files`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, insert, or_, select, update

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.media.model import MediaDraft, MediaFilter, StoredMedia
from engage_sql.media.tables import media_files as table
from engage_sql.repository import WorkspaceRepository
from engage_sql.text import fold
from engage_sql.types import AnyRow

_COLUMNS = (
    table.c.id,
    table.c.name,
    table.c.original_name,
    table.c.storage_key,
    table.c.file_type,
    table.c.mime_type,
    table.c.extension,
    table.c.file_size,
    table.c.metadata,
    table.c.uploaded_by,
    table.c.is_active,
    table.c.created_at,
    table.c.updated_at,
)
_NEWEST_FIRST = (table.c.created_at.desc(), table.c.id.desc())


def media_from_row(row: AnyRow) -> StoredMedia:
    return StoredMedia(
        id=row.id,
        name=row.name,
        original_name=row.original_name,
        storage_key=row.storage_key,
        file_type=row.file_type,
        mime_type=row.mime_type,
        extension=row.extension,
        file_size=row.file_size,
        metadata=None if row.metadata is None else dict(row.metadata),
        uploaded_by=row.uploaded_by,
        is_active=row.is_active,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlMediaRepository(WorkspaceRepository):
    def add(self, draft: MediaDraft, now: datetime) -> StoredMedia:
        row = self._conn.execute(
            insert(table)
            .values(
                account_id=self._account_id,
                name=draft.name,
                name_key=fold(draft.name),
                original_name=draft.original_name,
                original_name_key=fold(draft.original_name),
                storage_key=draft.storage_key,
                file_type=draft.file_type,
                mime_type=draft.mime_type,
                extension=draft.extension,
                file_size=draft.file_size,
                metadata=None if draft.metadata is None else dict(draft.metadata),
                uploaded_by=draft.uploaded_by,
                is_active=True,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one()
        return media_from_row(row)

    def get(self, media_id: int) -> StoredMedia | None:
        row = self._conn.execute(select(*_COLUMNS).where(self.owned(table), table.c.id == media_id)).one_or_none()
        return None if row is None else media_from_row(row)

    def get_many(self, media_ids: Collection[int]) -> Mapping[int, StoredMedia]:
        if not media_ids:
            return {}
        rows = self._conn.execute(select(*_COLUMNS).where(self.owned(table), table.c.id.in_(sorted(set(media_ids)))))
        return {row.id: media_from_row(row) for row in rows}

    def find(self, filters: MediaFilter, page: PageRequest) -> Page[StoredMedia]:
        where = self._filters(filters)
        total = self._conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS).where(*where).order_by(*_NEWEST_FIRST).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[media_from_row(row) for row in rows], request=page, total=total)

    def rename(self, media_id: int, name: str, now: datetime) -> StoredMedia | None:
        row = self._conn.execute(
            update(table)
            .where(self.owned(table), table.c.id == media_id)
            .values(name=name, name_key=fold(name), updated_at=now)
            .returning(*_COLUMNS)
        ).one_or_none()
        return None if row is None else media_from_row(row)

    def delete(self, media_id: int) -> bool:
        result = self._conn.execute(delete(table).where(self.owned(table), table.c.id == media_id))
        return bool(result.rowcount)

    def count(self) -> int:
        return int(self._conn.execute(select(func.count()).select_from(table).where(self.owned(table))).scalar_one())

    def _filters(self, filters: MediaFilter) -> list[ColumnElement[bool]]:
        where = [self.owned(table)]
        if filters.type is not None:
            where.append(table.c.file_type == filters.type)
        if filters.search:
            needle = fold(filters.search)
            # autoescape: `%`, `_` and the escape character in the search match themselves.
            where.append(
                or_(
                    table.c.name_key.contains(needle, autoescape=True),
                    table.c.original_name_key.contains(needle, autoescape=True),
                )
            )
        return where
