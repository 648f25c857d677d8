"""`engage kb ...` on a temporary SQLite database: listing entries and searching the knowledge base."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from engage_core.knowledge.entries import TextInput
from engage_core.services import Services

RunCli = Callable[..., Result]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def add_text(open_services: OpenServices, account_id: int) -> Callable[..., int]:
    def make(title: str, content: str, **fields: Any) -> int:
        return open_services().knowledge_entries.create_text(account_id, TextInput(title, content, **fields)).id

    return make


def test_search_prints_the_best_passage_first(run_cli: RunCli, account_id: int, add_text: Callable[..., int]) -> None:
    """`kb search ACCOUNT QUERY` prints each hit's score, entry and passage, best first."""
    entry = add_text("Hours", "We open at 7 am every day.")
    add_text("Parking", "Parking is free behind the shop.")

    result = run_cli("kb", "search", str(account_id), "When do you open?")

    assert result.exit_code == 0, result.output
    assert result.stdout == f"1.00  entry {entry} (text): Hours\n      We open at 7 am every day.\n"


def test_search_says_when_nothing_matches(run_cli: RunCli, account_id: int, add_text: Callable[..., int]) -> None:
    """A question that matches no passage says so."""
    add_text("Hours", "We open at 7 am.")

    result = run_cli("kb", "search", str(account_id), "invoice")

    assert result.stdout == "Nothing in the knowledge base matches.\n"


def test_search_as_json_has_the_api_fields(run_cli: RunCli, account_id: int, add_text: Callable[..., int]) -> None:
    """`--json` prints what the API's search returns, `--limit` caps the hits."""
    for n in range(3):
        add_text(f"Tea {n}", f"Green tea number {n}.")

    result = run_cli("kb", "search", str(account_id), "tea", "--limit", "2", "--json")

    data = json.loads(result.stdout)
    assert (data["query"], data["relevant"], len(data["results"])) == ("tea", True, 2)


def test_search_of_a_missing_account_is_a_one_line_error(run_cli: RunCli) -> None:
    """An unknown account is named in one line, exit status 1."""
    result = run_cli("kb", "search", "999", "tea")

    assert (result.exit_code, result.stderr) == (1, "Error: Account 999 not found.\n")


def test_list_prints_the_entries_newest_first(run_cli: RunCli, account_id: int, add_text: Callable[..., int]) -> None:
    """`kb list ACCOUNT` prints id, type, status and title of each entry; `--status` filters."""
    first = add_text("Hours", "We open at 7.")
    second = add_text("Old", "Gone.", status="inactive")

    everything = run_cli("kb", "list", str(account_id))
    inactive = run_cli("kb", "list", str(account_id), "--status", "inactive")

    assert everything.stdout == f"{second}\ttext\tinactive\tOld\n{first}\ttext\tactive\tHours\n"
    assert inactive.stdout == f"{second}\ttext\tinactive\tOld\n"
