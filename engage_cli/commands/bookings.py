"""`engage bookings ...`: set a workspace up for bookings, and mark bookings completed.

    engage bookings types list|create|update|deactivate ACCOUNT_ID ...
    engage bookings resources list|create|update|deactivate ACCOUNT_ID ...
    engage bookings hours show ACCOUNT_ID [--resource ID]
    engage bookings hours set ACCOUNT_ID [--resource ID] [--file hours.json] [--timezone TZ]
    engage bookings hours clear ACCOUNT_ID --resource ID
    engage bookings complete ACCOUNT_ID BOOKING_ID

The same rules as the API's (`docs/api.md`, Bookings). `--json` prints what the API's `data` would
hold. Hours files are the JSON documents of `PUT /bookings/working-hours` (workspace) and
`PUT /bookings/resources/{id}/working-hours` (resource), e.g.::

    {"timezone": "Europe/Berlin",
     "weekly": {"monday": [{"opens": "09:00", "closes": "17:00"}], "tuesday": [...]},
     "exceptions": [{"date": "2026-12-25", "openings": []}]}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, Any

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.bookings import setup
from engage_core.bookings.setup import BookingTypeInput, BookingTypePatch, ResourceInput, ResourcePatch
from engage_core.kernel.unset import UNSET
from engage_core.services import Services
from engage_http.bookings.schemas import Booking
from engage_http.bookings.setup_schemas import (
    BookingType,
    Resource,
    ResourceHours,
    Schedule,
    WorkingHours,
    WorkingHoursUpdate,
)
from engage_http.converter import converter, structure, to_core, unstructure_hook

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's `data`) instead of text.")
_ACCOUNT = click.argument("account_id", metavar="ACCOUNT_ID", type=int)


@click.group()
def bookings() -> None:
    """Booking types, resources and working hours of a workspace; completing bookings."""


def _services(state: CliState, account_id: int) -> Services:
    services = state.services()
    require_account(services, account_id)
    return services


def _echo_json(value: Any, wire: type | None = None) -> None:
    """Print `value` as the API's `data` holds it: a core value (or a list of them) rendered as the
    response class `wire`, as the routes render it, or else a response object."""
    if wire is None:
        data = converter.unstructure(value)
    else:
        render = unstructure_hook(wire)
        data = [render(item) for item in value] if isinstance(value, list) else render(value)
    click.echo(json.dumps(data))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain aligned table, one line per row."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    )


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


# -- booking types --------------------------------------------------------------------------------


@bookings.group()
def types() -> None:
    """Booking types: what can be booked, and for how long."""


def _show_type(booking_type: setup.BookingType, as_json: bool, verb: str) -> None:
    if as_json:
        _echo_json(booking_type, BookingType)
        return
    click.echo(f"{verb} booking type {booking_type.id} ({booking_type.name}, {booking_type.duration_minutes} minutes).")


@types.command(name="list")
@_ACCOUNT
@_JSON
@pass_state
def list_types(state: CliState, account_id: int, as_json: bool) -> None:
    """List booking types, active or not, by id."""
    found = list(_services(state, account_id).booking_setup.list_types(account_id))
    if as_json:
        _echo_json(found, BookingType)
        return
    if not found:
        click.echo(f"No booking types yet. Create one with: engage bookings types create {account_id} --name NAME")
        return
    rows = [(str(t.id), t.name, str(t.duration_minutes), _yes_no(t.is_active)) for t in found]
    click.echo(table(("ID", "NAME", "MINUTES", "ACTIVE"), rows))


@types.command(name="create")
@_ACCOUNT
@click.option("--name", required=True, help="At most 255 characters.")
@click.option("--duration", "duration_minutes", required=True, type=int, help="Minutes, 1 to 1440.")
@click.option("--description", default=None, help="At most 2000 characters.")
@click.option("--inactive", is_flag=True, help="Create it deactivated.")
@_JSON
@pass_state
def create_type(
    state: CliState,
    account_id: int,
    name: str,
    duration_minutes: int,
    description: str | None,
    inactive: bool,
    as_json: bool,
) -> None:
    """Create a booking type."""
    data = BookingTypeInput(name, duration_minutes, description, not inactive)
    created = _services(state, account_id).booking_setup.create_type(account_id, data)
    _show_type(created, as_json, "Created")


@types.command(name="update")
@_ACCOUNT
@click.argument("booking_type_id", metavar="TYPE_ID", type=int)
@click.option("--name", default=None, help="A new name.")
@click.option("--duration", "duration_minutes", default=None, type=int, help="New minutes, for new bookings.")
@click.option("--description", default=None, help="A new description ('' removes it).")
@click.option("--active/--inactive", "is_active", default=None, help="Activate or deactivate.")
@_JSON
@pass_state
def update_type(
    state: CliState,
    account_id: int,
    booking_type_id: int,
    name: str | None,
    duration_minutes: int | None,
    description: str | None,
    is_active: bool | None,
    as_json: bool,
) -> None:
    """Change a booking type; options left out keep their value. Existing bookings keep their times."""
    patch = BookingTypePatch(
        name=UNSET if name is None else name,
        duration_minutes=UNSET if duration_minutes is None else duration_minutes,
        description=UNSET if description is None else description,
        is_active=UNSET if is_active is None else is_active,
    )
    changed = _services(state, account_id).booking_setup.update_type(account_id, booking_type_id, patch)
    _show_type(changed, as_json, "Updated")


@types.command(name="deactivate")
@_ACCOUNT
@click.argument("booking_type_id", metavar="TYPE_ID", type=int)
@_JSON
@pass_state
def deactivate_type(state: CliState, account_id: int, booking_type_id: int, as_json: bool) -> None:
    """Stop new bookings of a type; its bookings stay."""
    changed = _services(state, account_id).booking_setup.deactivate_type(account_id, booking_type_id)
    _show_type(changed, as_json, "Deactivated")


# -- resources ------------------------------------------------------------------------------------


@bookings.group()
def resources() -> None:
    """Bookable resources: who or where (staff, rooms)."""


def _show_resource(resource: setup.Resource, as_json: bool, verb: str) -> None:
    if as_json:
        _echo_json(resource, Resource)
        return
    click.echo(f"{verb} resource {resource.id} ({resource.name}, {resource.type}).")


@resources.command(name="list")
@_ACCOUNT
@_JSON
@pass_state
def list_resources(state: CliState, account_id: int, as_json: bool) -> None:
    """List resources, active or not, by id."""
    found = list(_services(state, account_id).booking_setup.list_resources(account_id))
    if as_json:
        _echo_json(found, Resource)
        return
    if not found:
        click.echo(
            f"No resources: bookings take none. Add one with: engage bookings resources create {account_id} "
            "--name NAME --type TYPE"
        )
        return
    click.echo(
        table(("ID", "NAME", "TYPE", "ACTIVE"), [(str(r.id), r.name, r.type, _yes_no(r.is_active)) for r in found])
    )


@resources.command(name="create")
@_ACCOUNT
@click.option("--name", required=True, help="At most 255 characters.")
@click.option("--type", "kind", required=True, help="What it is, e.g. staff or room (at most 100 characters).")
@click.option("--inactive", is_flag=True, help="Create it deactivated.")
@_JSON
@pass_state
def create_resource(state: CliState, account_id: int, name: str, kind: str, inactive: bool, as_json: bool) -> None:
    """Create a resource; from the first active one on, every new booking takes a resource."""
    data = ResourceInput(name, kind, not inactive)
    created = _services(state, account_id).booking_setup.create_resource(account_id, data)
    _show_resource(created, as_json, "Created")


@resources.command(name="update")
@_ACCOUNT
@click.argument("resource_id", metavar="RESOURCE_ID", type=int)
@click.option("--name", default=None, help="A new name.")
@click.option("--type", "kind", default=None, help="A new type.")
@click.option("--active/--inactive", "is_active", default=None, help="Activate or deactivate.")
@_JSON
@pass_state
def update_resource(
    state: CliState,
    account_id: int,
    resource_id: int,
    name: str | None,
    kind: str | None,
    is_active: bool | None,
    as_json: bool,
) -> None:
    """Change a resource; options left out keep their value."""
    patch = ResourcePatch(
        name=UNSET if name is None else name,
        type=UNSET if kind is None else kind,
        is_active=UNSET if is_active is None else is_active,
    )
    changed = _services(state, account_id).booking_setup.update_resource(account_id, resource_id, patch)
    _show_resource(changed, as_json, "Updated")


@resources.command(name="deactivate")
@_ACCOUNT
@click.argument("resource_id", metavar="RESOURCE_ID", type=int)
@_JSON
@pass_state
def deactivate_resource(state: CliState, account_id: int, resource_id: int, as_json: bool) -> None:
    """Stop new bookings on a resource; its bookings stay."""
    changed = _services(state, account_id).booking_setup.deactivate_resource(account_id, resource_id)
    _show_resource(changed, as_json, "Deactivated")


# -- hours ----------------------------------------------------------------------------------------

_RESOURCE = click.option("--resource", "resource_id", type=int, default=None, help="A resource's own hours.")


@bookings.group()
def hours() -> None:
    """Working hours: the workspace's (and its timezone), or a resource's own."""


@hours.command(name="show")
@_ACCOUNT
@_RESOURCE
@pass_state
def show_hours(state: CliState, account_id: int, resource_id: int | None) -> None:
    """Print the hours as JSON (a resource's `schedule` is null while it follows the workspace's)."""
    setup = _services(state, account_id).booking_setup
    if resource_id is None:
        _echo_json(WorkingHours.from_domain(setup.working_hours(account_id)))
        return
    _echo_json(ResourceHours.from_domain(resource_id, setup.resource_hours(account_id, resource_id)))


@hours.command(name="set")
@_ACCOUNT
@_RESOURCE
@click.option("--file", "source", type=click.File("rb"), default=None, help="The hours as JSON (`-` reads stdin).")
@click.option("--timezone", default=None, help="The workspace's IANA timezone, e.g. Europe/Berlin.")
@pass_state
def set_hours(
    state: CliState, account_id: int, resource_id: int | None, source: IO[bytes] | None, timezone: str | None
) -> None:
    """Replace the hours from a JSON file, and/or the workspace's timezone.

    Workspace: the file's `weekly` and `exceptions` replace the hours (a weekday left out is closed);
    the timezone is --timezone, else the file's `timezone`, else the current one. --timezone alone
    keeps the hours. Resource (--resource): the file holds `weekly` and `exceptions`, in the
    workspace's timezone.
    """
    if source is None and (resource_id is not None or timezone is None):
        raise click.UsageError("Give --file (and for the workspace, optionally --timezone).")
    if resource_id is not None and timezone is not None:
        raise click.UsageError("A resource's hours follow the workspace's timezone; set it without --resource.")
    document = None if source is None else _read_document(source)
    setup = _services(state, account_id).booking_setup
    if resource_id is not None:
        assert document is not None
        schedule = setup.set_resource_hours(account_id, resource_id, to_core(structure(document, Schedule)))
        click.echo(f"Set the own hours of resource {resource_id}.", err=True)
        _echo_json(ResourceHours.from_domain(resource_id, schedule))
        return
    if document is None:
        assert timezone is not None
        stored = setup.set_timezone(account_id, timezone)
    else:
        zone = timezone or document.get("timezone") or setup.working_hours(account_id).timezone
        stored = setup.set_working_hours(
            account_id, to_core(structure({**document, "timezone": zone}, WorkingHoursUpdate))
        )
    click.echo(f"Set the working hours of account {account_id} ({stored.timezone}).", err=True)
    _echo_json(WorkingHours.from_domain(stored))


@hours.command(name="clear")
@_ACCOUNT
@click.option("--resource", "resource_id", type=int, required=True, help="The resource.")
@pass_state
def clear_hours(state: CliState, account_id: int, resource_id: int) -> None:
    """Drop a resource's own hours: it follows the workspace's again."""
    _services(state, account_id).booking_setup.clear_resource_hours(account_id, resource_id)
    click.echo(f"Resource {resource_id} follows the workspace's hours.")


def _read_document(source: IO[bytes]) -> dict[str, Any]:
    name = getattr(source, "name", "-")
    label = click.format_filename(name) if isinstance(name, str) and name not in ("-", "<stdin>") else "stdin"
    try:
        document = json.loads(source.read())
    except (ValueError, RecursionError) as exc:
        raise click.ClickException(f"{label} is not valid JSON: {' '.join(str(exc).split())}") from exc
    if not isinstance(document, dict):
        raise click.ClickException(f"{label} must hold one JSON object.")
    return document


# -- bookings -------------------------------------------------------------------------------------


@bookings.command()
@_ACCOUNT
@click.argument("booking_id", metavar="BOOKING_ID", type=int)
@_JSON
@pass_state
def complete(state: CliState, account_id: int, booking_id: int, as_json: bool) -> None:
    """Mark a confirmed booking that has started as completed (emits `booking.completed`)."""
    completed = _services(state, account_id).bookings.complete(account_id, booking_id)
    if as_json:
        _echo_json(completed, Booking)
        return
    click.echo(f"Booking {completed.id} ({completed.title}) is completed.")
