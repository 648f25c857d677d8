"""What every workspace repository shares: one connection, one account."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, Table


class WorkspaceRepository:
    """Bound to one account for its whole life; `owned()` is the predicate every query starts from."""

    def __init__(self, connection: Connection, account_id: int) -> None:
        self._conn = connection
        self._account_id = account_id

    def owned(self, table: Table) -> ColumnElement[bool]:
        """Rows of `table` that belong to this repository's account."""
        return table.c.account_id == self._account_id
