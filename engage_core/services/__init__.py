"""Use cases. Each service takes a unit-of-work factory and a clock, and nothing else."""

from __future__ import annotations

import attrs

from engage_core.clock import Clock, SystemClock
from engage_core.ports import UnitOfWorkFactory
from engage_core.services.accounts import AccountService
from engage_core.services.contact_lists import ContactListService
from engage_core.services.contacts import ContactService
from engage_core.services.segments import SegmentService
from engage_core.services.tags import TagService


@attrs.frozen
class Services:
    """Every use case, wired to one storage adapter and one clock."""

    accounts: AccountService
    contacts: ContactService
    tags: TagService
    lists: ContactListService
    segments: SegmentService

    @classmethod
    def build(cls, uow: UnitOfWorkFactory, clock: Clock | None = None) -> Services:
        clock = clock or SystemClock()
        return cls(
            accounts=AccountService(uow, clock),
            contacts=ContactService(uow, clock),
            tags=TagService(uow, clock),
            lists=ContactListService(uow, clock),
            segments=SegmentService(uow, clock),
        )


__all__ = ["AccountService", "ContactListService", "ContactService", "SegmentService", "Services", "TagService"]
