"""Contact handles of one account: how Instagram and LinkedIn address a contact.

Two unique keys keep the mapping one-to-one per channel: the primary key `(account_id, contact_id,
channel)` (one handle per contact and channel) and `(account_id, channel, handle)` (one contact per
handle). `link` replaces a contact's handle with one upsert on the first key; a handle taken by
another contact is refused before anything is written, and the second key backs that check against
a concurrent link on PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import select

from engage_sql.messaging.tables import contact_handles
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import upsert


class SqlContactHandleRepository(WorkspaceRepository):
    def contact_for(self, channel: str, handle: str) -> int | None:
        contact_id: int | None = self._conn.execute(
            select(contact_handles.c.contact_id).where(
                self.owned(contact_handles), contact_handles.c.channel == channel, contact_handles.c.handle == handle
            )
        ).scalar()
        return contact_id

    def handle_of(self, contact_id: int, channel: str) -> str | None:
        handle: str | None = self._conn.execute(
            select(contact_handles.c.handle).where(
                self.owned(contact_handles),
                contact_handles.c.contact_id == contact_id,
                contact_handles.c.channel == channel,
            )
        ).scalar()
        return handle

    def link(self, contact_id: int, channel: str, handle: str) -> None:
        """Raises ValueError when another contact has the handle on the channel (like the fake)."""
        owner = self.contact_for(channel, handle)
        if owner is not None and owner != contact_id:
            raise ValueError(f"the {channel} handle {handle} belongs to another contact")
        statement = upsert(self._conn, contact_handles, ["account_id", "contact_id", "channel"], ["handle"])
        self._conn.execute(
            statement.values(account_id=self._account_id, contact_id=contact_id, channel=channel, handle=handle)
        )
