"""Booking setup over HTTP: booking types and resources (create, read, update, deactivate), the
workspace's timezone and working hours, and a resource's own hours."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.bookings.model import Booking
from engage_core.bookings.setup import BookingType, Resource
from engage_core.contacts.model import Contact

OFFICE = [{"opens": "09:00", "closes": "12:00"}, {"opens": "13:00", "closes": "17:00"}]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@pytest.fixture
def contact(tenant: Tenant, make_contact: Callable[..., Contact]) -> Contact:
    return make_contact(tenant)


# -- booking types ----------------------------------------------------------------------------------


def test_create_type_answers_201_with_its_fields(api: Api) -> None:
    """`POST /bookings/types` answers 201 with the SPEC fields, active by default."""
    response = api.post(
        "/bookings/types", json={"name": "Consultation", "duration_minutes": 30, "description": "First"}
    )

    data = response.json()["data"]
    assert (response.status_code, response.json()["message"]) == (201, "Booking type created.")
    assert {k: data[k] for k in ("name", "duration_minutes", "description", "is_active")} == {
        "name": "Consultation",
        "duration_minutes": 30,
        "description": "First",
        "is_active": True,
    }


@pytest.mark.parametrize("duration", [0, 1441, 1.5, "30"])
def test_a_bad_duration_is_422(api: Api, duration: Any) -> None:
    """`duration_minutes` is a whole number from 1 to 1440."""
    response = api.post("/bookings/types", json={"name": "Odd", "duration_minutes": duration})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["duration_minutes"])


def test_types_list_every_type_by_id(api: Api, tenant: Tenant, make_booking_type: Callable[..., BookingType]) -> None:
    """`GET /bookings/types` lists active and inactive types, by id."""
    first = make_booking_type(tenant, is_active=False)
    second = make_booking_type(tenant)

    data = api.get("/bookings/types").json()["data"]

    assert [(t["id"], t["is_active"]) for t in data] == [(first.id, False), (second.id, True)]


def test_update_type_changes_only_the_fields_given(
    api: Api, tenant: Tenant, make_booking_type: Callable[..., BookingType]
) -> None:
    """`PUT /bookings/types/{id}` with a duration keeps the name."""
    booking_type = make_booking_type(tenant, name="Consultation", duration_minutes=30)

    data = api.put(f"/bookings/types/{booking_type.id}", json={"duration_minutes": 45}).json()["data"]

    assert (data["name"], data["duration_minutes"]) == ("Consultation", 45)
    assert api.get(f"/bookings/types/{booking_type.id}").json()["data"]["duration_minutes"] == 45


def test_a_deactivated_type_cannot_be_booked(
    api: Api, tenant: Tenant, contact: Contact, make_booking_type: Callable[..., BookingType]
) -> None:
    """After `POST /bookings/types/{id}/deactivate` the type is inactive and a booking of it is a 422."""
    booking_type = make_booking_type(tenant)

    deactivated = api.post(f"/bookings/types/{booking_type.id}/deactivate").json()["data"]
    booking = api.post(
        "/bookings",
        json={"contact_id": contact.id, "booking_type_id": booking_type.id, "starts_at": "2026-01-02T10:00:00Z"},
    )

    assert (deactivated["is_active"], booking.status_code, list(booking.json()["errors"])) == (
        False,
        422,
        ["booking_type_id"],
    )


def test_an_unknown_type_is_404(api: Api) -> None:
    """Reading, updating or deactivating a type the workspace does not have answers 404."""
    answers = [
        api.get("/bookings/types/999"),
        api.put("/bookings/types/999", json={"name": "X"}),
        api.post("/bookings/types/999/deactivate"),
    ]

    assert [a.status_code for a in answers] == [404, 404, 404]


# -- resources --------------------------------------------------------------------------------------


def test_create_resource_answers_201_with_its_fields(api: Api) -> None:
    """`POST /bookings/resources` answers 201 with name, type and active flag."""
    response = api.post("/bookings/resources", json={"name": "Room 1", "type": "room"})

    data = response.json()["data"]
    assert (response.status_code, data["name"], data["type"], data["is_active"]) == (201, "Room 1", "room", True)


def test_a_resource_needs_a_name_and_a_type(api: Api) -> None:
    """`name` and `type` are required and not blank."""
    response = api.post("/bookings/resources", json={"name": " "})

    assert (response.status_code, sorted(response.json()["errors"])) == (422, ["name", "type"])


def test_resources_list_and_update(api: Api, tenant: Tenant, make_resource: Callable[..., Resource]) -> None:
    """`PUT /bookings/resources/{id}` renames; the list shows the new name."""
    resource = make_resource(tenant, name="Room 1")

    api.put(f"/bookings/resources/{resource.id}", json={"name": "Blue room"})

    assert [r["name"] for r in api.get("/bookings/resources").json()["data"]] == ["Blue room"]


def test_a_deactivated_resource_is_not_chosen(
    api: Api,
    tenant: Tenant,
    contact: Contact,
    make_booking_type: Callable[..., BookingType],
    make_resource: Callable[..., Resource],
) -> None:
    """With the first resource deactivated, a booking without `resource_id` takes the second."""
    first, second = make_resource(tenant), make_resource(tenant)
    api.post(f"/bookings/resources/{first.id}/deactivate")
    booking_type = make_booking_type(tenant)

    response = api.post(
        "/bookings",
        json={"contact_id": contact.id, "booking_type_id": booking_type.id, "starts_at": "2026-01-02T10:00:00Z"},
    )

    assert response.json()["data"]["resource_id"] == second.id


def test_deactivating_a_resource_keeps_its_bookings(
    api: Api,
    tenant: Tenant,
    contact: Contact,
    make_booking_type: Callable[..., BookingType],
    make_resource: Callable[..., Resource],
    make_booking: Callable[..., Booking],
) -> None:
    """A deactivated resource's bookings stay as they were."""
    resource = make_resource(tenant)
    booking = make_booking(tenant, contact.id, make_booking_type(tenant).id, datetime(2026, 1, 2, 10, tzinfo=UTC))

    api.post(f"/bookings/resources/{resource.id}/deactivate")

    data = api.get(f"/bookings/{booking.id}").json()["data"]
    assert (data["status"], data["resource_id"]) == ("confirmed", resource.id)


