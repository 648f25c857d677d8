"""The media library in SQL."""

from __future__ import annotations

from engage_sql.media.removals import SqlBlobRemovalRepository
from engage_sql.media.repository import SqlMediaRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "media": lambda s: SqlMediaRepository(s.connection, s.account_id),
        "blob_removals": lambda s: SqlBlobRemovalRepository(s.connection, s.account_id),
    },
)
