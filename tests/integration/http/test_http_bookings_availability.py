"""`GET /bookings/availability` (SPEC 4): a day's slots within working hours, in the workspace's
timezone, marked against stored bookings and the clock, daylight-saving days included."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.bookings.model import Booking
from engage_core.bookings.setup import BookingType, Resource
from engage_core.contacts.model import Contact

ROUND_THE_CLOCK = {"opens": "00:00", "closes": "24:00"}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@pytest.fixture
def hour(tenant: Tenant, make_booking_type: Callable[..., BookingType]) -> BookingType:
    return make_booking_type(tenant, name="Hour", duration_minutes=60)


@pytest.fixture
def contact(tenant: Tenant, make_contact: Callable[..., Contact]) -> Contact:
    return make_contact(tenant)


def set_hours(api: Api, timezone: str, **weekly: list[dict[str, str]]) -> None:
    response = api.put("/bookings/working-hours", json={"timezone": timezone, "weekly": weekly})
    assert response.status_code == 200, response.text


def slots(api: Api, booking_type: BookingType, day: str, **params: Any) -> list[dict[str, Any]]:
    response = api.get("/bookings/availability", params={"booking_type_id": booking_type.id, "date": day, **params})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["date"] == day
    found: list[dict[str, Any]] = response.json()["data"]["slots"]
    return found


def starts(found: list[dict[str, Any]]) -> list[str]:
    return [s["starts_at"][11:16] for s in found]


def test_slots_follow_the_hours_and_skip_the_break(api: Api, hour: BookingType) -> None:
    """Berlin 09:00-12:00 and 13:00-17:00 on Mondays: hourly slots from 08:00 UTC, none over lunch."""
    set_hours(
        api, "Europe/Berlin", monday=[{"opens": "09:00", "closes": "12:00"}, {"opens": "13:00", "closes": "17:00"}]
    )

    found = slots(api, hour, "2026-01-05")

    assert starts(found) == ["08:00", "09:00", "10:00", "12:00", "13:00", "14:00", "15:00"]
    assert found[0] == {
        "starts_at": "2026-01-05T08:00:00.000000Z",
        "ends_at": "2026-01-05T09:00:00.000000Z",
        "available": True,
    }


def test_a_slot_must_end_by_the_close(api: Api, tenant: Tenant, make_booking_type: Callable[..., BookingType]) -> None:
    """A 90-minute type in 09:00-12:00 UTC has slots at 09:00 and 10:30 only."""
    set_hours(api, "UTC", monday=[{"opens": "09:00", "closes": "12:00"}])
    long = make_booking_type(tenant, duration_minutes=90)

    assert starts(slots(api, long, "2026-01-05")) == ["09:00", "10:30"]


def test_a_closed_day_has_no_slots(api: Api, hour: BookingType) -> None:
    """A weekday left out of the hours is closed."""
    set_hours(api, "UTC", monday=[{"opens": "09:00", "closes": "12:00"}])

    assert slots(api, hour, "2026-01-06") == []


def test_slots_that_have_started_are_unavailable(api: Api, hour: BookingType) -> None:
    """On today's date (clock at 12:00 UTC) earlier slots are not available; 12:00 itself still is."""
    found = slots(api, hour, "2026-01-01")

    assert [s["available"] for s in found[11:14]] == [False, True, True]


def test_a_booked_slot_is_unavailable_and_neighbours_are_free(
    api: Api, tenant: Tenant, hour: BookingType, contact: Contact, make_booking: Callable[..., Booking]
) -> None:
    """A booking 10:00-11:00 takes that slot; 09:00 and 11:00 (touching it) stay available."""
    make_booking(tenant, contact.id, hour.id, datetime(2026, 1, 5, 10, tzinfo=UTC))

    by_start = {s["starts_at"][11:16]: s["available"] for s in slots(api, hour, "2026-01-05")}

    assert (by_start["09:00"], by_start["10:00"], by_start["11:00"]) == (True, False, True)


