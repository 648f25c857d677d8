"""Segments: saved rules over contacts, plus manual additions and removals (our design)."""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.contacts import segments as domain
from engage_core.contacts.model import Member
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import SEGMENT_MEMBERS, Page
from engage_core.kernel.unset import UNSET
from engage_http.constraints import Text
from engage_http.contacts.schemas import Member as MemberBody
from engage_http.contacts.segment_schemas import (
    TIME_POINT_OPERATORS,
    TIMESTAMP_PATTERN,
    Condition,
    Segment,
    SegmentCreate,
    SegmentUpdate,
)
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Segments"

_TIMESTAMP = Text(pattern=TIMESTAMP_PATTERN)


def _check_timestamps(conditions: Sequence[Condition]) -> None:
    """`before`/`after` take an RFC 3339 timestamp of the years 1001 to 9998.

    The core accepts any ISO 8601 text; the published schema (and so this edge) is narrower, so that
    every accepted value converts to UTC and renders back with a four-digit year.
    """
    errors = {
        f"conditions.{index}.value": ["The value must be an RFC 3339 timestamp (years 1001 to 9998)."]
        for index, condition in enumerate(conditions)
        if condition.operator in TIME_POINT_OPERATORS
        and isinstance(condition.value, str)
        and _TIMESTAMP.check(condition.value) is not None
    }
    if errors:
        raise ValidationFailed(errors)


def index(call: Call[None, None]) -> Sequence[domain.Segment]:
    return call.services.segments.list(call.account_id)


def store(call: Call[SegmentCreate, None]) -> domain.Segment:
    body = call.body
    _check_timestamps(body.conditions)
    created = call.services.segments.create(
        call.account_id,
        body.name,
        description=body.description,
        match=body.match,
        conditions=[c.to_json() for c in body.conditions],
    )
    return created


def show(call: Call[None, None]) -> domain.Segment:
    return call.services.segments.get(call.account_id, call.path["id"])


def update(call: Call[SegmentUpdate, None]) -> domain.Segment:
    body = call.body
    conditions = UNSET if body.conditions is UNSET else [c.to_json() for c in body.conditions]
    if body.conditions is not UNSET:
        _check_timestamps(body.conditions)
    updated = call.services.segments.update(
        call.account_id,
        call.path["id"],
        name=body.name,
        description=body.description,
        match=body.match,
        conditions=conditions,
    )
    return updated


def destroy(call: Call[None, None]) -> None:
    call.services.segments.delete(call.account_id, call.path["id"])


def members(call: Call[None, None]) -> Page[Member]:
    assert call.page is not None
    return call.services.segments.members(call.account_id, call.path["id"], call.page)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation("GET", "/contacts/segments", index, "List segments with their counts", TAG, Segment, Shape.MANY),
    Operation(
        "POST",
        "/contacts/segments",
        store,
        "Create a segment",
        TAG,
        Segment,
        status=201,
        message="Segment created.",
        body=SegmentCreate,
    ),
    Operation("GET", "/contacts/segments/{id:id}", show, "Get a segment", TAG, Segment),
    Operation(
        "PUT",
        "/contacts/segments/{id:id}",
        update,
        "Update a segment",
        TAG,
        Segment,
        message="Segment updated.",
        body=SegmentUpdate,
    ),
    Operation(
        "DELETE",
        "/contacts/segments/{id:id}",
        destroy,
        "Delete a segment",
        TAG,
        shape=Shape.NOTHING,
        status=204,
    ),
    Operation(
        "GET",
        "/contacts/segments/{id:id}/members",
        members,
        "List a segment's members",
        TAG,
        MemberBody,
        Shape.PAGE,
        page=SEGMENT_MEMBERS,
        description="Contacts the rules select or that were added by hand, minus those removed by hand; ordered by id.",
    ),
    write_lane=True,
)
