"""`engage linkedin overview` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from click.testing import Result

RunCli = Callable[..., Result]
NewAccount = Callable[..., dict[str, Any]]


def test_the_overview_prints_the_api_fields_as_json(run_cli: RunCli, create_account: NewAccount) -> None:
    """Not connected: no InMail balance, no campaign, the week's invitations at zero of 100."""
    account_id = create_account("Acme")["account_id"]

    result = run_cli("linkedin", "overview", str(account_id), "--json")

    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["connection"]["connected"], data["inmail_balance"], data["active_campaigns"]) == (False, None, [])
    assert data["invitations"] == {"used": 0, "weekly_cap": 100, "left": 100, "warning": False}


def test_the_overview_prints_text(run_cli: RunCli, create_account: NewAccount) -> None:
    """The text form names the connection and the week's invitations."""
    account_id = create_account("Acme")["account_id"]

    result = run_cli("linkedin", "overview", str(account_id))

    assert result.exit_code == 0, result.output
    assert "Connection: not connected" in result.output and "Invitations: 0 of 100 this week" in result.output
