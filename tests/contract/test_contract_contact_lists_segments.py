"""Contact lists and segments: members in order, rules and manual overrides, and their tenancy
(another account's lists and segments behave as absent), on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from support import NOW, MakeContact

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import ContactDraft
from engage_core.contacts.segments import SegmentRules
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

VIP = [{"field": "tag", "operator": "has", "value": "vip"}]


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _member_names(services: Services, account: int, list_id: int, page: PageRequest | None = None) -> list[str]:
    return [m.name for m in services.lists.members(account, list_id, page or PageRequest(per_page=100)).items]


def _member_ids(services: Services, account: int, segment_id: int) -> list[int]:
    return [m.id for m in services.segments.members(account, segment_id, PageRequest(per_page=100)).items]


def test_created_list_is_active_and_empty(services: Services, account: int) -> None:
    """A new list has status 1, no members, and reads back equal."""
    created = services.lists.create(account, "Newsletter")

    assert (services.lists.get(account, created.id), created.status, created.contacts_count) == (created, 1, 0)


def test_update_changes_name_and_status(services: Services, account: int) -> None:
    """update() renames and deactivates."""
    created = services.lists.create(account, "Newsletter")

    updated = services.lists.update(account, created.id, name="Weekly", status=0)

    assert (updated.name, updated.status, services.lists.get(account, created.id)) == ("Weekly", 0, updated)


def test_lists_are_listed_by_id_with_counts(services: Services, account: int, make_contact: MakeContact) -> None:
    """list() returns every list, oldest first, with its member count."""
    first, second = services.lists.create(account, "A"), services.lists.create(account, "B")
    for contact in (make_contact(), make_contact()):
        services.contacts.add_to_list(account, contact.id, second.id)

    assert [(i.id, i.contacts_count) for i in services.lists.list(account)] == [(first.id, 0), (second.id, 2)]


def test_members_come_in_the_order_they_were_added(services: Services, account: int, make_contact: MakeContact) -> None:
    """Members are listed in insertion order, not by id or name (the clock stands still here)."""
    ada, bob, cy = make_contact(name="Ada"), make_contact(name="Bob"), make_contact(name="Cy")
    newsletter = services.lists.create(account, "Newsletter")
    for contact in (cy, ada, bob):
        services.contacts.add_to_list(account, contact.id, newsletter.id)

    assert _member_names(services, account, newsletter.id) == ["Cy", "Ada", "Bob"]


def test_readded_member_goes_to_the_end(services: Services, account: int, make_contact: MakeContact) -> None:
    """A contact removed and added again is the newest member."""
    ada, bob = make_contact(name="Ada"), make_contact(name="Bob")
    newsletter = services.lists.create(account, "Newsletter")
    for contact in (ada, bob):
        services.contacts.add_to_list(account, contact.id, newsletter.id)
    services.contacts.remove_from_list(account, ada.id, newsletter.id)
    services.contacts.add_to_list(account, ada.id, newsletter.id)

    assert _member_names(services, account, newsletter.id) == ["Bob", "Ada"]


def test_members_paginate(services: Services, account: int, make_contact: MakeContact) -> None:
    """A page of members carries the id, name, phone and type, and the total."""
    newsletter = services.lists.create(account, "Newsletter")
    contacts = [make_contact(name=f"c{n}") for n in range(5)]
    for contact in contacts:
        services.contacts.add_to_list(account, contact.id, newsletter.id)

    page = services.lists.members(account, newsletter.id, PageRequest(page=2, per_page=2))

    assert ([(m.id, m.name, m.phone, m.type) for m in page.items], page.total) == (
        [(c.id, c.name, c.phone, c.type) for c in contacts[2:4]],
        5,
    )


def test_adding_a_member_twice_is_reported(services: Services, account: int, make_contact: MakeContact) -> None:
    """The second add of the same contact returns False and changes nothing."""
    contact = make_contact()
    newsletter = services.lists.create(account, "Newsletter")

    added = [services.contacts.add_to_list(account, contact.id, newsletter.id) for _ in range(2)]

    assert (added, services.lists.get(account, newsletter.id).contacts_count) == ([True, False], 1)


def test_removing_a_non_member_changes_nothing(services: Services, account: int, make_contact: MakeContact) -> None:
    """Removing a contact that is not in the list is accepted and leaves the list as it was."""
    member, stranger = make_contact(), make_contact()
    newsletter = services.lists.create(account, "Newsletter")
    services.contacts.add_to_list(account, member.id, newsletter.id)

    services.contacts.remove_from_list(account, stranger.id, newsletter.id)

    assert [m.id for m in services.lists.members(account, newsletter.id, PageRequest()).items] == [member.id]


def test_remove_member_reports_whether_it_removed(uow: UnitOfWorkFactory, account: int) -> None:
    """The repository's remove_member() is True for a member and False for anyone else."""
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        newsletter = unit.lists.add("Newsletter", NOW)
        unit.lists.add_member(newsletter.id, contact.id, NOW)
        removed = [unit.lists.remove_member(newsletter.id, contact.id) for _ in range(2)]

    assert removed == [True, False]


