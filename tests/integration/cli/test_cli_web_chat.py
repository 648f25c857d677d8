"""`engage web-chat ...` on a temporary SQLite database: the widget key shown and rotated, origins, sessions."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from engage_core.services import Services
from engage_core.webchat.sessions import VisitorDetails

RunCli = Callable[..., Result]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


def test_widget_shows_the_key_and_the_snippet(run_cli: RunCli, account_id: int) -> None:
    """`web-chat widget` prints the public key and the script tag to embed."""
    result = run_cli("web-chat", "widget", str(account_id))
    assert result.exit_code == 0, result.output
    assert "Widget key: wk_" in result.stdout and 'data-key="wk_' in result.stdout


def test_rotate_key_replaces_it(run_cli: RunCli, account_id: int, open_services: OpenServices) -> None:
    """`web-chat rotate-key` gives a new key and the old one no longer opens the widget."""
    old = json.loads(run_cli("web-chat", "widget", str(account_id), "--json").stdout)["widget_key"]
    new = json.loads(run_cli("web-chat", "rotate-key", str(account_id), "--json").stdout)["widget_key"]
    assert new != old
    assert open_services().web_chat.visitor_access(new).account_id == account_id


def test_origins_are_set(run_cli: RunCli, account_id: int) -> None:
    """`web-chat origins` sets the allowed origins; an invalid one is refused."""
    result = run_cli("web-chat", "origins", str(account_id), "https://shop.example", "--json")
    assert json.loads(result.stdout)["allowed_origins"] == ["https://shop.example"]
    assert run_cli("web-chat", "origins", str(account_id), "not an origin").exit_code != 0


def test_sessions_are_listed(run_cli: RunCli, account_id: int, open_services: OpenServices) -> None:
    """`web-chat sessions` lists sessions with who handles them and the visitor."""
    open_services().web_chat.start(account_id, VisitorDetails(name="Ada"))
    result = run_cli("web-chat", "sessions", str(account_id))
    assert result.exit_code == 0, result.output
    assert "active" in result.stdout and "Ada" in result.stdout
