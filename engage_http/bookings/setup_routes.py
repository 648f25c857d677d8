"""Booking setup: a workspace's booking types, resources, timezone and working hours.

SPEC 4 only reads types and resources; these routes let a workspace set itself up. Types and
resources are never deleted (bookings point at them): deactivating one stops new bookings and
availability for it, and leaves its bookings as they are. Changing hours, the timezone or a
duration never moves an existing booking; only new bookings and reschedules are checked against
the new setup.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.bookings import setup
from engage_core.bookings import working_hours as hours
from engage_http.bookings.setup_schemas import (
    BookingType,
    BookingTypeCreate,
    BookingTypeUpdate,
    Resource,
    ResourceCreate,
    ResourceHours,
    ResourceUpdate,
    Schedule,
    TimezoneUpdate,
    WorkingHours,
    WorkingHoursUpdate,
)
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Booking setup"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (an IANA timezone name, openings that overlap or close before they open, a repeated date)."""

_HOURS = (
    "Times are wall-clock `HH:MM` in the workspace's timezone, `closes` after `opens` (`24:00` is the day's "
    "end); a day's openings neither overlap nor touch, and the gaps between them are breaks. Exceptions "
    "replace the weekly hours of their date (no openings: closed). Errors name the place, e.g. "
    "`weekly.monday.1.closes` or `exceptions.0.date`."
)


# -- booking types --------------------------------------------------------------------------------


def list_types(call: Call[None, None]) -> Sequence[setup.BookingType]:
    return call.services.booking_setup.list_types(call.account_id)


def create_type(call: Call[setup.BookingTypeInput, None]) -> setup.BookingType:
    return call.services.booking_setup.create_type(call.account_id, call.body)


def show_type(call: Call[None, None]) -> setup.BookingType:
    return call.services.booking_setup.get_type(call.account_id, call.path["id"])


def update_type(call: Call[setup.BookingTypePatch, None]) -> setup.BookingType:
    return call.services.booking_setup.update_type(call.account_id, call.path["id"], call.body)


def deactivate_type(call: Call[None, None]) -> setup.BookingType:
    return call.services.booking_setup.deactivate_type(call.account_id, call.path["id"])


# -- resources ------------------------------------------------------------------------------------


def list_resources(call: Call[None, None]) -> Sequence[setup.Resource]:
    return call.services.booking_setup.list_resources(call.account_id)


def create_resource(call: Call[setup.ResourceInput, None]) -> setup.Resource:
    return call.services.booking_setup.create_resource(call.account_id, call.body)


def show_resource(call: Call[None, None]) -> setup.Resource:
    return call.services.booking_setup.get_resource(call.account_id, call.path["id"])


def update_resource(call: Call[setup.ResourcePatch, None]) -> setup.Resource:
    return call.services.booking_setup.update_resource(call.account_id, call.path["id"], call.body)


def deactivate_resource(call: Call[None, None]) -> setup.Resource:
    return call.services.booking_setup.deactivate_resource(call.account_id, call.path["id"])


# -- hours ----------------------------------------------------------------------------------------


def show_hours(call: Call[None, None]) -> WorkingHours:
    return WorkingHours.from_domain(call.services.booking_setup.working_hours(call.account_id))


def set_hours(call: Call[hours.WorkingHoursInput, None]) -> WorkingHours:
    return WorkingHours.from_domain(call.services.booking_setup.set_working_hours(call.account_id, call.body))


def set_timezone(call: Call[TimezoneUpdate, None]) -> WorkingHours:
    stored = call.services.booking_setup.set_timezone(call.account_id, call.body.timezone)
    return WorkingHours.from_domain(stored)


def show_resource_hours(call: Call[None, None]) -> ResourceHours:
    resource_id = call.path["id"]
    return ResourceHours.from_domain(
        resource_id, call.services.booking_setup.resource_hours(call.account_id, resource_id)
    )


def set_resource_hours(call: Call[hours.ScheduleInput, None]) -> ResourceHours:
    resource_id = call.path["id"]
    stored = call.services.booking_setup.set_resource_hours(call.account_id, resource_id, call.body)
    return ResourceHours.from_domain(resource_id, stored)


