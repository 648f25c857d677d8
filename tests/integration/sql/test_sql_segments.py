"""Segments through SegmentService, ContactService and the SQL segment repository."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock

MakeContact = Callable[..., Contact]
VIP = [{"field": "tag", "operator": "has", "value": "vip"}]


def _member_ids(services: Services, account: int, segment_id: int) -> list[int]:
    return [m.id for m in services.segments.members(account, segment_id, PageRequest(per_page=100)).items]


def test_rules_select_members(services: Services, account: int, make_contact: MakeContact) -> None:
    """A segment's members are the contacts its rules match, counted in contacts_count."""
    vip = make_contact(tags=["VIP"])
    make_contact()

    segment = services.segments.create(account, "VIPs", conditions=VIP)

    assert (segment.contacts_count, _member_ids(services, account, segment.id)) == (1, [vip.id])


def test_members_are_ordered_by_id_and_paginated(services: Services, account: int, make_contact: MakeContact) -> None:
    """Members come by contact id, a page at a time, with the total."""
    contacts = [make_contact(name=f"c{n}", tags=["vip"]) for n in range(5)]
    segment = services.segments.create(account, "VIPs", conditions=VIP)

    page = services.segments.members(account, segment.id, PageRequest(page=2, per_page=2))

    assert ([(m.id, m.name, m.phone, m.type) for m in page.items], page.total) == (
        [(c.id, c.name, c.phone, c.type) for c in contacts[2:4]],
        5,
    )


def test_segment_reads_back_equal(services: Services, account: int) -> None:
    """Name, description, match mode and typed conditions survive storage."""
    conditions: list[dict[str, Any]] = [
        {"field": "type", "operator": "in", "value": ["telegram", "whatsapp"]},
        {"field": "created_at", "operator": "after", "value": "2025-12-31T23:59:59.000001Z"},
        {"field": "last_message_at", "operator": "within_days", "value": 7},
        {"field": "email", "operator": "is_empty"},
        {"field": "blacklisted", "operator": "eq", "value": False},
    ]
    segment = services.segments.create(account, "Mixed", description="All kinds", match="any", conditions=conditions)

    assert services.segments.get(account, segment.id) == segment
    assert [c.to_json() for c in segment.conditions][1]["value"] == "2025-12-31T23:59:59.000001Z"


def test_manual_segment_holds_only_added_contacts(services: Services, account: int, make_contact: MakeContact) -> None:
    """A segment without conditions selects nobody until contacts are added by hand."""
    added = make_contact()
    make_contact()
    segment = services.segments.create(account, "Hand-picked")

    services.contacts.add_to_segment(account, added.id, segment.id)

    assert (services.segments.get(account, segment.id).contacts_count, _member_ids(services, account, segment.id)) == (
        1,
        [added.id],
    )


def test_removed_contact_stays_out_despite_the_rules(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """A contact removed by hand is no member even though the rules match it."""
    vip, other = make_contact(tags=["vip"]), make_contact(tags=["vip"])
    segment = services.segments.create(account, "VIPs", conditions=VIP)

    services.contacts.remove_from_segment(account, vip.id, segment.id)

    assert _member_ids(services, account, segment.id) == [other.id]


def test_adding_back_cancels_a_removal(services: Services, account: int, make_contact: MakeContact) -> None:
    """Adding a removed contact by hand makes it a member again."""
    vip = make_contact(tags=["vip"])
    segment = services.segments.create(account, "VIPs", conditions=VIP)
    services.contacts.remove_from_segment(account, vip.id, segment.id)

    services.contacts.add_to_segment(account, vip.id, segment.id)

    assert _member_ids(services, account, segment.id) == [vip.id]


def test_removing_a_non_member_keeps_it_out_once_the_rules_match(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """Removing a contact by hand before the rules match it still keeps it out afterwards."""
    contact = make_contact()
    segment = services.segments.create(account, "VIPs", conditions=VIP)
    services.contacts.remove_from_segment(account, contact.id, segment.id)

    services.contacts.assign_tag(account, contact.id, TagAssignment(title="vip"))

    assert _member_ids(services, account, segment.id) == []


def test_relative_days_follow_the_clock(
    services: Services, account: int, clock: FakeClock, make_contact: MakeContact
) -> None:
    """`within_days` is evaluated at the time of reading, so members age out."""
    make_contact()
    segment = services.segments.create(
        account, "Recent", conditions=[{"field": "created_at", "operator": "within_days", "value": 2}]
    )
    clock.advance(days=2)
    still = services.segments.get(account, segment.id).contacts_count
    clock.advance(microseconds=1)

    assert (still, services.segments.get(account, segment.id).contacts_count) == (1, 0)


def test_update_changes_the_rules_and_keeps_manual_changes(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """New rules select new members; contacts added by hand stay."""
    added = make_contact()
    telegram = make_contact(type="telegram")
    segment = services.segments.create(account, "VIPs", conditions=VIP)
    services.contacts.add_to_segment(account, added.id, segment.id)

    updated = services.segments.update(
        account, segment.id, conditions=[{"field": "type", "operator": "eq", "value": "telegram"}]
    )

    assert (updated.contacts_count, _member_ids(services, account, segment.id)) == (2, [added.id, telegram.id])


def test_segments_are_listed_by_id_with_counts(services: Services, account: int, make_contact: MakeContact) -> None:
    """list() evaluates every segment's count."""
    make_contact(tags=["vip"])
    make_contact(type="telegram")
    services.segments.create(account, "VIPs", conditions=VIP)
    services.segments.create(
        account,
        "Everyone",
        match="any",
        conditions=[*VIP, {"field": "name", "operator": "contains", "value": "contact"}],
    )
    services.segments.create(account, "Nobody")

    assert [(s.name, s.contacts_count) for s in services.segments.list(account)] == [
        ("VIPs", 1),
        ("Everyone", 2),
        ("Nobody", 0),
    ]


def test_delete_removes_the_segment(services: Services, account: int, make_contact: MakeContact) -> None:
    """A deleted segment is gone, with its manual changes; the contacts stay."""
    contact = make_contact()
    segment = services.segments.create(account, "Hand-picked")
    services.contacts.add_to_segment(account, contact.id, segment.id)

    services.segments.delete(account, segment.id)

    with pytest.raises(NotFound):
        services.segments.get(account, segment.id)
    assert services.contacts.get(account, contact.id) == contact


def test_no_segments_lists_empty(services: Services, account: int) -> None:
    """An account without segments lists none."""
    assert services.segments.list(account) == []
