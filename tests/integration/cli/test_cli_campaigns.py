"""`engage campaigns ...` on a temporary SQLite database: a draft created, started, paused and cancelled,
and its recipients listed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from engage_core.contacts.model import ContactInput
from engage_core.services import Services

RunCli = Callable[..., Result]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def contact_id(open_services: OpenServices, account_id: int) -> int:
    return open_services().contacts.create(account_id, ContactInput("Ada Lovelace", "instagram")).id


def test_create_prints_the_draft_as_json(run_cli: RunCli, account_id: int, contact_id: int) -> None:
    """`campaigns create ... --json` prints the API's campaign: a draft with its audience."""
    result = run_cli(
        "campaigns", "create", str(account_id), "--name", "Launch", "--channel", "instagram",
        "--message", "Hi {{first_name}}", "--contact", str(contact_id), "--json",
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["status"], data["audience"]["contact_ids"]) == ("draft", [contact_id])


def test_an_unknown_placeholder_is_refused_in_one_line(run_cli: RunCli, account_id: int, contact_id: int) -> None:
    """The 422 of the API is the command's error message."""
    result = run_cli(
        "campaigns", "create", str(account_id), "--name", "Launch", "--channel", "instagram",
        "--message", "Hi {{nmae}}", "--contact", str(contact_id),
    )  # fmt: skip

    assert result.exit_code != 0
    assert "nmae" in result.output


def test_list_shows_the_campaigns(run_cli: RunCli, account_id: int, contact_id: int) -> None:
    """`campaigns list` prints one line per campaign."""
    for name in ("First", "Second"):
        run_cli(
            "campaigns", "create", str(account_id), "--name", name, "--channel", "instagram",
            "--message", "Hi", "--contact", str(contact_id),
        )  # fmt: skip

    result = run_cli("campaigns", "list", str(account_id))

    assert result.exit_code == 0, result.output
    assert "First" in result.output and "Second" in result.output
