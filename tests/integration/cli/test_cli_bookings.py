"""`engage bookings ...` on a temporary SQLite database: booking types, resources, working hours and
completing a booking."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from engage_core.bookings.booking_service import BookingInput
from engage_core.bookings.setup import BookingTypeInput
from engage_core.contacts.model import ContactInput
from engage_core.services import Services
from engage_core.testing import FakeClock

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]

OFFICE = {"weekly": {"monday": [{"opens": "09:00", "closes": "12:00"}, {"opens": "13:00", "closes": "17:00"}]}}


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[Any], str]:
    """`write_json(document)`: the path of a file holding `document` as JSON."""
    counter = iter(range(1, 1000))

    def write(document: Any) -> str:
        path = tmp_path / f"hours-{next(counter)}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return str(path)

    return write


@pytest.fixture
def services_at(database_url: str) -> Iterator[Callable[[datetime], Services]]:
    """`services_at(moment)`: the services over the test database with the clock standing at `moment`."""
    from engage_sql import Database

    opened: list[Database] = []

    def open_(moment: datetime) -> Services:
        database = Database.connect(database_url)
        opened.append(database)
        return Services.build(database.uow, FakeClock(moment))

    yield open_
    for database in opened:
        database.dispose()


def run_json(run_cli: RunCli, *args: str) -> Any:
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- booking types ----------------------------------------------------------------------------------


def test_types_create_prints_the_type(run_cli: RunCli, account_id: int) -> None:
    """`types create` stores the type and says so on one line."""
    result = run_cli("bookings", "types", "create", str(account_id), "--name", "Consultation", "--duration", "30")

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Created booking type ") and "(Consultation, 30 minutes)" in result.stdout


def test_types_create_json_is_the_api_object(run_cli: RunCli, account_id: int) -> None:
    """With `--json`, `types create` prints the type as the API shows it."""
    data = run_json(run_cli, "bookings", "types", "create", str(account_id), "--name", "Check-up", "--duration", "20")

    assert {k: data[k] for k in ("name", "duration_minutes", "description", "is_active")} == {
        "name": "Check-up",
        "duration_minutes": 20,
        "description": None,
        "is_active": True,
    }


def test_types_list_shows_a_table(run_cli: RunCli, account_id: int) -> None:
    """`types list` prints one row per type, inactive ones included."""
    run_cli("bookings", "types", "create", str(account_id), "--name", "Consultation", "--duration", "30")
    run_cli("bookings", "types", "create", str(account_id), "--name", "Old", "--duration", "15", "--inactive")

    lines = run_cli("bookings", "types", "list", str(account_id)).stdout.splitlines()

    assert lines[0].split() == ["ID", "NAME", "MINUTES", "ACTIVE"]
    assert [line.split()[1:] for line in lines[1:]] == [["Consultation", "30", "yes"], ["Old", "15", "no"]]


def test_types_update_and_deactivate(run_cli: RunCli, account_id: int) -> None:
    """`types update` changes only the options given; `types deactivate` makes the type inactive."""
    created = run_json(run_cli, "bookings", "types", "create", str(account_id), "--name", "A", "--duration", "30")
    type_id = str(created["id"])

    updated = run_json(run_cli, "bookings", "types", "update", str(account_id), type_id, "--duration", "45")
    deactivated = run_json(run_cli, "bookings", "types", "deactivate", str(account_id), type_id)

    assert (updated["name"], updated["duration_minutes"], deactivated["is_active"]) == ("A", 45, False)


def test_a_bad_duration_is_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """A duration out of range is refused with one line naming the field."""
    result = run_cli("bookings", "types", "create", str(account_id), "--name", "Long", "--duration", "2000")

    assert "duration_minutes" in one_line_error(result)


def test_an_unknown_type_is_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """Updating a type the workspace does not have says so on one line."""
    result = run_cli("bookings", "types", "deactivate", str(account_id), "999")

    assert one_line_error(result) == "Error: Booking type not found."


def test_an_unknown_account_is_one_line(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """Naming an account that does not exist fails before anything is written."""
    result = run_cli("bookings", "types", "list", "999")

    assert one_line_error(result) == "Error: Account 999 not found."


# -- resources --------------------------------------------------------------------------------------


def test_resources_create_update_deactivate_and_list(run_cli: RunCli, account_id: int) -> None:
    """Resources are created, renamed and deactivated; the list shows the result."""
    created = run_json(
        run_cli, "bookings", "resources", "create", str(account_id), "--name", "Room 1", "--type", "room"
    )
    resource_id = str(created["id"])
    run_cli("bookings", "resources", "update", str(account_id), resource_id, "--name", "Blue room")
    run_cli("bookings", "resources", "deactivate", str(account_id), resource_id)

    listed = run_json(run_cli, "bookings", "resources", "list", str(account_id))

    assert [(r["name"], r["type"], r["is_active"]) for r in listed] == [("Blue room", "room", False)]


def test_an_empty_resource_list_explains_itself(run_cli: RunCli, account_id: int) -> None:
    """Without resources, `resources list` says bookings take none and how to add one."""
    result = run_cli("bookings", "resources", "list", str(account_id))

    assert result.stdout.startswith("No resources: bookings take none.")


# -- hours ------------------------------------------------------------------------------------------


def test_hours_show_prints_the_round_the_clock_default(run_cli: RunCli, account_id: int) -> None:
    """A workspace that never set hours shows UTC, open 00:00-24:00."""
    shown = json.loads(run_cli("bookings", "hours", "show", str(account_id)).stdout)

    assert (shown["timezone"], shown["weekly"]["sunday"]) == ("UTC", [{"opens": "00:00", "closes": "24:00"}])


def test_hours_set_from_a_file_with_a_timezone(
    run_cli: RunCli, account_id: int, write_json: Callable[[Any], str]
) -> None:
    """`hours set --file --timezone` stores the file's hours in that timezone; `show` reads them back."""
    result = run_cli(
        "bookings", "hours", "set", str(account_id), "--file", write_json(OFFICE), "--timezone", "Europe/Berlin"
    )

    shown = json.loads(run_cli("bookings", "hours", "show", str(account_id)).stdout)
    assert result.exit_code == 0, result.output
    assert (shown["timezone"], shown["weekly"]["monday"], shown["weekly"]["tuesday"]) == (
        "Europe/Berlin",
        OFFICE["weekly"]["monday"],
        [],
    )


