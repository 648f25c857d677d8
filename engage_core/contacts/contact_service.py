"""Contacts: CRUD, blacklist, notes, tags, and list and segment membership."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.contacts.model import (
    NOTE_MAX,
    Contact,
    ContactFilter,
    ContactInput,
    ContactPatch,
    Note,
    apply_patch,
    validate_contact,
)
from engage_core.contacts.tags import TAGS_MAX, Tag, clean_title, tag_order, title_key
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET
from engage_core.kernel.validation import ErrorCollector, required_text
from engage_core.plans.entitlements import Entitlements, PlanLimits
from engage_core.plans.model import CONTACTS, Plan
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


@attrs.frozen
class TagAssignment:
    """Exactly one of `tag_id` or `title`."""

    tag_id: int | None = None
    title: str | None = None


class ContactService:
    """Contacts of a workspace: create, read, update and delete them, the blacklist, notes, tags, and list
    and segment membership.

    Writes that change a contact emit `contact.created`, `contact.updated` or `contact.deleted`; every
    method raises :class:`.NotFound` when the contact (or the tag, list or segment it names) is not in
    the account."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, entitlements: Entitlements | None = None) -> None:
        self._uow = uow
        self._clock = clock
        self._limits = PlanLimits(entitlements)

    # -- reading ------------------------------------------------------------------------------

    def find(self, account_id: int, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """One page of the account's contacts matching `filters`, newest first."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.contacts.find(filters, page)

    def get(self, account_id: int, contact_id: int) -> Contact:
        """The contact `contact_id`, with its tags.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _contact(uow, contact_id)

    # -- writing ------------------------------------------------------------------------------

    def create(self, account_id: int, data: ContactInput, *, source: str = "api", plan: Plan | None = None) -> Contact:
        """Create a contact, with its tags (created where missing); emits `contact.created`.

        `source` records where it came from. `plan` is the plan in force, when the caller has just read
        it (a request's admission); None reads it.

        Raises :class:`.ValidationFailed` for invalid fields or tags, or when a contact of the same
        channel type has this phone; :class:`.PlanLimitReached` when the plan's contacts limit is
        reached."""
        errors = ErrorCollector()
        draft = errors.run(lambda: validate_contact(data, source))
        titles = errors.run(lambda: _clean_titles(data.tags))
        errors.raise_if_any()
        assert draft is not None and titles is not None
        now = self._clock.now()
        plan = self._limits.plan_of(account_id, plan)
        with self._uow.workspace(account_id) as uow:
            _check_phone_free(uow, draft.type, draft.phone, None)
            self._limits.reserve(uow, plan, CONTACTS, now)
            contact = uow.contacts.add(draft, now)
            if titles:
                attached = uow.tags.ensure(titles, now)
                uow.tags.attach_all(contact.id, [tag.id for tag in attached])
                # What `get` would read back: the stored titles, in the core's order. No second read.
                contact = attrs.evolve(contact, tags=tag_order(tag.title for tag in attached))
            uow.emit(DomainEvent("contact.created", contact.event_payload(), now))
            uow.commit()
        return contact

    def update(self, account_id: int, contact_id: int, patch: ContactPatch) -> Contact:
        """Apply `patch` (`UNSET` fields stay); `tags`, when given, replace the contact's tags. Emits
        `contact.updated`, unless nothing changed (then nothing is written).

        Raises :class:`.NotFound` when the contact is not in the account; :class:`.ValidationFailed`
        for invalid fields or tags, or a phone another contact of the channel type has."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _contact(uow, contact_id)
            errors = ErrorCollector()
            changed = errors.run(lambda: apply_patch(current, patch, now))
            titles = None if patch.tags is UNSET else errors.run(lambda: _clean_titles(patch.tags))  # type: ignore[arg-type]
            errors.raise_if_any()
            assert changed is not None
            _check_phone_free(uow, changed.type, changed.phone, contact_id)
            uow.contacts.update(changed)
            if titles is not None:
                _replace_tags(uow, current, titles, now)
            contact = _contact(uow, contact_id)
            if attrs.evolve(contact, updated_at=current.updated_at) == current:
                return current  # nothing changed: no write, no event (leaving uncommitted rolls back)
            uow.emit(DomainEvent("contact.updated", contact.event_payload(), now))
            uow.commit()
        return contact

    def delete(self, account_id: int, contact_id: int) -> None:
        """Delete the contact with its notes, tag links and memberships; emits `contact.deleted`.

        Raises :class:`.NotFound` when it is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            contact = _contact(uow, contact_id)
            uow.contacts.delete(contact_id)
            uow.emit(DomainEvent("contact.deleted", contact.deleted_payload(now), now))
            uow.commit()

    def toggle_blacklist(self, account_id: int, contact_id: int) -> Contact:
        """Flip the contact's `blacklisted` flag; emits `contact.updated`.

        Raises :class:`.NotFound` when it is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _contact(uow, contact_id)
            uow.contacts.update(attrs.evolve(current, blacklisted=not current.blacklisted, updated_at=now))
            contact = _contact(uow, contact_id)
            uow.emit(DomainEvent("contact.updated", contact.event_payload(), now))
            uow.commit()
        return contact

    # -- notes --------------------------------------------------------------------------------

    def notes(self, account_id: int, contact_id: int) -> Sequence[Note]:
        """The contact's notes, newest first.

        Raises :class:`.NotFound` when the contact is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            _contact(uow, contact_id)
            return uow.notes.for_contact(contact_id)

    def add_note(self, account_id: int, contact_id: int, content: str) -> Note:
        """Add a note to the contact.

        Raises :class:`.ValidationFailed` when `content` is blank or too long; :class:`.NotFound` when
        the contact is not in the account."""
        content = required_text("content", content, max_length=NOTE_MAX)
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            note = uow.notes.add(contact_id, content, self._clock.now())
            uow.commit()
        return note

    # -- tags ---------------------------------------------------------------------------------

    def assign_tag(self, account_id: int, contact_id: int, assignment: TagAssignment) -> Tag:
        """Give the contact a tag, by id or by title (created when no tag has it); idempotent: a tag the
        contact already has changes nothing. A new link emits `contact.updated`.

        Raises :class:`.ValidationFailed` unless exactly one of `tag_id` and `title` is given, or for
        an invalid title; :class:`.NotFound` when the contact or the tag is not in the account."""
        if (assignment.tag_id is None) == (assignment.title is None):
            message = "Provide exactly one of tag_id or title."
            raise ValidationFailed({"tag_id": [message], "title": [message]}, message)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if assignment.tag_id is not None:
                found = uow.tags.get(assignment.tag_id)
                if found is None:
                    raise NotFound("Tag")
                tag = found
            else:
                assert assignment.title is not None
                try:
                    title = clean_title(assignment.title)
                except ValueError as exc:
                    raise ValidationFailed.on("title", str(exc)) from exc
                tag = _tag_by_title(uow, title, now)
            if uow.tags.attach(contact_id, tag.id):
                _touch(uow, contact_id, now)
            tag = uow.tags.get(tag.id) or tag
            uow.commit()
        return tag

    def remove_tag(self, account_id: int, contact_id: int, tag_id: int) -> None:
        """Take the tag off the contact (idempotent); an actual removal emits `contact.updated`.

        Raises :class:`.NotFound` when the contact or the tag is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if uow.tags.get(tag_id) is None:
                raise NotFound("Tag")
            if uow.tags.detach(contact_id, tag_id):
                _touch(uow, contact_id, now)
            uow.commit()

    # -- lists and segments -------------------------------------------------------------------

    def add_to_list(self, account_id: int, contact_id: int, list_id: int) -> bool:
        """Add the contact to the list; True when the membership is new.

        Raises :class:`.NotFound` when the contact or the list is not in the account."""
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if uow.lists.get(list_id) is None:
                raise NotFound("List")
            added = uow.lists.add_member(list_id, contact_id, self._clock.now())
            uow.commit()
        return added

    def remove_from_list(self, account_id: int, contact_id: int, list_id: int) -> None:
        """Take the contact out of the list (idempotent).

        Raises :class:`.NotFound` when the contact or the list is not in the account."""
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if uow.lists.get(list_id) is None:
                raise NotFound("List")
            uow.lists.remove_member(list_id, contact_id)  # idempotent, like removing a tag
            uow.commit()

    def add_to_segment(self, account_id: int, contact_id: int, segment_id: int) -> None:
        """Include the contact in the segment by hand, whatever its rules say.

        Raises :class:`.NotFound` when the contact or the segment is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if uow.segments.get(segment_id, now) is None:
                raise NotFound("Segment")
            uow.segments.include(segment_id, contact_id)
            uow.commit()

    def remove_from_segment(self, account_id: int, contact_id: int, segment_id: int) -> None:
        """Exclude the contact from the segment by hand, even if its rules match (idempotent).

        Raises :class:`.NotFound` when the contact or the segment is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if uow.segments.get(segment_id, now) is None:
                raise NotFound("Segment")
            uow.segments.exclude(segment_id, contact_id)  # idempotent; also overrides matching rules
            uow.commit()


# -- helpers -----------------------------------------------------------------------------------


def _contact(uow: WorkspaceUnitOfWork, contact_id: int) -> Contact:
    contact = uow.contacts.get(contact_id)
    if contact is None:
        raise NotFound("Contact")
    return contact


def _touch(uow: WorkspaceUnitOfWork, contact_id: int, now: datetime) -> None:
    """A tag change is a contact change: bump `updated_at` and tell subscribers."""
    uow.contacts.update(attrs.evolve(_contact(uow, contact_id), updated_at=now))
    uow.emit(DomainEvent("contact.updated", _contact(uow, contact_id).event_payload(), now))


def _tag_by_title(uow: WorkspaceUnitOfWork, title: str, now: datetime) -> Tag:
    return uow.tags.by_title(title) or uow.tags.add(title, now)


def _clean_titles(titles: Sequence[str]) -> list[str]:
    """Valid, trimmed titles with case-insensitive duplicates dropped (first spelling wins); at most `TAGS_MAX`."""
    if len(titles) > TAGS_MAX:
        raise ValidationFailed.on("tags", f"The tags may not have more than {TAGS_MAX} items.")
    cleaned: dict[str, str] = {}
    for index, title in enumerate(titles):
        try:
            value = clean_title(title)
        except ValueError as exc:
            raise ValidationFailed.on(f"tags.{index}", str(exc)) from exc
        cleaned.setdefault(title_key(value), value)
    return list(cleaned.values())


def _replace_tags(uow: WorkspaceUnitOfWork, contact: Contact, titles: list[str], now: datetime) -> None:
    """The contact carries exactly these tags (created where missing): a few statements for the set."""
    wanted = [tag.id for tag in uow.tags.ensure(titles, now)] if titles else []
    uow.tags.detach_others(contact.id, wanted)
    if wanted:
        uow.tags.attach_all(contact.id, wanted)


def _check_phone_free(uow: WorkspaceUnitOfWork, kind: str, phone: str | None, own_id: int | None) -> None:
    """One contact per phone number and channel type, so inbound messages find exactly one contact."""
    if phone is None:
        return
    other = uow.contacts.by_phone(kind, phone)
    if other is not None and other.id != own_id:
        raise ValidationFailed.on("phone", f"A {kind} contact with this phone already exists.")
