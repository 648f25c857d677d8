"""`engage accounts ...` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from engage_core.accounts import keys as api_keys
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.services import Services

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


def test_create_prints_the_account_id_and_a_well_formed_key(run_cli: RunCli) -> None:
    """Text output names the new account and prints a 44-character key."""
    result = run_cli("accounts", "create", "--name", "Acme")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Created account 1 (Acme)."
    assert lines[1].startswith("API key: ")
    assert api_keys.is_well_formed(lines[1].removeprefix("API key: "))


def test_create_warns_that_the_key_is_shown_only_once(run_cli: RunCli) -> None:
    """The warning goes to stderr so that stdout stays easy to parse."""
    result = run_cli("accounts", "create", "--name", "Acme")
    assert "shown only once" in result.stderr


def test_create_json_prints_exactly_the_id_and_key(run_cli: RunCli) -> None:
    """`--json` prints one object with exactly `account_id` and `api_key`."""
    result = run_cli("accounts", "create", "--name", "Acme", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"account_id", "api_key"}
    assert isinstance(payload["account_id"], int)
    assert api_keys.is_well_formed(payload["api_key"])


def test_created_key_authenticates_the_new_account(create_account: NewAccount, open_services: OpenServices) -> None:
    """The printed key is the account's key."""
    created = create_account("Acme")
    account = open_services().accounts.authenticate(created["api_key"])
    assert account.id == created["account_id"]


def test_create_with_a_blank_name_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """Validation failures name the field on one line."""
    line = one_line_error(run_cli("accounts", "create", "--name", "  "))
    assert "name" in line


def test_list_on_an_empty_database_says_there_are_no_accounts(run_cli: RunCli) -> None:
    """A fresh database is migrated and reported empty."""
    result = run_cli("accounts", "list")
    assert result.exit_code == 0, result.output
    assert "No accounts yet" in result.stdout


def test_list_shows_id_name_active_origins_and_hint(run_cli: RunCli, create_account: NewAccount) -> None:
    """Each account is one row under a header."""
    created = create_account("Acme")
    result = run_cli("accounts", "list")
    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()
    assert header.split() == ["ID", "NAME", "ACTIVE", "ORIGINS", "KEY"]
    assert row.split() == [str(created["account_id"]), "Acme", "yes", "*", api_keys.key_hint(created["api_key"])]


def test_list_json_prints_the_accounts_without_their_keys(run_cli: RunCli, create_account: NewAccount) -> None:
    """`list --json` is a JSON array of the accounts' fields, with the key's hint and never the key."""
    created = create_account("Acme")

    result = run_cli("accounts", "list", "--json")

    assert result.exit_code == 0, result.output
    [account] = json.loads(result.stdout)
    assert (account["id"], account["name"], account["is_active"], account["allowed_origins"]) == (
        created["account_id"],
        "Acme",
        True,
        [],
    )
    assert account["api_key_hint"] == api_keys.key_hint(created["api_key"])
    assert created["api_key"] not in result.stdout


def test_list_never_prints_a_key(run_cli: RunCli, create_account: NewAccount) -> None:
    """Only the hint is shown, never the key."""
    created = create_account("Acme")
    assert created["api_key"] not in run_cli("accounts", "list").output


