"""SegmentService and segment membership (SPEC 4 Lists and segments; POST/DELETE /contacts/{id}/segments)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from engage_core.contacts.model import Contact, Member
from engage_core.contacts.segments import Condition
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock

from ..factories import START

NewContact = Callable[..., Contact]

WHATSAPP = {"field": "type", "operator": "eq", "value": "whatsapp"}
VIP = {"field": "tag", "operator": "has", "value": "vip"}
NEW_THIS_WEEK = {"field": "created_at", "operator": "within_days", "value": 7}


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def member_ids(services: Services, account_id: int, segment_id: int) -> list[int]:
    return [m.id for m in services.segments.members(account_id, segment_id, PageRequest(per_page=100)).items]


# -- create, get, list -----------------------------------------------------------------------------


def test_create_returns_the_parsed_segment(services: Services, account_id: int) -> None:
    """A new segment keeps its trimmed name, description, match mode and typed conditions."""
    segment = services.segments.create(
        account_id, " Recent ", description=" new people ", match="any", conditions=[NEW_THIS_WEEK]
    )
    assert (segment.name, segment.description, segment.match, segment.conditions, segment.created_at) == (
        "Recent",
        "new people",
        "any",
        (Condition("created_at", "within_days", 7),),
        START,
    )


def test_create_defaults_to_a_manual_all_segment(services: Services, account_id: int) -> None:
    """Without rules a segment matches `all` of no conditions: nobody until contacts are added by hand."""
    segment = services.segments.create(account_id, "Manual")
    assert (segment.match, segment.conditions, segment.description, segment.contacts_count) == ("all", (), None, 0)


def test_create_counts_matching_contacts(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A new segment's contacts_count is the number of contacts its rules match now."""
    new_contact("A", "whatsapp", phone="+966501234560")
    new_contact("B")
    assert services.segments.create(account_id, "WA", conditions=[WHATSAPP]).contacts_count == 1


def test_create_reports_every_error_at_once(services: Services, account_id: int) -> None:
    """A blank name, a long description and bad rules are all reported together."""
    errors = errors_of(
        lambda: services.segments.create(
            account_id, " ", description="x" * 1001, match="most", conditions=[{"field": "age"}]
        )
    )
    assert set(errors) == {"name", "description", "match", "conditions.0.field"}


def test_create_names_the_bad_condition_path(services: Services, account_id: int) -> None:
    """A bad value in the third condition is reported on `conditions.2.value`."""
    bad = {"field": "created_at", "operator": "within_days", "value": 0}
    errors = errors_of(lambda: services.segments.create(account_id, "S", conditions=[WHATSAPP, VIP, bad]))
    assert list(errors) == ["conditions.2.value"]


def test_get_unknown_segment_is_not_found(services: Services, account_id: int) -> None:
    """An unknown segment id raises NotFound."""
    with pytest.raises(NotFound):
        services.segments.get(account_id, 999)


def test_get_other_accounts_segment_is_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Another account's segment behaves as nonexistent."""
    theirs = services.segments.create(new_account("Other"), "Theirs")
    with pytest.raises(NotFound):
        services.segments.get(new_account("Mine"), theirs.id)