# -- working hours ----------------------------------------------------------------------------------


def test_hours_default_to_round_the_clock_utc(api: Api) -> None:
    """A workspace that never set its hours is open 00:00-24:00 every day, in UTC."""
    data = api.get("/bookings/working-hours").json()["data"]

    assert data == {
        "timezone": "UTC",
        "weekly": {day: [{"opens": "00:00", "closes": "24:00"}] for day in WEEKDAYS},
        "exceptions": [],
    }


def test_put_hours_replaces_them_and_reads_back(api: Api) -> None:
    """`PUT /bookings/working-hours` stores the timezone, weekly hours and exceptions; days left out are closed."""
    document = {
        "timezone": "Europe/Berlin",
        "weekly": {"monday": OFFICE, "friday": [{"opens": "09:00", "closes": "13:00"}]},
        "exceptions": [{"date": "2026-12-25", "openings": []}],
    }

    stored = api.put("/bookings/working-hours", json=document)

    expected = {
        "timezone": "Europe/Berlin",
        "weekly": {day: [] for day in WEEKDAYS} | document["weekly"],
        "exceptions": [{"date": "2026-12-25", "openings": []}],
    }
    assert (stored.status_code, stored.json()["data"]) == (200, expected)
    assert api.get("/bookings/working-hours").json()["data"] == expected


@pytest.mark.parametrize(
    ("document", "key"),
    [
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"timezone": "UTC", "weekly": {"monday": [{"opens": "10:00", "closes": "09:00"}]}}, "weekly.monday.0.closes"),
        ({"timezone": "UTC", "weekly": {"monday": [{"opens": "25:00", "closes": "26:00"}]}}, "weekly.monday.0.opens"),
        (
            {
                "timezone": "UTC",
                "weekly": {"monday": [{"opens": "09:00", "closes": "12:00"}, {"opens": "11:00", "closes": "13:00"}]},
            },
            "weekly.monday.1",
        ),
        ({"timezone": "UTC", "weekly": {"funday": []}}, "weekly"),
        ({"timezone": "UTC", "exceptions": [{"date": "2026-02-30"}]}, "exceptions.0.date"),
    ],
)
def test_invalid_hours_are_422_at_the_right_place(api: Api, document: dict[str, Any], key: str) -> None:
    """A bad timezone, an opening that ends before it opens, an impossible time, overlapping openings,
    an unknown weekday or date are refused, naming the place; nothing is stored."""
    response = api.put("/bookings/working-hours", json=document)

    assert response.status_code == 422
    assert key in response.json()["errors"], response.json()["errors"]
    assert api.get("/bookings/working-hours").json()["data"]["timezone"] == "UTC"


def test_put_timezone_keeps_the_hours(api: Api) -> None:
    """`PUT /bookings/working-hours/timezone` changes the zone and keeps the weekly hours."""
    api.put("/bookings/working-hours", json={"timezone": "UTC", "weekly": {"monday": OFFICE}})

    data = api.put("/bookings/working-hours/timezone", json={"timezone": "America/New_York"}).json()["data"]

    assert (data["timezone"], data["weekly"]["monday"]) == ("America/New_York", OFFICE)


# -- a resource's own hours -------------------------------------------------------------------------


def test_a_resource_follows_the_workspace_until_given_hours(
    api: Api, tenant: Tenant, make_resource: Callable[..., Resource]
) -> None:
    """`schedule` is null, then the hours put, then null again after DELETE (204)."""
    resource = make_resource(tenant)
    path = f"/bookings/resources/{resource.id}/working-hours"

    before = api.get(path).json()["data"]
    put = api.put(path, json={"weekly": {"saturday": [{"opens": "10:00", "closes": "14:00"}]}}).json()["data"]
    deleted = api.delete(path)
    after = api.get(path).json()["data"]

    assert before == after == {"resource_id": resource.id, "schedule": None}
    assert put["schedule"]["weekly"]["saturday"] == [{"opens": "10:00", "closes": "14:00"}]
    assert (deleted.status_code, deleted.content) == (204, b"")


def test_hours_of_an_unknown_resource_are_404(api: Api) -> None:
    """Every resource-hours route answers 404 for a resource the workspace does not have."""
    path = "/bookings/resources/999/working-hours"

    answers = [api.get(path), api.put(path, json={}), api.delete(path)]

    assert [a.status_code for a in answers] == [404, 404, 404]
