"""Segments: saved rule sets over contacts (see `engage_core.contacts.segments` for the rules)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engage_core.contacts.model import Member
from engage_core.contacts.segments import NAME_MAX, Segment, SegmentRules, parse_rules
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, optional_text, required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


class SegmentService:
    """Segments: saved rules over contacts (`match` `all` or `any` of `conditions`), plus contacts
    included or excluded by hand (:class:`.ContactService`)."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def list(self, account_id: int) -> Sequence[Segment]:
        """Every segment of the account, each with its member count now."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.segments.list(self._clock.now())

    def get(self, account_id: int, segment_id: int) -> Segment:
        """The segment `segment_id`, with its member count now.

        Raises :class:`.NotFound` when it is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _segment(uow, segment_id, now)

    def create(
        self,
        account_id: int,
        name: str,
        *,
        description: str | None = None,
        match: str = "all",
        conditions: Sequence[Mapping[str, Any]] = (),
    ) -> Segment:
        """Create a segment from its rules (see :mod:`engage_core.contacts.segments`).

        Raises :class:`.ValidationFailed` for a blank or too long name, a too long description, or
        invalid rules (each field named)."""
        errors = ErrorCollector()
        clean_name = errors.run(lambda: required_text("name", name, max_length=NAME_MAX))
        clean_description = errors.run(lambda: optional_text("description", description, max_length=1000))
        rules = errors.run(lambda: parse_rules(match, conditions))
        errors.raise_if_any()
        assert clean_name is not None and rules is not None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            created = uow.segments.add(clean_name, clean_description, rules, now)
            uow.commit()
        return created

    def update(
        self,
        account_id: int,
        segment_id: int,
        *,
        name: str | Unset = UNSET,
        description: str | Unset | None = UNSET,
        match: str | Unset = UNSET,
        conditions: Sequence[Mapping[str, Any]] | Unset = UNSET,
    ) -> Segment:
        """Change the given fields (`UNSET` leaves one alone); the rules are checked as a whole.

        Raises :class:`.NotFound` when the segment is not in the account; :class:`.ValidationFailed` as
        :meth:`create` does."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _segment(uow, segment_id, now)
            errors = ErrorCollector()
            new_name = (
                current.name if name is UNSET else errors.run(lambda: required_text("name", name, max_length=NAME_MAX))
            )
            new_description = (
                current.description
                if description is UNSET
                else errors.run(lambda: optional_text("description", description, max_length=1000))
            )
            raw = [c.to_json() for c in current.conditions] if conditions is UNSET else conditions
            rules = errors.run(lambda: parse_rules(current.match if match is UNSET else match, raw))
            errors.raise_if_any()
            assert new_name is not None and isinstance(rules, SegmentRules)
            uow.segments.update(segment_id, new_name, new_description, rules, now)
            updated = _segment(uow, segment_id, now)
            uow.commit()
        return updated

    def delete(self, account_id: int, segment_id: int) -> None:
        """Delete the segment; its contacts stay.

        Raises :class:`.NotFound` when it is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _segment(uow, segment_id, now)
            uow.segments.delete(segment_id)
            uow.commit()

    def members(self, account_id: int, segment_id: int, page: PageRequest) -> Page[Member]:
        """One page of the segment's members now, by contact id.

        Raises :class:`.NotFound` when the segment is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id, readonly=True) as uow:
            _segment(uow, segment_id, now)
            return uow.segments.members(segment_id, page, now)


def _segment(uow: WorkspaceUnitOfWork, segment_id: int, now: datetime) -> Segment:
    found = uow.segments.get(segment_id, now)
    if found is None:
        raise NotFound("Segment")
    return found
