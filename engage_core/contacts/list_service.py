"""Contact lists: named explicit sets of contacts."""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.contacts.lists import NAME_MAX, ContactList
from engage_core.contacts.model import Member
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset, pick
from engage_core.kernel.validation import ErrorCollector, required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


class ContactListService:
    """Contact lists: named sets of contacts that are added by hand."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def list(self, account_id: int) -> Sequence[ContactList]:
        """Every list of the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.lists.list()

    def get(self, account_id: int, list_id: int) -> ContactList:
        """The list `list_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _list(uow, list_id)

    def create(self, account_id: int, name: str) -> ContactList:
        """Create an active list.

        Raises :class:`.ValidationFailed` when `name` is blank or too long."""
        name = required_text("name", name, max_length=NAME_MAX)
        with self._uow.workspace(account_id) as uow:
            created = uow.lists.add(name, self._clock.now())
            uow.commit()
        return created

    def update(
        self, account_id: int, list_id: int, name: str | Unset = UNSET, status: int | Unset = UNSET
    ) -> ContactList:
        """Rename the list and/or set its status (1 active, 0 inactive); `UNSET` leaves a field alone.

        Raises :class:`.ValidationFailed` for a blank or too long name or another status;
        :class:`.NotFound` when the list is not in the account."""
        errors = ErrorCollector()
        if name is not UNSET:
            given = name
            name = errors.run(lambda: required_text("name", given, max_length=NAME_MAX)) or ""
        if status is not UNSET and (type(status) is not int or status not in (0, 1)):
            errors.errors["status"] = ["The status must be 1 (active) or 0 (inactive)."]
        errors.raise_if_any()
        with self._uow.workspace(account_id) as uow:
            current = _list(uow, list_id)
            uow.lists.update(list_id, pick(name, current.name), pick(status, current.status), self._clock.now())
            updated = _list(uow, list_id)
            uow.commit()
        return updated

    def delete(self, account_id: int, list_id: int) -> None:
        """Delete the list and its memberships; the contacts stay.

        Raises :class:`.NotFound` when the list is not in the account."""
        with self._uow.workspace(account_id) as uow:
            _list(uow, list_id)
            uow.lists.delete(list_id)
            uow.commit()

    def members(self, account_id: int, list_id: int, page: PageRequest) -> Page[Member]:
        """One page of the list's members, in the order they were added.

        Raises :class:`.NotFound` when the list is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            _list(uow, list_id)
            return uow.lists.members(list_id, page)


def _list(uow: WorkspaceUnitOfWork, list_id: int) -> ContactList:
    found = uow.lists.get(list_id)
    if found is None:
        raise NotFound("List")
    return found
