"""`engage partners ...` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from click.testing import Result

from engage_core.accounts import keys as api_keys
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.services import Services
from engage_core.testing import FakeMailer, FakePasswordHasher

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
OpenServices = Callable[[], Services]


def create(run_cli: RunCli, *extra: str) -> dict[str, Any]:
    result = run_cli("partners", "create", "--company", "Agency", "--email", "owner@agency.example", *extra, "--json")
    assert result.exit_code == 0, result.output
    created: dict[str, Any] = json.loads(result.stdout)
    return created


def test_create_prints_the_partner_and_a_partner_key(run_cli: RunCli) -> None:
    """Text output names the partner and prints a well-formed partner key."""
    result = run_cli("partners", "create", "--company", "Agency", "--email", "owner@agency.example")

    assert result.exit_code == 0, result.output
    headline, key_line = result.stdout.splitlines()
    assert headline == "Created partner 1 (Agency)."
    assert api_keys.is_well_formed(key_line.removeprefix("Partner key: "), api_keys.PARTNER_PREFIX)
    assert "shown only once" in result.stderr


def test_create_json_prints_exactly_the_id_and_key(run_cli: RunCli) -> None:
    """`--json` prints one object with exactly `partner_id` and `partner_key`."""
    created = create(run_cli)

    assert set(created) == {"partner_id", "partner_key"}


def test_the_printed_key_authenticates_the_partner(run_cli: RunCli, open_services: OpenServices) -> None:
    """The key printed once is the partner's key."""
    created = create(run_cli)

    partner = open_services().partners.authenticate(created["partner_key"])

    assert partner.id == created["partner_id"]


def test_create_with_the_enterprise_plan_gets_its_seats(run_cli: RunCli, open_services: OpenServices) -> None:
    """`--plan enterprise` sets the enterprise plan and its default client seats."""
    created = create(run_cli, "--plan", "enterprise")

    partner = open_services().partners.get(created["partner_id"])

    assert (partner.plan, partner.client_seats_max) == ("enterprise", 250)


def test_an_invalid_email_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A malformed e-mail is refused with one line naming the field."""
    result = run_cli("partners", "create", "--company", "Agency", "--email", "not-an-address")

    assert "email" in one_line_error(result)


def test_rotate_key_replaces_the_key(run_cli: RunCli, open_services: OpenServices) -> None:
    """After rotate-key the old key is refused and the new one accepted."""
    created = create(run_cli)

    result = run_cli("partners", "rotate-key", str(created["partner_id"]), "--json")

    rotated = json.loads(result.stdout)
    services = open_services()
    with pytest.raises(Unauthenticated):
        services.partners.authenticate(created["partner_key"])
    assert services.partners.authenticate(rotated["partner_key"]).id == created["partner_id"]


def test_suspend_refuses_the_partner_key(run_cli: RunCli, open_services: OpenServices) -> None:
    """A suspended partner's key is Forbidden."""
    created = create(run_cli)

    result = run_cli("partners", "suspend", str(created["partner_id"]))

    assert result.stdout.strip() == f"Partner {created['partner_id']} (Agency) is now suspended."
    with pytest.raises(Forbidden):
        open_services().partners.authenticate(created["partner_key"])


def test_activate_accepts_the_key_again(run_cli: RunCli, open_services: OpenServices) -> None:
    """activate after suspend lets the key in again."""
    created = create(run_cli)
    run_cli("partners", "suspend", str(created["partner_id"]))

    result = run_cli("partners", "activate", str(created["partner_id"]))

    assert result.exit_code == 0
    assert open_services().partners.authenticate(created["partner_key"]).id == created["partner_id"]


def test_list_shows_the_hint_but_never_the_key(run_cli: RunCli) -> None:
    """`list` shows the partner with its key hint, never the key."""
    created = create(run_cli)

    result = run_cli("partners", "list")

    assert "Agency" in result.stdout
    assert created["partner_key"] not in result.stdout


def test_list_json_prints_the_partners_without_their_keys(run_cli: RunCli) -> None:
    """`list --json` is a JSON array of the partners' fields, never their keys."""
    created = create(run_cli)

    result = run_cli("partners", "list", "--json")

    assert result.exit_code == 0, result.output
    [partner] = json.loads(result.stdout)
    assert (partner["id"], partner["status"]) == (created["partner_id"], "active")
    assert created["partner_key"] not in result.stdout
    assert created["partner_key"].startswith(partner["partner_key_hint"].rstrip("…"))


def test_list_without_partners_says_how_to_create_one(run_cli: RunCli) -> None:
    """An empty list explains the create command."""
    result = run_cli("partners", "list")

    assert "engage partners create" in result.stdout


def test_an_unknown_partner_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A missing partner id is `Error: Partner 9 not found.`"""
    result = run_cli("partners", "suspend", "9")

    assert one_line_error(result) == "Error: Partner 9 not found."


@pytest.fixture
def partner_services(database_url: str) -> Iterator[Services]:
    """Services over the test database that can provision client workspaces (a hasher, a mailer)."""
    from engage_sql import Database

    database = Database.connect(database_url)
    yield Services.build(database.uow, hasher=FakePasswordHasher(), mailer=FakeMailer())
    database.dispose()


@pytest.mark.parametrize("command", ["suspend", "rotate-key"])
def test_the_command_ends_the_partners_impersonations(
    run_cli: RunCli, partner_services: Services, command: str
) -> None:
    """After `suspend` or `rotate-key`, neither an unused login link nor an open session works."""
    partner_id = create(run_cli)["partner_id"]
    clients = partner_services.partner_clients
    admin = AdminInput("Ada", "Admin", "ada@client.example")
    client_id = clients.create(partner_id, ClientInput("Client", "pro", admin, skip_invite=True)).client.id
    session = clients.redeem(clients.impersonate(partner_id, client_id).login_url.rsplit("/", 1)[1])
    unused = clients.impersonate(partner_id, client_id).login_url.rsplit("/", 1)[1]

    assert run_cli("partners", command, str(partner_id)).exit_code == 0

    with pytest.raises((Forbidden, Unauthenticated)):
        clients.redeem(unused)
    with pytest.raises((Forbidden, Unauthenticated)):
        clients.admit(session)
