"""Channel settings of one account, and the directory that finds a provider account's owner.

Changes of one setting are serialised like orders': in a write unit of work on PostgreSQL,
`by_type` and `by_provider_account` read the setting `FOR UPDATE`, so two provider callbacks for
one account (or a callback racing the owner's disconnect) apply one after the other, each to what
the other left, and no move of the lifecycle is lost. SQLite's writers already run one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs
from sqlalchemy import ColumnElement, Connection, delete, select, update

from engage_core.messaging.channels import ChannelAccount, ChannelDraft, channel_taken
from engage_sql.messaging.tables import channel_accounts
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore
from engage_sql.types import AnyRow

_COLUMNS = (
    channel_accounts.c.id,
    channel_accounts.c.type,
    channel_accounts.c.provider_account_id,
    channel_accounts.c.username,
    channel_accounts.c.sync_status,
    channel_accounts.c.is_connected,
    channel_accounts.c.last_synced_at,
    channel_accounts.c.created_at,
    channel_accounts.c.updated_at,
    channel_accounts.c.checkpoint_type,
    channel_accounts.c.error,
    channel_accounts.c.connected_at,
)
"""The columns of a setting, in the order of `ChannelAccount`'s fields."""


def channel_from_row(row: AnyRow) -> ChannelAccount:
    return ChannelAccount(*row)


class SqlChannelAccountRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so reads lock the setting they find (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock_reads = lock_reads and connection.dialect.name == "postgresql"

    def add(self, draft: ChannelDraft, now: datetime) -> ChannelAccount:
        account = ChannelAccount(
            id=0,
            type=draft.type,
            provider_account_id=draft.provider_account_id,
            username=draft.username,
            sync_status="CONNECTING",
            is_connected=False,
            last_synced_at=None,
            created_at=now,
            updated_at=now,
            checkpoint_type=draft.checkpoint_type,
        )
        values = {column.name: getattr(account, column.name) for column in _COLUMNS[1:]}
        # The unique index on (account_id, type) decides between concurrent adds; the loser's insert
        # is skipped rather than failed, so a PostgreSQL transaction stays usable.
        channel_id = self._conn.execute(
            insert_or_ignore(self._conn, channel_accounts, ("account_id", "type"))
            .values(account_id=self._account_id, **values)
            .returning(channel_accounts.c.id)
        ).scalar_one_or_none()
        if channel_id is None:
            raise channel_taken(draft.type)
        return attrs.evolve(account, id=channel_id)

    def by_type(self, type: str) -> ChannelAccount | None:
        return self._first(channel_accounts.c.type == type)

    def by_provider_account(self, provider_account_id: str) -> ChannelAccount | None:
        return self._first(channel_accounts.c.provider_account_id == provider_account_id)

    def list(self) -> Sequence[ChannelAccount]:
        rows = self._conn.execute(select(*_COLUMNS).where(self.owned(channel_accounts)).order_by(channel_accounts.c.id))
        return [channel_from_row(row) for row in rows]

    def update(self, account: ChannelAccount) -> None:
        values = {column.name: getattr(account, column.name) for column in _COLUMNS[2:]}
        values.pop("created_at")
        self._conn.execute(
            update(channel_accounts)
            .where(self.owned(channel_accounts), channel_accounts.c.id == account.id)
            .values(**values)
        )

    def delete(self, channel_id: int) -> None:
        self._conn.execute(
            delete(channel_accounts).where(self.owned(channel_accounts), channel_accounts.c.id == channel_id)
        )

    def _first(self, where: ColumnElement[bool]) -> ChannelAccount | None:
        query = select(*_COLUMNS).where(self.owned(channel_accounts), where)
        row = self._conn.execute(query.with_for_update() if self._lock_reads else query).first()
        return None if row is None else channel_from_row(row)


class SqlChannelDirectory:
    """`ChannelDirectory` across accounts: the unique index on `provider_account_id` answers it."""

    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def owner_of(self, provider_account_id: str) -> int | None:
        owner: int | None = self._conn.execute(
            select(channel_accounts.c.account_id).where(channel_accounts.c.provider_account_id == provider_account_id)
        ).scalar()
        return owner
