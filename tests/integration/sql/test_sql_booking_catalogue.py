"""Booking types and resources through the SQL repositories and BookingSetupService
(reference: engage_core.testing)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from engage_core.bookings.catalogue import (
    BookingType,
    BookingTypeDraft,
    BookingTypeInput,
    BookingTypePatch,
    Resource,
    ResourceDraft,
    ResourceInput,
    ResourcePatch,
)
from engage_core.kernel.errors import NotFound
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.bookings.tables import booking_types

from .conftest import START

LATER = START + timedelta(minutes=5)


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add_type(database: Database, account: int, draft: BookingTypeDraft) -> BookingType:
    with database.uow.workspace(account) as uow:
        added = uow.booking_types.add(draft, START)
        uow.commit()
    return added


def _add_resource(database: Database, account: int, draft: ResourceDraft) -> Resource:
    with database.uow.workspace(account) as uow:
        added = uow.resources.add(draft, START)
        uow.commit()
    return added


def _types(database: Database, account: int) -> list[BookingType]:
    with database.uow.workspace(account, readonly=True) as uow:
        return list(uow.booking_types.list())


def _resources(database: Database, account: int) -> list[Resource]:
    with database.uow.workspace(account, readonly=True) as uow:
        return list(uow.resources.list())


# -- booking types ----------------------------------------------------------------------------------


def test_added_type_reads_back_equal(database: Database, account: int) -> None:
    """Every field of a booking type survives the round trip."""
    added = _add_type(database, account, BookingTypeDraft("Consultation", 45, "First visit", is_active=False))

    with database.uow.workspace(account, readonly=True) as uow:
        stored = uow.booking_types.get(added.id)

    assert stored == added == BookingType(added.id, "Consultation", 45, "First visit", False, START, START)


def test_types_list_in_ascending_id_active_or_not(database: Database, account: int) -> None:
    """`list` holds every type of the account, inactive ones included, by id."""
    first = _add_type(database, account, BookingTypeDraft("B", 30, is_active=False))
    second = _add_type(database, account, BookingTypeDraft("A", 60))

    assert _types(database, account) == [first, second]


def test_a_type_update_stores_the_fields_and_keeps_created_at(database: Database, account: int) -> None:
    """`update` stores name, duration, description, active flag and `updated_at`."""
    added = _add_type(database, account, BookingTypeDraft("Consultation", 45, "First visit"))
    changed = attrs.evolve(
        added, name="Check-up", duration_minutes=20, description=None, is_active=False, updated_at=LATER
    )

    with database.uow.workspace(account) as uow:
        uow.booking_types.update(changed)
        uow.commit()

    assert _types(database, account) == [changed]


def test_types_are_scoped_to_their_account(database: Database, account: int, other: int) -> None:
    """Another account neither lists, reads nor updates a type."""
    added = _add_type(database, account, BookingTypeDraft("Consultation", 45))

    with database.uow.workspace(other) as uow:
        seen = (uow.booking_types.get(added.id), list(uow.booking_types.list()))
        uow.booking_types.update(attrs.evolve(added, name="Hijacked"))
        uow.commit()

    assert (seen, _types(database, account)) == ((None, []), [added])


def test_the_schema_refuses_a_duration_beyond_a_day(database: Database, account: int) -> None:
    """`duration_minutes` is checked from 1 to 1440 by the table too."""
    row = {"account_id": account, "name": "Too long", "duration_minutes": 1441, "is_active": True}

    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(insert(booking_types).values(created_at=START, updated_at=START, **row))


# -- resources --------------------------------------------------------------------------------------


def test_added_resource_reads_back_equal(database: Database, account: int) -> None:
    """Every field of a resource survives the round trip."""
    added = _add_resource(database, account, ResourceDraft("Room 1", "room", is_active=False))

    with database.uow.workspace(account, readonly=True) as uow:
        stored = uow.resources.get(added.id)

    assert stored == added == Resource(added.id, "Room 1", "room", False, START, START)


def test_resources_list_in_ascending_id_active_or_not(database: Database, account: int) -> None:
    """`list` holds every resource of the account, inactive ones included, by id."""
    first = _add_resource(database, account, ResourceDraft("Zed", "staff", is_active=False))
    second = _add_resource(database, account, ResourceDraft("Ada", "staff"))

    assert _resources(database, account) == [first, second]


def test_a_resource_update_stores_the_fields(database: Database, account: int) -> None:
    """`update` stores name, type, active flag and `updated_at`, keeping `created_at`."""
    added = _add_resource(database, account, ResourceDraft("Room 1", "room"))
    changed = attrs.evolve(added, name="Room 2", type="hall", is_active=False, updated_at=LATER)

    with database.uow.workspace(account) as uow:
        uow.resources.update(changed)
        uow.commit()

    assert _resources(database, account) == [changed]


def test_resources_are_scoped_to_their_account(database: Database, account: int, other: int) -> None:
    """Another account neither lists, reads nor updates a resource."""
    added = _add_resource(database, account, ResourceDraft("Room 1", "room"))

    with database.uow.workspace(other) as uow:
        seen = (uow.resources.get(added.id), list(uow.resources.list()))
        uow.resources.update(attrs.evolve(added, name="Hijacked"))
        uow.commit()

    assert (seen, _resources(database, account)) == ((None, []), [added])


# -- through the service ----------------------------------------------------------------------------


def test_setup_service_creates_updates_and_deactivates_a_type(
    services: Services, database: Database, account: int, clock: FakeClock
) -> None:
    """Created, renamed and deactivated through the service, the stored type follows each step."""
    created = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 30))
    clock.advance(minutes=1)
    services.booking_setup.update_type(account, created.id, BookingTypePatch(name="Check-up"))
    clock.advance(minutes=1)
    services.booking_setup.deactivate_type(account, created.id)

    stored = services.booking_setup.get_type(account, created.id)
    assert (stored.name, stored.is_active, stored.created_at, stored.updated_at) == (
        "Check-up",
        False,
        START,
        START + timedelta(minutes=2),
    )


def test_setup_service_lists_active_resources_only_when_asked(services: Services, account: int) -> None:
    """`active_only` leaves deactivated resources out; without it they are listed."""
    kept = services.booking_setup.create_resource(account, ResourceInput("Ada", "staff"))
    gone = services.booking_setup.create_resource(account, ResourceInput("Room 1", "room"))
    services.booking_setup.update_resource(account, gone.id, ResourcePatch(is_active=False))

    assert (
        [r.id for r in services.booking_setup.list_resources(account, active_only=True)],
        [r.id for r in services.booking_setup.list_resources(account)],
    ) == ([kept.id], [kept.id, gone.id])


def test_another_accounts_type_is_not_found(services: Services, account: int, other: int) -> None:
    """The service answers NotFound for a type of another account."""
    created = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 30))

    with pytest.raises(NotFound):
        services.booking_setup.get_type(other, created.id)
