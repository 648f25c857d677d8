"""Tags: create, rename everywhere, delete everywhere."""

from __future__ import annotations

from datetime import datetime

from engage_core.contacts.segments import SegmentRules, retitle
from engage_core.contacts.tags import Tag, clean_title
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


class TagService:
    """Tags: titles unique in a workspace regardless of case; renaming or deleting one applies to every
    contact."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def list(self, account_id: int, page: PageRequest) -> Page[Tag]:
        """One page of the account's tags by id, each with its contact count."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.tags.list(page)

    def get(self, account_id: int, tag_id: int) -> Tag:
        """The tag `tag_id`, with its contact count.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _tag(uow, tag_id)

    def create(self, account_id: int, title: str) -> Tag:
        """Create a tag.

        Raises :class:`.ValidationFailed` for an invalid title, or one the account already has in any
        case (also when created concurrently)."""
        title = _title(title)
        with self._uow.workspace(account_id) as uow:
            tag = uow.tags.create(title, self._clock.now())  # 422 when the title is taken, even concurrently
            uow.commit()
        return tag

    def rename(self, account_id: int, tag_id: int, title: str) -> Tag:
        """Rename the tag: every contact carrying it shows the new title, and segments that select it by
        title follow.

        Raises :class:`.NotFound` when it is not in the account; :class:`.ValidationFailed` for an
        invalid title, or one another tag has."""
        title = _title(title)
        with self._uow.workspace(account_id) as uow:
            _tag(uow, tag_id)
            other = uow.tags.by_title(title)
            if other is not None and other.id != tag_id:
                raise ValidationFailed.on("title", "A tag with this title already exists.")
            now = self._clock.now()
            old_title = _tag(uow, tag_id).title
            uow.tags.rename(tag_id, title, now)
            _retitle_segments(uow, old_title, title, now)
            tag = _tag(uow, tag_id)
            uow.commit()
        return tag

    def delete(self, account_id: int, tag_id: int) -> None:
        """Delete the tag and take it off every contact.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id) as uow:
            _tag(uow, tag_id)
            uow.tags.delete(tag_id)
            uow.commit()


def _tag(uow: WorkspaceUnitOfWork, tag_id: int) -> Tag:
    tag = uow.tags.get(tag_id)
    if tag is None:
        raise NotFound("Tag")
    return tag


def _retitle_segments(uow: WorkspaceUnitOfWork, old_title: str, new_title: str, now: datetime) -> None:
    """Segments select tags by title: follow the rename so they keep selecting the same contacts."""
    for segment in uow.segments.list(now):
        rules = retitle(SegmentRules(segment.match, segment.conditions), old_title, new_title)
        if rules is not None:
            uow.segments.update(segment.id, segment.name, segment.description, rules, now)


def _title(title: str) -> str:
    try:
        return clean_title(title)
    except ValueError as exc:
        raise ValidationFailed.on("title", str(exc)) from exc
