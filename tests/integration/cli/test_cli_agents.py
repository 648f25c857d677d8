"""`engage agents ...` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from engage_core.contacts.model import ContactInput
from engage_core.services import Services

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


def create(run_cli: RunCli, account_id: int, *args: str) -> dict[str, Any]:
    result = run_cli("agents", "create", str(account_id), "--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_create_prints_the_agent(run_cli: RunCli, account_id: int) -> None:
    """`agents create ACCOUNT --name N --system-prompt P` creates it and names it."""
    result = run_cli("agents", "create", str(account_id), "--name", "Concierge", "--system-prompt", "Be kind.")

    assert (result.exit_code, result.stdout) == (0, "Created AI agent 1 (Concierge).\n")


def test_create_json_prints_the_apis_data(run_cli: RunCli, account_id: int) -> None:
    """`--json` prints every field of the agent, guidelines included."""
    data = create(
        run_cli, account_id, "--name", "Concierge", "--system-prompt", "Be kind.", "--default",
        "--guidelines", '{"language": "en", "max_reply_chars": 600}',
    )  # fmt: skip

    assert {k: data[k] for k in ("name", "is_default", "is_active", "response_guidelines")} == {
        "name": "Concierge",
        "is_default": True,
        "is_active": True,
        "response_guidelines": {"language": "en", "max_reply_chars": 600},
    }


def test_create_reads_the_system_prompt_from_a_file(run_cli: RunCli, account_id: int, tmp_path: Path) -> None:
    """`--system-prompt-file` reads the prompt (trimmed) from a UTF-8 file."""
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are the front desk of Café Nour.\n", encoding="utf-8")

    data = create(run_cli, account_id, "--name", "Concierge", "--system-prompt-file", str(prompt))

    assert data["system_prompt"] == "You are the front desk of Café Nour."


def test_create_without_a_system_prompt_is_a_usage_error(run_cli: RunCli, account_id: int) -> None:
    """Neither `--system-prompt` nor `--system-prompt-file` is a usage error (exit 2)."""
    result = run_cli("agents", "create", str(account_id), "--name", "Concierge")

    assert result.exit_code == 2
    assert "system prompt" in result.stderr


def test_invalid_guidelines_are_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """Guidelines the rules refuse are one `Error:` line naming the key."""
    result = run_cli(
        "agents", "create", str(account_id), "--name", "C", "--system-prompt", "P",
        "--guidelines", '{"max_reply_chars": 5}',
    )  # fmt: skip

    assert "response_guidelines.max_reply_chars" in one_line_error(result)


def test_list_shows_the_agents_in_a_table(run_cli: RunCli, account_id: int) -> None:
    """`agents list` prints id, name, active and default, the last changed first."""
    create(run_cli, account_id, "--name", "First", "--system-prompt", "P")
    create(run_cli, account_id, "--name", "Second", "--system-prompt", "P", "--default")

    result = run_cli("agents", "list", str(account_id))

    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "ACTIVE", "DEFAULT", "UPDATED"]
    assert [line.split()[:4] for line in lines[1:]] == [["2", "Second", "yes", "yes"], ["1", "First", "yes", "no"]]


def test_list_of_a_workspace_without_agents_says_how_to_create_one(run_cli: RunCli, account_id: int) -> None:
    """No agents: one line naming the create command."""
    result = run_cli("agents", "list", str(account_id))

    assert result.stdout.startswith("No AI agents yet.")


def test_show_prints_the_prompts(run_cli: RunCli, account_id: int) -> None:
    """`agents show` prints the header and every prompt in full."""
    create(run_cli, account_id, "--name", "Concierge", "--system-prompt", "Be kind.", "--personality-prompt", "Warm.")

    result = run_cli("agents", "show", str(account_id), "1")

    assert result.stdout.splitlines()[:2] == ["AI agent 1: Concierge", "Active: yes  Default: no"]
    assert "Be kind." in result.stdout and "Personality prompt:\nWarm." in result.stdout


def test_update_changes_only_the_options_given(run_cli: RunCli, account_id: int) -> None:
    """`agents update` keeps what is not given; '' removes an optional prompt."""
    create(run_cli, account_id, "--name", "Concierge", "--system-prompt", "P", "--personality-prompt", "Warm.")

    result = run_cli(
        "agents", "update", str(account_id), "1", "--name", "Receptionist", "--personality-prompt", "", "--json"
    )

    data = json.loads(result.stdout)
    assert (data["name"], data["system_prompt"], data["personality_prompt"]) == ("Receptionist", "P", None)


def test_set_default_moves_the_flag(run_cli: RunCli, account_id: int, open_services: OpenServices) -> None:
    """`agents set-default` makes the agent the default, and the previous one loses the flag."""
    create(run_cli, account_id, "--name", "First", "--system-prompt", "P", "--default")
    create(run_cli, account_id, "--name", "Second", "--system-prompt", "P", "--inactive")

    result = run_cli("agents", "set-default", str(account_id), "2")

    assert (result.exit_code, result.stdout) == (0, "Default is now AI agent 2 (Second, default).\n")
    assert [a.id for a in open_services().ai_agents.list(account_id) if a.is_default] == [2]


def test_deleting_the_default_is_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """The default cannot be deleted: one `Error:` line saying why."""
    create(run_cli, account_id, "--name", "Concierge", "--system-prompt", "P", "--default")

    line = one_line_error(run_cli("agents", "delete", str(account_id), "1"))

    assert line == "Error: is_default: The default AI agent cannot be deleted. Make another agent the default first."


def test_delete_removes_an_agent(run_cli: RunCli, account_id: int, open_services: OpenServices) -> None:
    """`agents delete` removes an agent that is not the default."""
    create(run_cli, account_id, "--name", "Concierge", "--system-prompt", "P")

    result = run_cli("agents", "delete", str(account_id), "1")

    assert (result.exit_code, result.stdout) == (0, "Deleted AI agent 1; its contacts have no agent now.\n")
    assert open_services().ai_agents.list(account_id) == []


def test_assign_sets_the_agent_on_contacts(run_cli: RunCli, account_id: int, open_services: OpenServices) -> None:
    """`agents assign ACCOUNT AGENT CONTACT...` assigns the workspace's contacts and says how many."""
    services = open_services()
    contacts = [services.contacts.create(account_id, ContactInput(name=f"C{n}", type="instagram")).id for n in range(2)]
    create(run_cli, account_id, "--name", "Concierge", "--system-prompt", "P")

    result = run_cli("agents", "assign", str(account_id), "1", *map(str, contacts), "999")

    assert (result.exit_code, result.stdout) == (0, "2 contacts assigned to the AI agent.\n")
    assert {open_services().contacts.get(account_id, c).ai_agent_id for c in contacts} == {1}


def test_an_unknown_agent_is_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """An agent the workspace does not have is `AI agent not found.`"""
    assert one_line_error(run_cli("agents", "show", str(account_id), "42")) == "Error: AI agent not found."


def test_an_unknown_account_is_one_line(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A workspace that does not exist is named in the error."""
    assert one_line_error(run_cli("agents", "list", "99")) == "Error: Account 99 not found."
