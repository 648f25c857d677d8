"""Segments of one account: saved rules evaluated in SQL, plus manual additions and removals."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import attrs
from sqlalchemy import ColumnElement, ScalarSelect, delete, func, literal, select, update

from engage_core.contacts.model import Member
from engage_core.contacts.segments import Segment, SegmentRules, parse_rules
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.contacts.lists import MEMBER_COLUMNS, member_from_row
from engage_sql.contacts.segment_sql import contacts_with_overrides, membership
from engage_sql.contacts.tables import contacts, segment_overrides, segments
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import upsert
from engage_sql.types import AnyRow

_COLUMNS = (
    segments.c.id,
    segments.c.name,
    segments.c.description,
    segments.c.match,
    segments.c.conditions,
    segments.c.created_at,
    segments.c.updated_at,
)


def segment_from_row(row: AnyRow, contacts_count: int | None) -> Segment:
    """The stored conditions are the JSON form of validated ones, so parsing them again cannot fail."""
    rules = parse_rules(row.match, row.conditions)
    return Segment(
        id=row.id,
        name=row.name,
        description=row.description,
        match=rules.match,
        conditions=rules.conditions,
        contacts_count=contacts_count,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _rules(segment: Segment) -> SegmentRules:
    return SegmentRules(segment.match, segment.conditions)


def _stored(rules: SegmentRules) -> dict[str, Any]:
    return {"match": rules.match, "conditions": [c.to_json() for c in rules.conditions]}


class SqlSegmentRepository(WorkspaceRepository):
    def add(self, name: str, description: str | None, rules: SegmentRules, now: datetime) -> Segment:
        row = self._conn.execute(
            segments.insert()
            .values(
                account_id=self._account_id,
                name=name,
                description=description,
                created_at=now,
                updated_at=now,
                **_stored(rules),
            )
            .returning(*_COLUMNS)
        ).one()
        return self._counted(segment_from_row(row, None), now)

    def get(self, segment_id: int, now: datetime) -> Segment | None:
        segment = self._load(segment_id)
        return None if segment is None else self._counted(segment, now)

    def list(self, now: datetime) -> Sequence[Segment]:
        rows = self._conn.execute(select(*_COLUMNS).where(self.owned(segments)).order_by(segments.c.id)).all()
        if not rows:
            return []
        found = [segment_from_row(row, None) for row in rows]
        # Every count in one round trip: one scalar subquery per segment.
        counts = self._conn.execute(select(*(self._count(s, now) for s in found))).one()
        return [attrs.evolve(s, contacts_count=count) for s, count in zip(found, counts, strict=True)]

    def update(self, segment_id: int, name: str, description: str | None, rules: SegmentRules, now: datetime) -> None:
        self._conn.execute(
            update(segments)
            .where(self.owned(segments), segments.c.id == segment_id)
            .values(name=name, description=description, updated_at=now, **_stored(rules))
        )

    def delete(self, segment_id: int) -> None:
        self._conn.execute(delete(segments).where(self.owned(segments), segments.c.id == segment_id))

    def include(self, segment_id: int, contact_id: int) -> None:
        self._override(segment_id, contact_id, included=True)

    def exclude(self, segment_id: int, contact_id: int) -> None:
        self._override(segment_id, contact_id, included=False)

    def members(self, segment_id: int, page: PageRequest, now: datetime) -> Page[Member]:
        segment = self._load(segment_id)
        if segment is None:
            return Page(items=[], request=page, total=0)
        total = self._conn.execute(select(self._count(segment, now))).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*MEMBER_COLUMNS)
            .select_from(contacts_with_overrides(segment.id))
            .where(*self._members_of(segment, now))
            .order_by(contacts.c.id)
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page(items=[member_from_row(row) for row in rows], request=page, total=total)

    def is_member(self, segment_id: int, contact_id: int, now: datetime) -> bool:
        segment = self._load(segment_id)
        if segment is None:
            return False
        found = self._conn.execute(
            select(contacts.c.id)
            .select_from(contacts_with_overrides(segment.id))
            .where(contacts.c.id == contact_id, *self._members_of(segment, now))
        ).first()
        return found is not None

    # -- helpers ---------------------------------------------------------------------------------

    def _load(self, segment_id: int) -> Segment | None:
        row = self._conn.execute(
            select(*_COLUMNS).where(self.owned(segments), segments.c.id == segment_id)
        ).one_or_none()
        return None if row is None else segment_from_row(row, None)

    def _counted(self, segment: Segment, now: datetime) -> Segment:
        return attrs.evolve(segment, contacts_count=self._conn.execute(select(self._count(segment, now))).scalar_one())

    def _members_of(self, segment: Segment, now: datetime) -> tuple[ColumnElement[bool], ...]:
        return (self.owned(contacts), membership(_rules(segment), now))

    def _count(self, segment: Segment, now: datetime) -> ScalarSelect[int]:
        return (
            select(func.count())
            .select_from(contacts_with_overrides(segment.id))
            .where(*self._members_of(segment, now))
            .scalar_subquery()
        )

    def _override(self, segment_id: int, contact_id: int, *, included: bool) -> None:
        # INSERT ... SELECT: nothing is recorded unless the segment and the contact are this account's.
        self._conn.execute(
            upsert(self._conn, segment_overrides, ("segment_id", "contact_id"), ("included",)).from_select(
                ["account_id", "segment_id", "contact_id", "included"],
                select(segments.c.account_id, segments.c.id, contacts.c.id, literal(included))
                .join_from(segments, contacts, contacts.c.account_id == segments.c.account_id)
                .where(self.owned(segments), segments.c.id == segment_id, contacts.c.id == contact_id),
            )
        )
