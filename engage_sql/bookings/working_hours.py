"""The workspace's timezone and working hours, and its resources' own schedules.

A schedule is stored as its JSON document (`Schedule.document()`) and read back with
`Schedule.from_document`, which checks it again: a row edited by hand into something invalid
fails loudly instead of producing wrong availability.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import delete, select

from engage_core.bookings.working_hours import Schedule, WorkingHours
from engage_sql.bookings.tables import resource_working_hours, working_hours
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import upsert


class SqlWorkingHoursRepository(WorkspaceRepository):
    def get(self) -> WorkingHours | None:
        row = self._conn.execute(
            select(working_hours.c.timezone, working_hours.c.schedule).where(self.owned(working_hours))
        ).first()
        return None if row is None else WorkingHours(row.timezone, Schedule.from_document(row.schedule))

    def put(self, hours: WorkingHours) -> None:
        self._conn.execute(
            upsert(self._conn, working_hours, ("account_id",), ("timezone", "schedule")).values(
                account_id=self._account_id, timezone=hours.timezone, schedule=hours.schedule.document()
            )
        )

    def resource_schedules(self) -> Mapping[int, Schedule]:
        rows = self._conn.execute(
            select(resource_working_hours.c.resource_id, resource_working_hours.c.schedule)
            .where(self.owned(resource_working_hours))
            .order_by(resource_working_hours.c.resource_id)
        )
        return {row.resource_id: Schedule.from_document(row.schedule) for row in rows}

    def put_resource(self, resource_id: int, schedule: Schedule) -> None:
        self._conn.execute(
            upsert(self._conn, resource_working_hours, ("account_id", "resource_id"), ("schedule",)).values(
                account_id=self._account_id, resource_id=resource_id, schedule=schedule.document()
            )
        )

    def clear_resource(self, resource_id: int) -> bool:
        deleted = self._conn.execute(
            delete(resource_working_hours).where(
                self.owned(resource_working_hours), resource_working_hours.c.resource_id == resource_id
            )
        )
        return deleted.rowcount > 0