def test_list_returns_the_accounts_segments_with_counts(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """`list` returns only this account's segments, in creation order, with live counts."""
    services.segments.create(new_account("Other"), "Theirs")
    a = services.segments.create(account_id, "All WA", conditions=[WHATSAPP])
    b = services.segments.create(account_id, "Manual")
    new_contact("A", "whatsapp", phone="+966501234560")
    assert [(s.id, s.contacts_count) for s in services.segments.list(account_id)] == [(a.id, 1), (b.id, 0)]


# -- members ---------------------------------------------------------------------------------------


def test_members_are_the_contacts_the_rules_match(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Members are the matching contacts, as member items ordered by contact id."""
    b = new_contact("B", "whatsapp", phone="+966501234561")
    new_contact("X", "instagram")
    a = new_contact("A", "whatsapp", phone="+966501234560")
    segment = services.segments.create(account_id, "WA", conditions=[WHATSAPP])
    assert services.segments.members(account_id, segment.id, PageRequest()).items == [
        Member(b.id, "B", "+966501234561", "whatsapp"),
        Member(a.id, "A", "+966501234560", "whatsapp"),
    ]


def test_members_are_evaluated_when_read(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A contact created after the segment, or tagged later, becomes a member without touching the segment."""
    segment = services.segments.create(account_id, "VIP", conditions=[VIP])
    contact = new_contact(tags=["VIP"])
    assert member_ids(services, account_id, segment.id) == [contact.id]


def test_all_needs_every_condition(services: Services, account_id: int, new_contact: NewContact) -> None:
    """With `all`, only contacts meeting every condition are members."""
    both = new_contact("Both", "whatsapp", phone="+966501234560", tags=["vip"])
    new_contact("WA only", "whatsapp", phone="+966501234561")
    new_contact("VIP only", tags=["vip"])
    segment = services.segments.create(account_id, "S", match="all", conditions=[WHATSAPP, VIP])
    assert member_ids(services, account_id, segment.id) == [both.id]


def test_any_needs_one_condition(services: Services, account_id: int, new_contact: NewContact) -> None:
    """With `any`, contacts meeting at least one condition are members."""
    a = new_contact("WA", "whatsapp", phone="+966501234560")
    b = new_contact("VIP", tags=["vip"])
    new_contact("Neither")
    segment = services.segments.create(account_id, "S", match="any", conditions=[WHATSAPP, VIP])
    assert member_ids(services, account_id, segment.id) == [a.id, b.id]


def test_members_are_paginated(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Members are paginated with the total across pages."""
    ids = [new_contact(f"C{i}").id for i in range(5)]
    segment = services.segments.create(account_id, "Everyone", conditions=[NEW_THIS_WEEK])
    page = services.segments.members(account_id, segment.id, PageRequest(page=2, per_page=2))
    assert ([m.id for m in page.items], page.total, page.last_page) == (ids[2:4], 5, 3)


def test_members_never_include_other_accounts_contacts(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Rules select only among the segment's own account's contacts."""
    new_contact(account=new_account("Other"))
    segment = services.segments.create(account_id, "Everyone", conditions=[NEW_THIS_WEEK])
    assert member_ids(services, account_id, segment.id) == []


def test_within_days_moves_with_the_clock(
    services: Services, account_id: int, new_contact: NewContact, clock: FakeClock
) -> None:
    """A contact created now is a `within_days 7` member for 7 days, then drops out."""
    contact = new_contact()
    segment = services.segments.create(account_id, "New", conditions=[NEW_THIS_WEEK])
    clock.advance(days=7)
    assert member_ids(services, account_id, segment.id) == [contact.id]
    clock.advance(seconds=1)
    assert member_ids(services, account_id, segment.id) == []
    assert services.segments.get(account_id, segment.id).contacts_count == 0


def test_members_of_other_accounts_segment_are_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Reading the members of another account's segment raises NotFound."""
    theirs = services.segments.create(new_account("Other"), "Theirs")
    with pytest.raises(NotFound):
        services.segments.members(new_account("Mine"), theirs.id, PageRequest())


# -- manual membership -----------------------------------------------------------------------------


def test_add_by_hand_includes_a_non_matching_contact(
    services: Services, account_id: int, new_contact: NewContact
) -> None:
    """A contact added by hand is a member although the rules do not match it."""
    contact = new_contact()
    segment = services.segments.create(account_id, "WA", conditions=[WHATSAPP])
    services.contacts.add_to_segment(account_id, contact.id, segment.id)
    assert member_ids(services, account_id, segment.id) == [contact.id]


def test_remove_by_hand_excludes_a_matching_contact(
    services: Services, account_id: int, new_contact: NewContact
) -> None:
    """A contact removed by hand is not a member although the rules match it."""
    contact = new_contact("A", "whatsapp", phone="+966501234560")
    segment = services.segments.create(account_id, "WA", conditions=[WHATSAPP])
    services.contacts.remove_from_segment(account_id, contact.id, segment.id)
    assert member_ids(services, account_id, segment.id) == []


def test_add_after_remove_includes_again(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Adding a contact back by hand undoes its manual removal."""
    contact = new_contact("A", "whatsapp", phone="+966501234560")
    segment = services.segments.create(account_id, "WA", conditions=[WHATSAPP])
    services.contacts.remove_from_segment(account_id, contact.id, segment.id)
    services.contacts.add_to_segment(account_id, contact.id, segment.id)
    assert member_ids(services, account_id, segment.id) == [contact.id]


def test_add_by_hand_is_idempotent(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Adding the same contact twice leaves one membership."""
    contact = new_contact()
    segment = services.segments.create(account_id, "Manual")
    services.contacts.add_to_segment(account_id, contact.id, segment.id)
    services.contacts.add_to_segment(account_id, contact.id, segment.id)
    assert services.segments.get(account_id, segment.id).contacts_count == 1


def test_remove_a_non_member_is_a_no_op(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Removing a contact that is not a member succeeds and it stays out (idempotent)."""
    contact = new_contact()
    segment = services.segments.create(account_id, "Manual")
    services.contacts.remove_from_segment(account_id, contact.id, segment.id)
    assert services.segments.get(account_id, segment.id).contacts_count == 0


def test_add_to_unknown_segment_is_not_found(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Adding a contact to a segment that does not exist raises NotFound."""
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.add_to_segment(account_id, contact.id, 999)


def test_add_to_other_accounts_segment_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """A contact cannot be added to another account's segment."""
    theirs = services.segments.create(new_account("Other"), "Theirs")
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.add_to_segment(account_id, contact.id, theirs.id)


def test_add_other_accounts_contact_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Another account's contact cannot be added to this account's segment."""
    segment = services.segments.create(account_id, "Mine")
    theirs = new_contact(account=new_account("Other"))
    with pytest.raises(NotFound):
        services.contacts.add_to_segment(account_id, theirs.id, segment.id)


# -- update ----------------------------------------------------------------------------------------


def test_update_name_keeps_the_rules(services: Services, account_id: int) -> None:
    """Changing only the name keeps description, match and conditions."""
    segment = services.segments.create(account_id, "S", description="d", match="any", conditions=[WHATSAPP, VIP])
    updated = services.segments.update(account_id, segment.id, name="Renamed")
    assert (updated.name, updated.description, updated.match, updated.conditions) == (
        "Renamed",
        "d",
        "any",
        segment.conditions,
    )


def test_update_keeps_timestamp_conditions(services: Services, account_id: int) -> None:
    """A name-only update re-validates stored `before`/`after` conditions without loss."""
    after = {"field": "created_at", "operator": "after", "value": "2025-06-01T00:00:00.5Z"}
    segment = services.segments.create(account_id, "S", conditions=[after])
    updated = services.segments.update(account_id, segment.id, name="Renamed")
    assert updated.conditions == (Condition("created_at", "after", datetime(2025, 6, 1, 0, 0, 0, 500000, UTC)),)


def test_update_replaces_conditions(services: Services, account_id: int, new_contact: NewContact) -> None:
    """New conditions replace the old ones, and membership follows."""
    vip = new_contact(tags=["vip"])
    segment = services.segments.create(account_id, "S", conditions=[WHATSAPP])
    services.segments.update(account_id, segment.id, conditions=[VIP])
    assert member_ids(services, account_id, segment.id) == [vip.id]


def test_update_match_only(services: Services, account_id: int) -> None:
    """Changing only `match` keeps the conditions."""
    segment = services.segments.create(account_id, "S", conditions=[WHATSAPP, VIP])
    updated = services.segments.update(account_id, segment.id, match="any")
    assert (updated.match, updated.conditions) == ("any", segment.conditions)


def test_update_description_none_clears_it(services: Services, account_id: int) -> None:
    """`description=None` clears the description."""
    segment = services.segments.create(account_id, "S", description="d")
    assert services.segments.update(account_id, segment.id, description=None).description is None


def test_update_moves_updated_at(services: Services, account_id: int, clock: FakeClock) -> None:
    """An update stamps updated_at with now and keeps created_at."""
    segment = services.segments.create(account_id, "S")
    later = clock.advance(hours=1)
    updated = services.segments.update(account_id, segment.id, name="T")
    assert (updated.created_at, updated.updated_at) == (START, later)


def test_update_reports_errors_and_changes_nothing(services: Services, account_id: int) -> None:
    """A refused update names every bad field and leaves the segment as it was."""
    segment = services.segments.create(account_id, "S", conditions=[WHATSAPP])
    errors = errors_of(
        lambda: services.segments.update(account_id, segment.id, name="", conditions=[{"field": "nope"}])
    )
    assert set(errors) == {"name", "conditions.0.field"}
    assert services.segments.get(account_id, segment.id) == segment


def test_update_unknown_segment_is_not_found(services: Services, account_id: int) -> None:
    """Updating an unknown segment raises NotFound."""
    with pytest.raises(NotFound):
        services.segments.update(account_id, 999, name="x")


def test_update_name_with_an_early_year_condition(services: Services, account_id: int) -> None:
    """A segment accepted at create time can always be renamed."""
    before = {"field": "created_at", "operator": "before", "value": "0500-01-01T00:00:00Z"}
    segment = services.segments.create(account_id, "S", conditions=[before])
    assert services.segments.update(account_id, segment.id, name="Renamed").name == "Renamed"


# -- delete ----------------------------------------------------------------------------------------


def test_delete_removes_the_segment(services: Services, account_id: int) -> None:
    """A deleted segment is not found afterwards."""
    segment = services.segments.create(account_id, "S")
    services.segments.delete(account_id, segment.id)
    with pytest.raises(NotFound):
        services.segments.get(account_id, segment.id)


def test_delete_keeps_the_contacts(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Deleting a segment deletes no contact, even ones added by hand."""
    contact = new_contact()
    segment = services.segments.create(account_id, "S")
    services.contacts.add_to_segment(account_id, contact.id, segment.id)
    services.segments.delete(account_id, segment.id)
    assert services.contacts.get(account_id, contact.id).id == contact.id


def test_delete_other_accounts_segment_is_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Deleting another account's segment raises NotFound and the segment survives."""
    other = new_account("Other")
    theirs = services.segments.create(other, "Theirs")
    with pytest.raises(NotFound):
        services.segments.delete(new_account("Mine"), theirs.id)
    assert services.segments.get(other, theirs.id).name == "Theirs"
