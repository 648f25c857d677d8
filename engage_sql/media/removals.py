"""The objects of one account waiting to be removed (`media_blob_removals`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, insert, select

from engage_sql.media.tables import media_blob_removals as table
from engage_sql.repository import WorkspaceRepository


class SqlBlobRemovalRepository(WorkspaceRepository):
    def schedule(self, key: str, remove_after: datetime) -> None:
        self._conn.execute(
            insert(table).values(account_id=self._account_id, storage_key=key, remove_after=remove_after)
        )

    def cancel(self, key: str, now: datetime) -> bool:
        # Conditional: once due, the record is the sweep's, which may be removing the object now.
        result = self._conn.execute(
            delete(table).where(self.owned(table), table.c.storage_key == key, table.c.remove_after > now)
        )
        return bool(result.rowcount)

    def due(self, now: datetime, limit: int) -> Sequence[str]:
        rows = self._conn.execute(
            select(table.c.storage_key)
            .where(self.owned(table), table.c.remove_after <= now)
            .order_by(table.c.remove_after, table.c.id)
            .limit(limit)
        )
        return [row.storage_key for row in rows]

    def remove(self, keys: Sequence[str]) -> None:
        if keys:
            self._conn.execute(delete(table).where(self.owned(table), table.c.storage_key.in_(list(keys))))

    def next_due(self) -> datetime | None:
        value: datetime | None = self._conn.execute(
            select(func.min(table.c.remove_after)).where(self.owned(table))
        ).scalar_one_or_none()
        return value
