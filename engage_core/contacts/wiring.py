"""The contacts area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.contacts.contact_service import ContactService
from engage_core.contacts.list_service import ContactListService
from engage_core.contacts.segment_service import SegmentService
from engage_core.contacts.tag_service import TagService
from engage_core.plans.entitlements import Entitlements

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class ContactsServices:
    """The contacts area's services: contacts, tags, lists and segments."""

    contacts: ContactService
    tags: TagService
    lists: ContactListService
    segments: SegmentService
    entitlements: Entitlements  # wired by the plans area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.contacts = ContactService(deps.uow, deps.clock, self.entitlements)
        self.tags = TagService(deps.uow, deps.clock)
        self.lists = ContactListService(deps.uow, deps.clock)
        self.segments = SegmentService(deps.uow, deps.clock)
