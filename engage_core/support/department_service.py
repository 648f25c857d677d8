"""Departments: list (seeding the default), create, rename, delete. See `engage_core.support.departments`."""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.support.departments import DEFAULT_TITLE, Department, clean_title
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


class DepartmentService:
    """Ticket departments: titles unique in a workspace regardless of case."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def list(self, account_id: int) -> Sequence[Department]:
        """`GET /tickets/departments`, ascending id. A workspace without departments gets the
        default one first (a write only that once: the usual call is a pure read)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            found = uow.departments.list()
        if found:
            return found
        with self._uow.workspace(account_id) as uow:
            uow.departments.ensure_default(DEFAULT_TITLE, self._clock.now())
            found = uow.departments.list()
            uow.commit()
        return found

    def get(self, account_id: int, department_id: int) -> Department:
        """The department `department_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _department(uow, department_id)

    def create(self, account_id: int, title: str) -> Department:
        """Create a department.

        Raises :class:`.ValidationFailed` on `title` for an invalid title, or one another department
        has in any case."""
        title = clean_title(title)
        with self._uow.workspace(account_id) as uow:
            _check_free(uow, title, None)
            department = uow.departments.add(title, self._clock.now())
            uow.commit()
        return department

    def rename(self, account_id: int, department_id: int, title: str) -> Department:
        """Rename the department; tickets filed under it show the new title.

        Raises :class:`.NotFound` when it is not in the account; :class:`.ValidationFailed` on `title`
        as :meth:`create` does."""
        title = clean_title(title)
        with self._uow.workspace(account_id) as uow:
            _department(uow, department_id)
            _check_free(uow, title, department_id)
            uow.departments.rename(department_id, title, self._clock.now())
            department = _department(uow, department_id)
            uow.commit()
        return department

    def delete(self, account_id: int, department_id: int) -> None:
        """Delete the department; its tickets stay, with no department.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id) as uow:
            _department(uow, department_id)
            uow.departments.delete(department_id)
            uow.commit()


def _department(uow: WorkspaceUnitOfWork, department_id: int) -> Department:
    department = uow.departments.get(department_id)
    if department is None:
        raise NotFound("Department")
    return department


def _check_free(uow: WorkspaceUnitOfWork, title: str, department_id: int | None) -> None:
    other = uow.departments.by_title(title)
    if other is not None and other.id != department_id:
        raise ValidationFailed.on("title", "A department with this title already exists.")