def test_with_resources_a_slot_is_free_while_one_resource_is(
    api: Api,
    tenant: Tenant,
    hour: BookingType,
    contact: Contact,
    make_resource: Callable[..., Resource],
    make_booking: Callable[..., Booking],
) -> None:
    """Booked on one of two resources, the merged slot is available, that resource's is not; booked on both, neither."""
    first, second = make_resource(tenant), make_resource(tenant)
    ten, eleven = datetime(2026, 1, 5, 10, tzinfo=UTC), datetime(2026, 1, 5, 11, tzinfo=UTC)
    make_booking(tenant, contact.id, hour.id, ten, resource_id=first.id)
    make_booking(tenant, contact.id, hour.id, eleven, resource_id=first.id)
    make_booking(tenant, contact.id, hour.id, eleven, resource_id=second.id)

    merged = {s["starts_at"][11:16]: s["available"] for s in slots(api, hour, "2026-01-05")}
    only_first = {s["starts_at"][11:16]: s["available"] for s in slots(api, hour, "2026-01-05", resource_id=first.id)}

    assert (merged["10:00"], merged["11:00"], only_first["10:00"]) == (True, False, False)


def test_a_resources_own_hours_shape_its_slots(
    api: Api, tenant: Tenant, hour: BookingType, make_resource: Callable[..., Resource]
) -> None:
    """A resource with its own hours is offered at those hours only."""
    evening = make_resource(tenant)
    api.put(
        f"/bookings/resources/{evening.id}/working-hours",
        json={"weekly": {"monday": [{"opens": "18:00", "closes": "20:00"}]}},
    )

    assert starts(slots(api, hour, "2026-01-05", resource_id=evening.id)) == ["18:00", "19:00"]


def test_the_spring_forward_day_has_no_slot_in_the_skipped_hour(api: Api, hour: BookingType) -> None:
    """Berlin, 2026-03-29 (clocks 02:00 -> 03:00), open all day: 23 hourly slots, none at local 02:00."""
    set_hours(api, "Europe/Berlin", **{day: [ROUND_THE_CLOCK] for day in WEEKDAYS})

    found = slots(api, hour, "2026-03-29")

    assert len(found) == 23
    assert starts(found)[:3] == ["23:00", "00:00", "01:00"]  # 00:00 and 01:00 CET, then 03:00 CEST


def test_the_fall_back_day_offers_the_repeated_hour_once(api: Api, hour: BookingType) -> None:
    """Berlin, 2026-10-25 (clocks 03:00 -> 02:00), open all day: 24 slots, the 25th hour is not offered twice."""
    set_hours(api, "Europe/Berlin", **{day: [ROUND_THE_CLOCK] for day in WEEKDAYS})

    found = slots(api, hour, "2026-10-25")

    assert len(found) == 24
    assert starts(found)[1:4] == ["23:00", "00:00", "02:00"]  # 01:00 CEST, 02:00 CEST, then 03:00 CET


def test_booking_type_and_date_are_required(api: Api) -> None:
    """Both query parameters are required and named when missing."""
    response = api.get("/bookings/availability")

    assert (response.status_code, sorted(response.json()["errors"])) == (422, ["booking_type_id", "date"])


def test_an_impossible_date_is_422(api: Api, hour: BookingType) -> None:
    """A date the calendar does not have is refused on `date`."""
    response = api.get("/bookings/availability", params={"booking_type_id": hour.id, "date": "2026-02-30"})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["date"])


def test_an_unknown_or_inactive_type_is_422(
    api: Api, tenant: Tenant, make_booking_type: Callable[..., BookingType]
) -> None:
    """A type the workspace does not have, or has deactivated, is refused on `booking_type_id`."""
    retired = make_booking_type(tenant, is_active=False)

    unknown = api.get("/bookings/availability", params={"booking_type_id": 999, "date": "2026-01-05"})
    inactive = api.get("/bookings/availability", params={"booking_type_id": retired.id, "date": "2026-01-05"})

    assert [(r.status_code, list(r.json()["errors"])) for r in (unknown, inactive)] == [
        (422, ["booking_type_id"]),
        (422, ["booking_type_id"]),
    ]