def clear_resource_hours(call: Call[None, None]) -> None:
    call.services.booking_setup.clear_resource_hours(call.account_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/bookings/types",
        list_types,
        "List booking types",
        TAG,
        BookingType,
        Shape.MANY,
        message="Booking types retrieved.",
        description="Every type of the workspace, active or not, by id.",
    ),
    Operation(
        "POST",
        "/bookings/types",
        create_type,
        "Create a booking type",
        TAG,
        BookingType,
        status=201,
        message="Booking type created.",
        body=BookingTypeCreate,
        errors=RULES,
    ),
    Operation("GET", "/bookings/types/{id:id}", show_type, "Get a booking type", TAG, BookingType),
    Operation(
        "PUT",
        "/bookings/types/{id:id}",
        update_type,
        "Update a booking type",
        TAG,
        BookingType,
        message="Booking type updated.",
        body=BookingTypeUpdate,
        errors=RULES,
        description="A new `duration_minutes` applies to bookings made from now on; existing bookings keep "
        "their times. `is_active` false works like deactivating.",
    ),
    Operation(
        "POST",
        "/bookings/types/{id:id}/deactivate",
        deactivate_type,
        "Deactivate a booking type",
        TAG,
        BookingType,
        message="Booking type deactivated.",
        description="No new bookings or availability of this type; its bookings stay. Types are never deleted. "
        "Deactivating an inactive type changes nothing.",
    ),
    Operation(
        "GET",
        "/bookings/resources",
        list_resources,
        "List resources",
        TAG,
        Resource,
        Shape.MANY,
        message="Resources retrieved.",
        description="Every bookable resource of the workspace, active or not, by id.",
    ),
    Operation(
        "POST",
        "/bookings/resources",
        create_resource,
        "Create a resource",
        TAG,
        Resource,
        status=201,
        message="Resource created.",
        body=ResourceCreate,
        errors=RULES,
        description="From the first active resource on, every new booking takes a resource (the one named, or "
        "the first free one).",
    ),
    Operation("GET", "/bookings/resources/{id:id}", show_resource, "Get a resource", TAG, Resource),
    Operation(
        "PUT",
        "/bookings/resources/{id:id}",
        update_resource,
        "Update a resource",
        TAG,
        Resource,
        message="Resource updated.",
        body=ResourceUpdate,
        errors=RULES,
    ),
    Operation(
        "POST",
        "/bookings/resources/{id:id}/deactivate",
        deactivate_resource,
        "Deactivate a resource",
        TAG,
        Resource,
        message="Resource deactivated.",
        description="No new bookings on this resource; its bookings stay (and can no longer be rescheduled: "
        "cancel and book them again). Resources are never deleted.",
    ),
    Operation(
        "GET",
        "/bookings/resources/{id:id}/working-hours",
        show_resource_hours,
        "Get a resource's own hours",
        TAG,
        ResourceHours,
        description="`schedule` is null while the resource follows the workspace's hours.",
    ),
    Operation(
        "PUT",
        "/bookings/resources/{id:id}/working-hours",
        set_resource_hours,
        "Set a resource's own hours",
        TAG,
        ResourceHours,
        message="Resource hours updated.",
        body=Schedule,
        errors=RULES,
        description="Replaces the workspace's weekly hours for this resource. On a date, the resource's "
        "exception comes first, then the workspace's (a workspace holiday closes every resource), then the "
        "resource's weekly hours. " + _HOURS,
    ),
    Operation(
        "DELETE",
        "/bookings/resources/{id:id}/working-hours",
        clear_resource_hours,
        "Clear a resource's own hours",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="The resource follows the workspace's hours again.",
    ),
    Operation(
        "GET",
        "/bookings/working-hours",
        show_hours,
        "Get the working hours",
        TAG,
        WorkingHours,
        description="The workspace's timezone and hours. A workspace that never set them is open around the "
        "clock in `UTC`.",
    ),
    Operation(
        "PUT",
        "/bookings/working-hours",
        set_hours,
        "Set the working hours",
        TAG,
        WorkingHours,
        message="Working hours updated.",
        body=WorkingHoursUpdate,
        errors=RULES,
        description="Replaces the workspace's timezone and hours; a weekday left out is closed. " + _HOURS,
    ),
    Operation(
        "PUT",
        "/bookings/working-hours/timezone",
        set_timezone,
        "Set the timezone",
        TAG,
        WorkingHours,
        message="Timezone updated.",
        body=TimezoneUpdate,
        errors=RULES,
        description="Changes only the timezone (an IANA name such as `Europe/Berlin`): the hours stay the same "
        "wall-clock times, now read in the new zone. Existing bookings keep their instants.",
    ),
    feature="booking",
    write_lane=True,
)
