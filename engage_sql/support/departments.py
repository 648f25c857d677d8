"""Departments of one account: where its support tickets are filed.

Titles are unique per account by `title_key` (a unique index). The default department is seeded
with `INSERT ... ON CONFLICT DO NOTHING` on that index, so transactions seeding at once leave one
row: on PostgreSQL the second insert waits for the first transaction, then skips and reads its row.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, delete, select, update
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import ValidationFailed
from engage_core.support.departments import Department, title_key
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore, is_unique_violation
from engage_sql.support.tables import departments, tickets
from engage_sql.types import AnyRow

COLUMNS = (departments.c.id, departments.c.title, departments.c.created_at, departments.c.updated_at)


def department_from_row(row: AnyRow) -> Department:
    return Department(id=row.id, title=row.title, created_at=row.created_at, updated_at=row.updated_at)


def _title_taken() -> ValidationFailed:
    return ValidationFailed.on("title", "A department with this title already exists.")


class SqlDepartmentRepository(WorkspaceRepository):
    def ensure_default(self, title: str, now: datetime) -> Department:
        """The first department (lowest id), after seeding one titled `title` if there is none."""
        first = self._first()
        if first is not None:
            return first
        self._insert(title, now)  # a racing seed of the same title makes this a no-op
        first = self._first()
        assert first is not None
        return first

    def add(self, title: str, now: datetime) -> Department:
        department = self._insert(title, now)
        if department is None:
            raise _title_taken()
        return department

    def get(self, department_id: int) -> Department | None:
        return self._one(departments.c.id == department_id)

    def by_title(self, title: str) -> Department | None:
        return self._one(departments.c.title_key == title_key(title))

    def list(self) -> Sequence[Department]:
        rows = self._conn.execute(select(*COLUMNS).where(self.owned(departments)).order_by(departments.c.id))
        return [department_from_row(row) for row in rows]

    def rename(self, department_id: int, title: str, now: datetime) -> None:
        try:
            with self._conn.begin_nested():  # keeps a PostgreSQL transaction usable after a collision
                self._conn.execute(
                    update(departments)
                    .where(self.owned(departments), departments.c.id == department_id)
                    .values(title=title, title_key=title_key(title), updated_at=now)
                )
        except IntegrityError as exc:
            if is_unique_violation(exc):
                raise _title_taken() from exc
            raise

    def delete(self, department_id: int) -> None:
        """The department's tickets lose it first (their foreign key takes no action), keeping
        their `updated_at`."""
        self._conn.execute(
            update(tickets)
            .where(self.owned(tickets), tickets.c.department_id == department_id)
            .values(department_id=None)
        )
        self._conn.execute(delete(departments).where(self.owned(departments), departments.c.id == department_id))

    # -- helpers ---------------------------------------------------------------------------------

    def _insert(self, title: str, now: datetime) -> Department | None:
        """The new department, or None when the account already has one with this title's key."""
        row = self._conn.execute(
            insert_or_ignore(self._conn, departments, ("account_id", "title_key"))
            .values(
                account_id=self._account_id, title=title, title_key=title_key(title), created_at=now, updated_at=now
            )
            .returning(*COLUMNS)
        ).one_or_none()
        return None if row is None else department_from_row(row)

    def _first(self) -> Department | None:
        row = self._conn.execute(
            select(*COLUMNS).where(self.owned(departments)).order_by(departments.c.id).limit(1)
        ).one_or_none()
        return None if row is None else department_from_row(row)

    def _one(self, *where: ColumnElement[bool]) -> Department | None:
        row = self._conn.execute(select(*COLUMNS).where(self.owned(departments), *where)).one_or_none()
        return None if row is None else department_from_row(row)