def test_delete_keeps_the_contacts(services: Services, account: int, make_contact: MakeContact) -> None:
    """Deleting a list removes its memberships; the contacts stay."""
    contact = make_contact()
    newsletter = services.lists.create(account, "Newsletter")
    services.contacts.add_to_list(account, contact.id, newsletter.id)

    services.lists.delete(account, newsletter.id)

    assert services.contacts.get(account, contact.id) == contact
    with pytest.raises(NotFound):
        services.lists.get(account, newsletter.id)


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


def test_other_accounts_list_and_segment_are_not_found(services: Services, account: int, other: int) -> None:
    """Lists and segments of another account are 404."""
    their_list = services.lists.create(other, "Theirs")
    their_segment = services.segments.create(other, "Theirs")

    for attempt in (
        lambda: services.lists.get(account, their_list.id),
        lambda: services.lists.members(account, their_list.id, PageRequest()),
        lambda: services.segments.get(account, their_segment.id),
        lambda: services.segments.members(account, their_segment.id, PageRequest()),
    ):
        with pytest.raises(NotFound):
            attempt()
    assert (services.lists.list(account), services.segments.list(account)) == ([], [])


def test_segment_never_counts_another_accounts_contacts(
    services: Services, account: int, other: int, make_contact: MakeContact
) -> None:
    """Rules are evaluated over the account's own contacts only."""
    make_contact(account_id=other, tags=["vip"])
    segment = services.segments.create(
        account, "VIPs", conditions=[{"field": "tag", "operator": "has", "value": "vip"}]
    )

    assert segment.contacts_count == 0


def test_list_update_stamps_the_update_time(uow: UnitOfWorkFactory, account: int) -> None:
    """lists.update() stores name, status and `updated_at`, keeping `created_at`."""
    later = NOW + timedelta(minutes=1)
    with uow.workspace(account) as unit:
        newsletter = unit.lists.add("Newsletter", NOW)
        unit.lists.update(newsletter.id, "Weekly", 0, later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.lists.get(newsletter.id) == attrs.evolve(newsletter, name="Weekly", status=0, updated_at=later)


def test_updating_another_accounts_list_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """lists.update() and lists.delete() of another account's list leave it as it was."""
    with uow.workspace(other) as unit:
        theirs = unit.lists.add("Theirs", NOW)
        unit.commit()
    with uow.workspace(account) as unit:
        unit.lists.update(theirs.id, "Mine now", 0, NOW)
        unit.lists.delete(theirs.id)
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        assert unit.lists.get(theirs.id) == theirs


def test_another_accounts_list_has_no_members_to_read_or_remove(
    uow: UnitOfWorkFactory, account: int, other: int
) -> None:
    """members() of another account's list is empty and remove_member() of it is False."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        theirs = unit.lists.add("Theirs", NOW)
        unit.lists.add_member(theirs.id, contact.id, NOW)
        unit.commit()

    with uow.workspace(account) as unit:
        page = unit.lists.members(theirs.id, PageRequest())
        removed = unit.lists.remove_member(theirs.id, contact.id)

    assert (list(page.items), page.total, removed) == ([], 0, False)


def test_is_member_follows_rules_and_overrides(uow: UnitOfWorkFactory, account: int) -> None:
    """is_member() is True for a contact the rules match, False once it is excluded by hand."""
    rules = SegmentRules("all", ())
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        segment = unit.segments.add("Manual", None, rules, NOW)
        unit.segments.include(segment.id, contact.id)
        included = unit.segments.is_member(segment.id, contact.id, NOW)
        unit.segments.exclude(segment.id, contact.id)
        excluded = unit.segments.is_member(segment.id, contact.id, NOW)

    assert (included, excluded) == (True, False)


def test_another_accounts_segment_has_no_members(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """members() and is_member() of another account's segment find nobody."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        theirs = unit.segments.add("Theirs", None, SegmentRules("all", ()), NOW)
        unit.segments.include(theirs.id, contact.id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        page = unit.segments.members(theirs.id, PageRequest(), NOW)
        member = unit.segments.is_member(theirs.id, contact.id, NOW)

    assert (list(page.items), page.total, member) == ([], 0, False)


def test_segment_update_stamps_the_update_time(uow: UnitOfWorkFactory, account: int) -> None:
    """segments.update() stores name, description, rules and `updated_at`, keeping `created_at`."""
    later = NOW + timedelta(minutes=1)
    with uow.workspace(account) as unit:
        segment = unit.segments.add("Manual", None, SegmentRules("all", ()), NOW)
        unit.segments.update(segment.id, "Renamed", "Now described", SegmentRules("any", ()), later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.segments.get(segment.id, later) == attrs.evolve(
            segment, name="Renamed", description="Now described", match="any", updated_at=later
        )
