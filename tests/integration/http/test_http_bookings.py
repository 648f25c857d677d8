"""Bookings (SPEC 3, 4): booking, reading, listing with filters, rescheduling, the status moves and
their events, over the in-memory fakes."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.bookings.model import Booking
from engage_core.bookings.setup import BookingType, Resource
from engage_core.contacts.model import Contact
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""The conftest clock's time (a Thursday)."""
TOMORROW_10 = "2026-01-02T10:00:00Z"
TEN = datetime(2026, 1, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def contact(tenant: Tenant, make_contact: Callable[..., Contact]) -> Contact:
    return make_contact(tenant, name="Ada Lovelace", phone="+14155552671", email="ada@example.com")


@pytest.fixture
def consultation(tenant: Tenant, make_booking_type: Callable[..., BookingType]) -> BookingType:
    return make_booking_type(tenant, name="Consultation", duration_minutes=45)


@pytest.fixture
def book(
    tenant: Tenant, contact: Contact, consultation: BookingType, make_booking: Callable[..., Booking]
) -> Callable[..., Booking]:
    """`book(starts_at=TEN, **fields)`: a booking of the consultation for Ada."""

    def make(starts_at: datetime = TEN, **fields: Any) -> Booking:
        return make_booking(tenant, contact.id, consultation.id, starts_at, **fields)

    return make


def body(contact: Contact, booking_type: BookingType, **fields: Any) -> dict[str, Any]:
    return {"contact_id": contact.id, "booking_type_id": booking_type.id, "starts_at": TOMORROW_10} | fields


def booking_events(uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> list[tuple[str, dict[str, Any]]]:
    return [(e.name, dict(e.payload)) for e in uow.store.events(tenant.account_id) if e.name.startswith("booking.")]


# -- creating ---------------------------------------------------------------------------------------


def test_create_answers_201_with_the_spec_fields(api: Api, contact: Contact, consultation: BookingType) -> None:
    """`POST /bookings` answers 201 with id, contact, type, times (ends_at from the duration) and status."""
    response = api.post("/bookings", json=body(contact, consultation))

    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert {k: data[k] for k in ("contact_id", "booking_type_id", "starts_at", "ends_at", "status")} == {
        "contact_id": contact.id,
        "booking_type_id": consultation.id,
        "starts_at": "2026-01-02T10:00:00.000000Z",
        "ends_at": "2026-01-02T10:45:00.000000Z",
        "status": "confirmed",
    }
    assert (data["title"], data["resource_id"], response.json()["message"]) == (
        "Consultation with Ada Lovelace",
        None,
        "Booking created.",
    )


def test_an_offset_starts_at_means_the_same_instant(api: Api, contact: Contact, consultation: BookingType) -> None:
    """`starts_at` with an offset (11:00+01:00) is stored as the instant (10:00Z)."""
    response = api.post("/bookings", json=body(contact, consultation, starts_at="2026-01-02T11:00:00+01:00"))

    assert response.json()["data"]["starts_at"] == "2026-01-02T10:00:00.000000Z"


def test_a_starts_at_without_timezone_is_422(api: Api, contact: Contact, consultation: BookingType) -> None:
    """A naive timestamp cannot be placed on a clock: 422 on `starts_at`, nothing stored."""
    response = api.post("/bookings", json=body(contact, consultation, starts_at="2026-01-02T10:00:00"))

    assert response.status_code == 422
    assert "timezone" in response.json()["errors"]["starts_at"][0]
    assert api.get("/bookings").json()["meta"]["total"] == 0


def test_a_malformed_starts_at_is_422(api: Api, contact: Contact, consultation: BookingType) -> None:
    """Text that is no ISO 8601 timestamp is a 422 on `starts_at`."""
    response = api.post("/bookings", json=body(contact, consultation, starts_at="tomorrow at ten"))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["starts_at"])


def test_missing_required_fields_are_named(api: Api) -> None:
    """`contact_id`, `booking_type_id` and `starts_at` are required."""
    response = api.post("/bookings", json={})

    assert (response.status_code, sorted(response.json()["errors"])) == (
        422,
        ["booking_type_id", "contact_id", "starts_at"],
    )


def test_a_booking_in_the_past_is_422(api: Api, contact: Contact, consultation: BookingType) -> None:
    """A booking that starts before now is refused on `starts_at`."""
    response = api.post("/bookings", json=body(contact, consultation, starts_at="2026-01-01T11:00:00Z"))

    assert response.status_code == 422
    assert response.json()["errors"]["starts_at"] == ["A booking cannot start in the past."]


def test_another_accounts_contact_or_type_is_422(
    api: Api,
    make_tenant: Callable[..., Tenant],
    make_contact: Callable[..., Contact],
    make_booking_type: Callable[..., BookingType],
    contact: Contact,
    consultation: BookingType,
) -> None:
    """A body naming another account's contact or booking type is refused on that field."""
    other = make_tenant("Other")
    their_contact, their_type = make_contact(other), make_booking_type(other)

    by_contact = api.post("/bookings", json=body(their_contact, consultation))
    by_type = api.post("/bookings", json=body(contact, their_type))

    assert (by_contact.status_code, list(by_contact.json()["errors"])) == (422, ["contact_id"])
    assert (by_type.status_code, list(by_type.json()["errors"])) == (422, ["booking_type_id"])


def test_a_taken_slot_on_a_resource_is_422_with_a_clear_message(
    api: Api,
    tenant: Tenant,
    contact: Contact,
    consultation: BookingType,
    make_resource: Callable[..., Resource],
) -> None:
    """Booking an overlapping time on the same resource is a 422 naming the resource and the clash."""
    ada = make_resource(tenant, name="Dr Ada")
    api.post("/bookings", json=body(contact, consultation, resource_id=ada.id))

    response = api.post(
        "/bookings", json=body(contact, consultation, resource_id=ada.id, starts_at="2026-01-02T10:30:00Z")
    )

    assert response.status_code == 422
    assert response.json()["errors"]["starts_at"] == [
        "Dr Ada is already booked: a booking holds 2026-01-02 10:00-10:45 (UTC), which overlaps "
        "2026-01-02 10:30-11:15 (UTC); choose another time or resource."
    ]


def test_without_resource_id_the_first_free_resource_is_taken(
    api: Api,
    tenant: Tenant,
    contact: Contact,
    consultation: BookingType,
    make_resource: Callable[..., Resource],
) -> None:
    """With resources in use and none named, each booking of one slot takes the next free resource, then 422."""
    first, second = make_resource(tenant), make_resource(tenant)

    answers = [api.post("/bookings", json=body(contact, consultation)) for _ in range(3)]

    assert [a.json()["data"]["resource_id"] for a in answers[:2]] == [first.id, second.id]
    assert answers[2].status_code == 422
    assert "Every resource is already booked" in answers[2].json()["errors"]["starts_at"][0]


def test_a_pending_booking_can_be_asked_for(api: Api, contact: Contact, consultation: BookingType) -> None:
    """`status` `pending` creates a booking that awaits confirmation."""
    response = api.post("/bookings", json=body(contact, consultation, status="pending"))

    assert response.json()["data"]["status"] == "pending"


def test_creating_emits_booking_created_with_the_spec_payload(
    api: Api,
    tenant: Tenant,
    contact: Contact,
    consultation: BookingType,
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """`booking.created` carries SPEC 6's fields, date and times in the workspace's timezone."""
    api.put("/bookings/working-hours/timezone", json={"timezone": "Europe/Berlin"})
    booking_id = api.post("/bookings", json=body(contact, consultation, notes="First visit")).json()["data"]["id"]

    [(name, payload)] = booking_events(uow, tenant)

    assert name == "booking.created"
    expected = {
        "id": booking_id,
        "status": "confirmed",
        "customer_name": "Ada Lovelace",
        "customer_phone": "+14155552671",
        "customer_email": "ada@example.com",
        "booking_date": "2026-01-02",
        "start_time": "11:00",
        "end_time": "11:45",
        "guest_count": None,
        "notes": "First visit",
        "booking_type_id": consultation.id,
        "booking_resource_id": None,
        "contact_id": contact.id,
        "cancelled_at": None,
        "cancellation_reason": None,
    }
    assert payload.items() >= expected.items()


# -- reading and listing ----------------------------------------------------------------------------


def test_show_returns_the_booking(api: Api, book: Callable[..., Booking]) -> None:
    """`GET /bookings/{id}` answers the booking's fields."""
    booking = book(notes="Bring forms")

    data = api.get(f"/bookings/{booking.id}").json()["data"]

    assert (data["id"], data["notes"], data["status"], data["cancelled_at"]) == (
        booking.id,
        "Bring forms",
        "confirmed",
        None,
    )


def test_an_unknown_booking_is_404(api: Api) -> None:
    """An id the workspace does not have answers 404."""
    assert api.get("/bookings/999").status_code == 404


def test_list_is_by_start_with_meta(api: Api, book: Callable[..., Booking]) -> None:
    """`GET /bookings` lists by `starts_at` with `meta` (default 15 per page)."""
    late, early = book(TEN + timedelta(hours=2)), book(TEN)

    response = api.get("/bookings").json()

    assert [b["id"] for b in response["data"]] == [early.id, late.id]
    assert response["meta"] == {"current_page": 1, "per_page": 15, "total": 2, "last_page": 1}


def test_list_filters_by_status_and_contact(
    api: Api,
    tenant: Tenant,
    book: Callable[..., Booking],
    make_contact: Callable[..., Contact],
    make_booking: Callable[..., Booking],
    consultation: BookingType,
) -> None:
    """`status` and `contact_id` keep only the matching bookings."""
    pending = book(status="pending")
    other = make_booking(tenant, make_contact(tenant).id, consultation.id, TEN + timedelta(hours=1))

    by_status = api.get("/bookings", params={"status": "pending"}).json()["data"]
    by_contact = api.get("/bookings", params={"contact_id": other.contact_id}).json()["data"]

    assert ([b["id"] for b in by_status], [b["id"] for b in by_contact]) == ([pending.id], [other.id])


def test_from_and_to_bound_the_start_both_included(api: Api, book: Callable[..., Booking]) -> None:
    """`from` and `to` keep bookings starting between them, the bounds included, offsets honoured."""
    ids = [book(TEN + timedelta(hours=n)).id for n in range(4)]

    response = api.get("/bookings", params={"from": "2026-01-02T12:00:00+01:00", "to": "2026-01-02T12:00:00Z"})

    assert [b["id"] for b in response.json()["data"]] == ids[1:3]


def test_a_naive_from_or_to_is_422(api: Api) -> None:
    """`from` and `to` without a timezone are refused, each named."""
    response = api.get("/bookings", params={"from": "2026-01-02T10:00:00", "to": "2026-01-02"})

    assert (response.status_code, sorted(response.json()["errors"])) == (422, ["from", "to"])


def test_to_before_from_is_422(api: Api) -> None:
    """A range that ends before it starts is refused on `to`."""
    response = api.get("/bookings", params={"from": "2026-01-03T00:00:00Z", "to": "2026-01-02T00:00:00Z"})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["to"])


def test_an_unknown_status_filter_is_422(api: Api) -> None:
    """`status` must be one of the four booking statuses."""
    assert api.get("/bookings", params={"status": "done"}).status_code == 422


# -- rescheduling -----------------------------------------------------------------------------------


def test_put_starts_at_reschedules_keeping_the_length(
    api: Api, tenant: Tenant, book: Callable[..., Booking], uow: InMemoryUnitOfWorkFactory
) -> None:
    """A new `starts_at` moves the booking (45 minutes still) and emits `booking.updated`."""
    booking = book()

    response = api.put(f"/bookings/{booking.id}", json={"starts_at": "2026-01-02T15:00:00Z"})

    data = response.json()["data"]
    assert (response.status_code, data["starts_at"], data["ends_at"]) == (
        200,
        "2026-01-02T15:00:00.000000Z",
        "2026-01-02T15:45:00.000000Z",
    )
    assert [name for name, _ in booking_events(uow, tenant)] == ["booking.created", "booking.updated"]


def test_a_reschedule_onto_a_taken_slot_is_422_and_changes_nothing(
    api: Api, tenant: Tenant, book: Callable[..., Booking], make_resource: Callable[..., Resource]
) -> None:
    """Rescheduling into another booking's time on the same resource is refused; the booking stays."""
    make_resource(tenant)
    first, second = book(TEN), book(TEN + timedelta(hours=2))

    response = api.put(f"/bookings/{second.id}", json={"starts_at": "2026-01-02T10:15:00Z"})

    assert (response.status_code, first.resource_id == second.resource_id) == (422, True)
    assert api.get(f"/bookings/{second.id}").json()["data"]["starts_at"] == "2026-01-02T12:00:00.000000Z"


def test_put_notes_alone_changes_only_the_notes(api: Api, book: Callable[..., Booking]) -> None:
    """`notes` without `starts_at` keeps the time."""
    booking = book()

    data = api.put(f"/bookings/{booking.id}", json={"notes": "Parking at the back"}).json()["data"]

    assert (data["notes"], data["starts_at"]) == ("Parking at the back", "2026-01-02T10:00:00.000000Z")


def test_an_unchanged_put_emits_nothing(
    api: Api, tenant: Tenant, book: Callable[..., Booking], uow: InMemoryUnitOfWorkFactory
) -> None:
    """A PUT that changes nothing answers 200 and emits no event."""
    booking = book()
    before = copy.deepcopy(uow.store.state)

    response = api.put(f"/bookings/{booking.id}", json={"starts_at": "2026-01-02T10:00:00Z"})

    assert (response.status_code, uow.store.state == before) == (200, True)


# -- the status moves -------------------------------------------------------------------------------


def test_cancel_answers_id_status_and_message(
    api: Api, tenant: Tenant, book: Callable[..., Booking], uow: InMemoryUnitOfWorkFactory
) -> None:
    """`POST /bookings/{id}/cancel` with no body cancels, and emits updated then cancelled."""
    booking = book()

    response = api.post(f"/bookings/{booking.id}/cancel")

    payload = response.json()
    assert (response.status_code, payload["data"]["id"], payload["data"]["status"], payload["message"]) == (
        200,
        booking.id,
        "cancelled",
        "Booking cancelled.",
    )
    assert payload["data"]["cancelled_at"] == "2026-01-01T12:00:00.000000Z"
    assert [name for name, _ in booking_events(uow, tenant)][1:] == ["booking.updated", "booking.cancelled"]


def test_cancel_records_the_reason_in_the_cancelled_event(
    api: Api, tenant: Tenant, book: Callable[..., Booking], uow: InMemoryUnitOfWorkFactory
) -> None:
    """A cancel `reason` becomes `cancellation_reason`; `booking.cancelled` has SPEC 6's shorter list."""
    booking = book()

    api.post(f"/bookings/{booking.id}/cancel", json={"reason": "Feeling ill"})

    _, cancelled = booking_events(uow, tenant)[-1]
    assert sorted(cancelled) == sorted(
        [
            "id", "status", "customer_name", "customer_phone", "booking_date", "start_time", "cancelled_at",
            "cancellation_reason", "created_at", "updated_at",
        ]
    )  # fmt: skip
    assert (cancelled["status"], cancelled["cancellation_reason"]) == ("cancelled", "Feeling ill")


def test_cancelling_twice_is_422(api: Api, book: Callable[..., Booking]) -> None:
    """A cancelled booking is final: a second cancel is a 422 on `status`."""
    booking = book()
    api.post(f"/bookings/{booking.id}/cancel")

    response = api.post(f"/bookings/{booking.id}/cancel")

    assert (response.status_code, list(response.json()["errors"])) == (422, ["status"])


def test_confirm_moves_pending_to_confirmed(api: Api, book: Callable[..., Booking]) -> None:
    """`POST /bookings/{id}/confirm` confirms a pending booking."""
    booking = book(status="pending")

    response = api.post(f"/bookings/{booking.id}/confirm")

    assert (response.status_code, response.json()["data"]["status"]) == (200, "confirmed")


def test_confirming_a_confirmed_booking_is_422(api: Api, book: Callable[..., Booking]) -> None:
    """Only a pending booking can be confirmed."""
    booking = book()

    assert api.post(f"/bookings/{booking.id}/confirm").status_code == 422


def test_complete_after_the_start_emits_booking_completed(
    api: Api, tenant: Tenant, book: Callable[..., Booking], clock: FakeClock, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Once the booking has started, `complete` marks it completed and emits `booking.completed`."""
    booking = book()
    clock.set(TEN + timedelta(minutes=50))

    response = api.post(f"/bookings/{booking.id}/complete")

    assert (response.status_code, response.json()["data"]["status"]) == (200, "completed")
    name, payload = booking_events(uow, tenant)[-1]
    assert (name, payload["status"], payload["start_time"]) == ("booking.completed", "completed", "10:00")


def test_completing_before_the_start_is_422(api: Api, book: Callable[..., Booking]) -> None:
    """A booking that has not started cannot be completed yet."""
    booking = book()

    response = api.post(f"/bookings/{booking.id}/complete")

    assert response.status_code == 422
    assert "once it has started" in response.json()["errors"]["status"][0]


def test_a_cancelled_booking_frees_its_slot(
    api: Api, tenant: Tenant, contact: Contact, consultation: BookingType, make_resource: Callable[..., Resource]
) -> None:
    """After a cancel, the same slot on the same resource can be booked again."""
    room = make_resource(tenant)
    first = api.post("/bookings", json=body(contact, consultation, resource_id=room.id)).json()["data"]
    api.post(f"/bookings/{first['id']}/cancel")

    again = api.post("/bookings", json=body(contact, consultation, resource_id=room.id))

    assert again.status_code == 201