def test_hours_set_timezone_alone_keeps_the_hours(
    run_cli: RunCli, account_id: int, write_json: Callable[[Any], str]
) -> None:
    """`--timezone` without a file changes only the timezone."""
    run_cli("bookings", "hours", "set", str(account_id), "--file", write_json(OFFICE))

    run_cli("bookings", "hours", "set", str(account_id), "--timezone", "Asia/Tokyo")

    shown = json.loads(run_cli("bookings", "hours", "show", str(account_id)).stdout)
    assert (shown["timezone"], shown["weekly"]["monday"]) == ("Asia/Tokyo", OFFICE["weekly"]["monday"])


def test_invalid_hours_are_one_line_naming_the_place(
    run_cli: RunCli, account_id: int, write_json: Callable[[Any], str], one_line_error: OneLineError
) -> None:
    """An opening that closes before it opens is refused with its path."""
    bad = {"weekly": {"monday": [{"opens": "12:00", "closes": "09:00"}]}}

    result = run_cli("bookings", "hours", "set", str(account_id), "--file", write_json(bad))

    assert "weekly.monday.0.closes" in one_line_error(result)


def test_a_file_that_is_not_json_is_one_line(
    run_cli: RunCli, account_id: int, tmp_path: Path, one_line_error: OneLineError
) -> None:
    """A hours file that is not JSON is named in a one-line error."""
    path = tmp_path / "hours.json"
    path.write_text("{monday", encoding="utf-8")

    assert "hours.json is not valid JSON" in one_line_error(
        run_cli("bookings", "hours", "set", str(account_id), "--file", str(path))
    )


def test_a_resources_own_hours_are_set_shown_and_cleared(
    run_cli: RunCli, account_id: int, write_json: Callable[[Any], str]
) -> None:
    """`--resource` sets, shows and clears a resource's own hours."""
    resource = run_json(run_cli, "bookings", "resources", "create", str(account_id), "--name", "Ada", "--type", "staff")
    rid = str(resource["id"])

    run_cli("bookings", "hours", "set", str(account_id), "--resource", rid, "--file", write_json(OFFICE))
    shown = json.loads(run_cli("bookings", "hours", "show", str(account_id), "--resource", rid).stdout)
    run_cli("bookings", "hours", "clear", str(account_id), "--resource", rid)
    cleared = json.loads(run_cli("bookings", "hours", "show", str(account_id), "--resource", rid).stdout)

    assert shown["schedule"]["weekly"]["monday"] == OFFICE["weekly"]["monday"]
    assert cleared == {"resource_id": resource["id"], "schedule": None}


def test_a_resource_takes_no_timezone(run_cli: RunCli, account_id: int, write_json: Callable[[Any], str]) -> None:
    """`--timezone` with `--resource` is a usage error (status 2): resources use the workspace's timezone."""
    result = run_cli(
        "bookings",
        "hours",
        "set",
        str(account_id),
        "--resource",
        "1",
        "--file",
        write_json(OFFICE),
        "--timezone",
        "UTC",
    )

    assert result.exit_code == 2


# -- completing -------------------------------------------------------------------------------------


def test_complete_marks_a_started_booking_completed(
    run_cli: RunCli, account_id: int, services_at: Callable[[datetime], Services], open_services: OpenServices
) -> None:
    """`complete` moves a confirmed booking that has started to completed and records `booking.completed`."""
    start = _noon(days_from_today=-1)  # an hour that lies within one day, whenever the test runs
    then = services_at(start - timedelta(hours=1))
    contact = then.contacts.create(account_id, ContactInput(name="Ada Lovelace", type="instagram"))
    booking_type = then.booking_setup.create_type(account_id, BookingTypeInput("Consultation", 60))
    booking = then.bookings.create(account_id, BookingInput(contact.id, booking_type.id, start))

    result = run_cli("bookings", "complete", str(account_id), str(booking.id))

    assert (result.exit_code, result.stdout.strip()) == (
        0,
        f"Booking {booking.id} (Consultation with Ada Lovelace) is completed.",
    )
    assert open_services().bookings.get(account_id, booking.id).status == "completed"


def test_completing_a_future_booking_is_one_line(
    run_cli: RunCli, account_id: int, open_services: OpenServices, one_line_error: OneLineError
) -> None:
    """A booking that has not started cannot be completed: one line saying why."""
    services = open_services()
    contact = services.contacts.create(account_id, ContactInput(name="Ada", type="instagram"))
    booking_type = services.booking_setup.create_type(account_id, BookingTypeInput("Consultation", 60))
    booking = services.bookings.create(account_id, BookingInput(contact.id, booking_type.id, _noon(days_from_today=1)))

    result = run_cli("bookings", "complete", str(account_id), str(booking.id))

    assert "can be completed once it has started" in one_line_error(result)


def _noon(*, days_from_today: int) -> datetime:
    """Noon (UTC) of a day relative to today: a one-hour booking then never crosses midnight."""
    return (datetime.now(UTC) + timedelta(days=days_from_today)).replace(hour=12, minute=0, second=0, microsecond=0)
