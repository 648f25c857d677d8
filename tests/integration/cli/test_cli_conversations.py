"""`engage conversations ...` on a temporary SQLite database: listing by who answers, taking over and releasing."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from click.testing import Result

from engage_core.contacts.model import Contact, ContactInput
from engage_core.messaging.messages import MessageDraft
from engage_core.services import Services
from engage_core.team.model import MemberDraft

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def contact(open_services: OpenServices, account_id: int) -> Contact:
    """A contact who wrote in once."""
    services = open_services()
    contact = services.contacts.create(account_id, ContactInput(name="Ada", type="instagram"))
    with services.dependencies.uow.workspace(account_id) as uow:
        uow.messages.add(MessageDraft(contact.id, "inbound", "instagram", "Where is my order?", "delivered"), NOW)
        uow.commit()
    return contact


def test_take_over_hands_the_conversation_to_a_human(
    run_cli: RunCli, open_services: OpenServices, account_id: int, contact: Contact
) -> None:
    """`conversations take-over ACCOUNT CONTACT` says a human answers; the AI may not answer any more."""
    result = run_cli("conversations", "take-over", str(account_id), str(contact.id))

    assert result.exit_code == 0, result.output
    assert result.stdout == f"Conversation of contact {contact.id}: a human answers.\n"
    assert open_services().conversation_handling.may_ai_answer(account_id, contact.id) is False


def test_take_over_as_a_team_member_prints_the_api_fields(
    run_cli: RunCli, open_services: OpenServices, account_id: int, contact: Contact
) -> None:
    """`--team-member ID --json` assigns the member and prints the state in the API's fields."""
    with open_services().dependencies.uow.workspace(account_id) as uow:
        member = uow.team.add(MemberDraft("Bo", "bo@example.com", "agent"), "fake$x$y", NOW).id
        uow.commit()

    result = run_cli(
        "conversations", "take-over", str(account_id), str(contact.id), "--team-member", str(member), "--json"
    )

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["handled_by"], data["assignee_id"], data["contact_id"]) == ("human", member, contact.id)


def test_release_gives_the_conversation_back_to_the_ai(
    run_cli: RunCli, open_services: OpenServices, account_id: int, contact: Contact
) -> None:
    """`conversations release` after a hand-over: the AI answers again."""
    open_services().conversation_handling.hand_over(account_id, contact.id, "Asks for a person")

    result = run_cli("conversations", "release", str(account_id), str(contact.id))

    assert result.exit_code == 0, result.output
    assert result.stdout == f"Conversation of contact {contact.id}: the AI answers.\n"


def test_list_shows_the_conversations_waiting_for_a_human(
    run_cli: RunCli, open_services: OpenServices, account_id: int, contact: Contact
) -> None:
    """`conversations list --handled-by pending` lists the handed-over conversation with its state."""
    open_services().conversation_handling.hand_over(account_id, contact.id, "Asks for a person")

    waiting = run_cli("conversations", "list", str(account_id), "--handled-by", "pending")
    with_ai = run_cli("conversations", "list", str(account_id), "--handled-by", "ai")

    assert waiting.exit_code == 0, waiting.output
    assert waiting.stdout == f"{contact.id}\tpending\tinstagram\t1\tAda\tWhere is my order?\n"
    assert with_ai.stdout == "No conversations.\n"


def test_list_json_prints_the_api_fields(run_cli: RunCli, account_id: int, contact: Contact) -> None:
    """`--json` prints the summaries with `handled_by`."""
    result = run_cli("conversations", "list", str(account_id), "--json")

    assert result.exit_code == 0, result.output
    assert [(c["contact_id"], c["handled_by"]) for c in json.loads(result.stdout)] == [(contact.id, "ai")]


def test_an_unknown_contact_is_one_line_error(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """A contact the workspace does not have: `Error: Contact not found.`."""
    result = run_cli("conversations", "take-over", str(account_id), "999")

    assert one_line_error(result) == "Error: Contact not found."


def test_an_unknown_account_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """An account that does not exist is named before anything is read."""
    result = run_cli("conversations", "release", "999", "1")

    assert one_line_error(result) == "Error: Account 999 not found."