def test_rotate_key_json_prints_a_new_key_for_the_account(run_cli: RunCli, create_account: NewAccount) -> None:
    """The rotated key differs from the old one and belongs to the same account."""
    created = create_account("Acme")
    result = run_cli("accounts", "rotate-key", str(created["account_id"]), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["account_id"] == created["account_id"]
    assert payload["api_key"] != created["api_key"]


def test_rotate_key_text_prints_the_new_key(run_cli: RunCli, create_account: NewAccount) -> None:
    """Text output carries the new key on an `API key:` line."""
    created = create_account("Acme")
    result = run_cli("accounts", "rotate-key", str(created["account_id"]))
    assert result.exit_code == 0, result.output
    assert api_keys.is_well_formed(result.stdout.splitlines()[1].removeprefix("API key: "))


def test_rotated_key_authenticates(run_cli: RunCli, create_account: NewAccount, open_services: OpenServices) -> None:
    """The new key works at once."""
    created = create_account("Acme")
    rotated = json.loads(run_cli("accounts", "rotate-key", str(created["account_id"]), "--json").stdout)
    assert open_services().accounts.authenticate(rotated["api_key"]).id == created["account_id"]


def test_rotating_invalidates_the_old_key(
    run_cli: RunCli, create_account: NewAccount, open_services: OpenServices
) -> None:
    """The old key stops working when rotate-key returns."""
    created = create_account("Acme")
    run_cli("accounts", "rotate-key", str(created["account_id"]))
    with pytest.raises(Unauthenticated):
        open_services().accounts.authenticate(created["api_key"])


def test_deactivate_makes_the_key_forbidden(
    run_cli: RunCli, create_account: NewAccount, open_services: OpenServices
) -> None:
    """An inactive account's key is refused with Forbidden."""
    created = create_account("Acme")
    result = run_cli("accounts", "deactivate", str(created["account_id"]))
    assert result.exit_code == 0, result.output
    with pytest.raises(Forbidden):
        open_services().accounts.authenticate(created["api_key"])


def test_deactivate_reports_the_new_state(run_cli: RunCli, create_account: NewAccount) -> None:
    """The confirmation names the account and its state."""
    created = create_account("Acme")
    result = run_cli("accounts", "deactivate", str(created["account_id"]))
    assert result.stdout.strip() == f"Account {created['account_id']} (Acme) is now inactive."


def test_activate_restores_access(run_cli: RunCli, create_account: NewAccount, open_services: OpenServices) -> None:
    """A reactivated account's key works again."""
    created = create_account("Acme")
    run_cli("accounts", "deactivate", str(created["account_id"]))
    result = run_cli("accounts", "activate", str(created["account_id"]))
    assert result.exit_code == 0, result.output
    assert open_services().accounts.authenticate(created["api_key"]).is_active


def test_set_origins_stores_normalised_origins(
    run_cli: RunCli, create_account: NewAccount, open_services: OpenServices
) -> None:
    """Origins are normalised and kept in order."""
    created = create_account("Acme")
    result = run_cli(
        "accounts", "set-origins", str(created["account_id"]), "https://App.example.com/x", "http://localhost:3000"
    )
    assert result.exit_code == 0, result.output
    account = open_services().accounts.get(created["account_id"])
    assert account.allowed_origins == ("https://app.example.com", "http://localhost:3000")


def test_set_origins_refuses_an_unlisted_origin(
    run_cli: RunCli, create_account: NewAccount, open_services: OpenServices
) -> None:
    """After set-origins, a request from another origin is forbidden."""
    created = create_account("Acme")
    run_cli("accounts", "set-origins", str(created["account_id"]), "https://app.example.com")
    with pytest.raises(Forbidden):
        open_services().accounts.authenticate(created["api_key"], origin="https://evil.example.com")


@pytest.mark.parametrize("origins", [(), ("*",)], ids=["none", "star"])
def test_set_origins_with_star_or_nothing_allows_all(
    run_cli: RunCli, create_account: NewAccount, origins: tuple[str, ...]
) -> None:
    """`*` or no origin at all means every origin is accepted."""
    created = create_account("Acme")
    run_cli("accounts", "set-origins", str(created["account_id"]), "https://app.example.com")
    result = run_cli("accounts", "set-origins", str(created["account_id"]), *origins)
    assert result.exit_code == 0, result.output
    assert "any origin" in result.stdout


def test_set_origins_with_an_invalid_origin_is_a_one_line_error(
    run_cli: RunCli, create_account: NewAccount, one_line_error: OneLineError
) -> None:
    """The bad origin is named on one line."""
    created = create_account("Acme")
    line = one_line_error(run_cli("accounts", "set-origins", str(created["account_id"]), "ftp://x"))
    assert "ftp://x" in line


@pytest.mark.parametrize(
    "command", [["rotate-key"], ["deactivate"], ["activate"], ["set-origins"], ["rotate-key", "--json"]]
)
def test_a_missing_account_is_a_one_line_error(
    run_cli: RunCli, one_line_error: OneLineError, command: list[str]
) -> None:
    """Every command that takes an ID reports an unknown account on one line."""
    line = one_line_error(run_cli("accounts", command[0], "999", *command[1:]))
    assert line == "Error: Account 999 not found."


def test_a_non_numeric_account_id_is_a_usage_error(run_cli: RunCli) -> None:
    """IDs are integers; anything else is rejected before touching the database."""
    result = run_cli("accounts", "deactivate", "abc")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
