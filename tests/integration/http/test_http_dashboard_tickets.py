"""Support tickets in the dashboard (`engage_http.dashboard.tickets`) over the in-memory fakes:
opening one, the list and its filters, replying as the signed-in member, closing, and errors."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import TicketFilter


def signed_in(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> tuple[int, httpx.Response]:
    """Sign in as an agent; the member's id and the tickets page."""
    member_id = add_member(tenant, role="agent")
    sign_in(browser)
    return member_id, browser.get("/app/tickets")


def test_opening_a_ticket(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The form opens a ticket with its priority and shows it."""
    _, page = signed_in(browser, tenant, add_member)
    form = {"subject": "Login fails", "body": "Since this morning.", "priority": "high", "csrf": csrf_of(page)}
    answer = browser.post("/app/tickets", data=form)
    assert answer.status_code == 303
    [ticket] = services.tickets.find(tenant.account_id, TicketFilter(), PageRequest()).items
    assert (ticket.subject, ticket.priority, ticket.status) == ("Login fails", "high", "open")
    assert "Ticket opened." in browser.get(answer.headers["location"]).text


def test_a_ticket_without_a_subject_shows_the_error_beside_it(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """A blank subject answers 422 beside the field; the description typed stays."""
    _, page = signed_in(browser, tenant, add_member)
    answer = browser.post("/app/tickets", data={"subject": "", "body": "Since this morning.", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="subject-error"' in answer.text and ">Since this morning.</textarea>" in answer.text


def test_the_status_filter_leaves_out_other_tickets(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """`status=closed` lists only closed tickets."""
    kept = services.tickets.create(tenant.account_id, TicketInput("Closed one", "x"))
    services.tickets.close(tenant.account_id, kept.id)
    services.tickets.create(tenant.account_id, TicketInput("Open one", "y"))
    signed_in(browser, tenant, add_member)
    page = browser.get("/app/tickets", params={"status": "closed"}).text
    assert "Closed one" in page and "Open one" not in page


def test_a_reply_is_written_by_the_signed_in_member(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The reply form adds a client reply authored by the member."""
    ticket = services.tickets.create(tenant.account_id, TicketInput("Login fails", "Help"))
    member_id, _ = signed_in(browser, tenant, add_member)
    page = browser.get(f"/app/tickets/{ticket.id}")
    browser.post(f"/app/tickets/{ticket.id}/reply", data={"reply": "More details.", "csrf": csrf_of(page)})
    [reply] = services.tickets.get(tenant.account_id, ticket.id).replies
    assert (reply.reply, reply.type, reply.author_id) == ("More details.", "client", member_id)


def test_a_closed_ticket_offers_no_reply(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Close: the ticket is closed and its page has no reply form."""
    ticket = services.tickets.create(tenant.account_id, TicketInput("Login fails", "Help"))
    signed_in(browser, tenant, add_member)
    page = browser.get(f"/app/tickets/{ticket.id}")
    browser.post(f"/app/tickets/{ticket.id}/close", data={"csrf": csrf_of(page)})
    assert services.tickets.get(tenant.account_id, ticket.id).ticket.status == "closed"
    assert 'name="reply"' not in browser.get(f"/app/tickets/{ticket.id}").text


def test_another_workspaces_ticket_is_not_found(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    services: Services,
    make_tenant: Callable[..., Tenant],
) -> None:
    """A ticket of another workspace is 404."""
    foreign = services.tickets.create(make_tenant("Other").account_id, TicketInput("Theirs", "x"))
    signed_in(browser, tenant, add_member)
    assert browser.get(f"/app/tickets/{foreign.id}").status_code == 404
