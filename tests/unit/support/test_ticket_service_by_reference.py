"""TicketService.by_reference: the operator's way to name a ticket (`TKT-000123`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.kernel.errors import NotFound
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput


def test_a_reference_finds_its_ticket(services: Services, account_id: int) -> None:
    """`by_reference("TKT-000002")` is the workspace's second ticket."""
    services.tickets.create(account_id, TicketInput("First", "x"))
    second = services.tickets.create(account_id, TicketInput("Second", "x"))

    assert services.tickets.by_reference(account_id, "TKT-000002") == second


def test_the_prefix_may_be_written_in_any_case_with_spaces(services: Services, account_id: int) -> None:
    """` tkt-000001 ` names TKT-000001."""
    ticket = services.tickets.create(account_id, TicketInput("First", "x"))

    assert services.tickets.by_reference(account_id, " tkt-000001 ") == ticket


@pytest.mark.parametrize("reference", ["TKT-000002", "TKT-1", "1"])
def test_an_unknown_reference_is_not_found(services: Services, account_id: int, reference: str) -> None:
    """A reference the workspace has not handed out (or a malformed one) is NotFound."""
    services.tickets.create(account_id, TicketInput("First", "x"))

    with pytest.raises(NotFound):
        services.tickets.by_reference(account_id, reference)


def test_another_workspaces_reference_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """References are per workspace: another workspace's TKT-000001 is not this one's."""
    services.tickets.create(new_account("Other"), TicketInput("Theirs", "x"))

    with pytest.raises(NotFound):
        services.tickets.by_reference(account_id, "TKT-000001")
