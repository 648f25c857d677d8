"""Support tickets (SPEC 2, 3, 4, 8): opening, references, listing and filters, reading with replies,
replying, closing, departments, and the events each change records."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant

from engage_core.services import Services
from engage_core.support.tickets import Ticket
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

MakeTicket = Callable[..., Ticket]

TICKET_FIELDS = {
    "id", "ticket_id", "subject", "body", "priority", "status", "department", "assignee_id", "last_reply_at",
    "closed_at", "created_at", "updated_at",
}  # fmt: skip


def event_names(uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> list[str]:
    return [e.name for e in uow.store.events(tenant.account_id) if e.name.startswith("ticket.")]


# -- opening -----------------------------------------------------------------------------------------


def test_opening_a_ticket_answers_201_with_the_ticket(api: Api) -> None:
    """`POST /tickets` answers 201 with an open, medium-priority ticket filed under "General"."""
    response = api.post("/tickets", json={"subject": "Invoice is wrong", "body": "The VAT is 5%, not 15%."})

    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert set(data) == TICKET_FIELDS
    assert {k: data[k] for k in ("ticket_id", "subject", "body", "priority", "status", "last_reply_at")} == {
        "ticket_id": "TKT-000001",
        "subject": "Invoice is wrong",
        "body": "The VAT is 5%, not 15%.",
        "priority": "medium",
        "status": "open",
        "last_reply_at": None,
    }
    assert data["department"] == {"id": data["department"]["id"], "title": "General"}


def test_references_count_up_per_workspace(
    api: Api, client_for: Callable[[Tenant], Api], make_tenant: Callable[..., Tenant]
) -> None:
    """Each workspace numbers its own tickets: TKT-000001, TKT-000002, ... ."""
    other = client_for(make_tenant("Other"))

    references = [
        api.post("/tickets", json={"subject": "One", "body": "x"}).json()["data"]["ticket_id"],
        api.post("/tickets", json={"subject": "Two", "body": "x"}).json()["data"]["ticket_id"],
        other.post("/tickets", json={"subject": "One", "body": "x"}).json()["data"]["ticket_id"],
    ]

    assert references == ["TKT-000001", "TKT-000002", "TKT-000001"]


def test_a_ticket_can_name_its_priority_and_department(api: Api, services: Services, tenant: Tenant) -> None:
    """`priority` and `department_id` are stored as given; the department is returned as `{id, title}`."""
    billing = services.departments.create(tenant.account_id, "Billing")

    response = api.post(
        "/tickets", json={"subject": "Refund", "body": "Please", "priority": "high", "department_id": billing.id}
    )

    data = response.json()["data"]
    assert (data["priority"], data["department"]) == ("high", {"id": billing.id, "title": "Billing"})


def test_another_workspaces_department_is_a_422(
    api: Api, services: Services, make_tenant: Callable[..., Tenant]
) -> None:
    """A `department_id` the workspace does not have is a 422 on `department_id`."""
    theirs = services.departments.create(make_tenant("Other").account_id, "Billing")

    response = api.post("/tickets", json={"subject": "Refund", "body": "Please", "department_id": theirs.id})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["department_id"])


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, ["body", "subject"]),
        ({"subject": "  ", "body": "x"}, ["subject"]),
        ({"subject": "x", "body": "x", "priority": "urgent"}, ["priority"]),
        ({"subject": "x" * 256, "body": "x"}, ["subject"]),
    ],
)
def test_invalid_tickets_are_422_naming_the_fields(api: Api, body: dict[str, str], fields: list[str]) -> None:
    """Missing, blank, too long or unknown values are 422 with an error for each field."""
    response = api.post("/tickets", json=body)

    assert (response.status_code, sorted(response.json()["errors"])) == (422, fields)


def test_opening_records_ticket_created(api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> None:
    """Opening a ticket records `ticket.created` with the SPEC 6 fields."""
    data = api.post("/tickets", json={"subject": "Hello", "body": "x"}).json()["data"]

    [event] = uow.store.events(tenant.account_id)
    assert event.name == "ticket.created"
    assert {k: event.payload[k] for k in ("id", "ticket_id", "subject", "status", "priority", "department_id")} == {
        "id": data["id"],
        "ticket_id": "TKT-000001",
        "subject": "Hello",
        "status": "open",
        "priority": "medium",
        "department_id": data["department"]["id"],
    }


# -- listing -----------------------------------------------------------------------------------------


def test_listing_is_newest_first_with_25_per_page(
    api: Api, tenant: Tenant, make_ticket: MakeTicket, clock: FakeClock
) -> None:
    """`GET /tickets` lists newest first; `per_page` defaults to 25."""
    for subject in ("first", "second"):
        make_ticket(tenant, subject=subject)
        clock.advance(seconds=1)

    body = api.get("/tickets").json()

    assert [t["subject"] for t in body["data"]] == ["second", "first"]
    assert (body["meta"]["per_page"], body["meta"]["total"]) == (25, 2)


def test_listing_filters_by_status_and_priority(
    api: Api, services: Services, tenant: Tenant, make_ticket: MakeTicket
) -> None:
    """`status` and `priority` narrow the list."""
    make_ticket(tenant, subject="low open", priority="low")
    closed = make_ticket(tenant, subject="high closed", priority="high")
    make_ticket(tenant, subject="high open", priority="high")
    services.tickets.close(tenant.account_id, closed.id)

    def subjects(**params: str) -> list[str]:
        return [t["subject"] for t in api.get("/tickets", params=params).json()["data"]]

    assert (subjects(status="closed"), subjects(priority="high"), subjects(status="open", priority="high")) == (
        ["high closed"],
        ["high open", "high closed"],
        ["high open"],
    )


def test_per_page_above_100_is_clamped(api: Api) -> None:
    """`per_page=101` is served as 100 (SPEC 8: at most 100 tickets a page)."""
    assert api.get("/tickets", params={"per_page": 101}).json()["meta"]["per_page"] == 100


@pytest.mark.parametrize("params", [{"status": "resolved"}, {"priority": "urgent"}])
def test_unknown_statuses_and_priorities_are_422(api: Api, params: dict[str, str]) -> None:
    """Filtering by a status or priority tickets cannot have is a 422 on that parameter."""
    response = api.get("/tickets", params=params)

    assert (response.status_code, list(response.json()["errors"])) == (422, list(params))


def test_listing_shows_only_the_workspaces_tickets(
    api: Api, tenant: Tenant, make_tenant: Callable[..., Tenant], make_ticket: MakeTicket
) -> None:
    """Another workspace's tickets are not listed."""
    make_ticket(tenant, subject="mine")
    make_ticket(make_tenant("Other"), subject="theirs")

    assert [t["subject"] for t in api.get("/tickets").json()["data"]] == ["mine"]


# -- reading and replying ----------------------------------------------------------------------------


def test_a_ticket_is_read_with_its_replies_oldest_first(
    api: Api, services: Services, tenant: Tenant, make_ticket: MakeTicket, clock: FakeClock
) -> None:
    """`GET /tickets/{id}` adds `replies[]`: id, reply, type and created_at, oldest first."""
    ticket = make_ticket(tenant)
    services.tickets.reply(tenant.account_id, ticket.id, "We are looking into it.", type="admin")
    clock.advance(seconds=5)
    services.tickets.reply(tenant.account_id, ticket.id, "Thanks!")

    data = api.get(f"/tickets/{ticket.id}").json()["data"]

    assert set(data) == TICKET_FIELDS | {"replies"}
    assert [(r["reply"], r["type"]) for r in data["replies"]] == [
        ("We are looking into it.", "admin"),
        ("Thanks!", "client"),
    ]
    assert set(data["replies"][0]) == {"id", "reply", "type", "created_at"}


def test_an_unknown_ticket_is_404(api: Api) -> None:
    """A ticket id the workspace does not have is 404."""
    assert api.get("/tickets/999").status_code == 404


def test_replying_stores_a_client_reply(api: Api, tenant: Tenant, make_ticket: MakeTicket, clock: FakeClock) -> None:
    """`POST /tickets/{id}/reply` answers with the stored `client` reply and the ticket, now replied to."""
    ticket = make_ticket(tenant)
    clock.advance(seconds=30)

    response = api.post(f"/tickets/{ticket.id}/reply", json={"reply": "  Any news?  "})

    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["reply"]["reply"], data["reply"]["type"], data["ticket"]["status"]) == ("Any news?", "client", "open")
    assert data["ticket"]["last_reply_at"] == data["reply"]["created_at"]
    assert [r["id"] for r in api.get(f"/tickets/{ticket.id}").json()["data"]["replies"]] == [data["reply"]["id"]]


def test_a_client_reply_reopens_an_answered_ticket(
    api: Api, services: Services, tenant: Tenant, make_ticket: MakeTicket
) -> None:
    """An answered ticket becomes open when the workspace replies (SPEC 3)."""
    ticket = make_ticket(tenant)
    services.tickets.reply(tenant.account_id, ticket.id, "Fixed, please check.", type="admin")

    response = api.post(f"/tickets/{ticket.id}/reply", json={"reply": "Still broken."})

    assert response.json()["data"]["ticket"]["status"] == "open"


def test_a_reply_records_replied_then_updated_when_the_status_moves(
    api: Api, services: Services, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, make_ticket: MakeTicket
) -> None:
    """Reopening by reply records `ticket.replied` then `ticket.updated`; a reply to an open ticket only the first."""
    ticket = make_ticket(tenant)
    services.tickets.reply(tenant.account_id, ticket.id, "Answer", type="admin")
    before = len(event_names(uow, tenant))

    api.post(f"/tickets/{ticket.id}/reply", json={"reply": "Reopen"})
    api.post(f"/tickets/{ticket.id}/reply", json={"reply": "And more"})

    assert event_names(uow, tenant)[before:] == ["ticket.replied", "ticket.updated", "ticket.replied"]


def test_a_reply_to_a_closed_ticket_is_422_and_stores_nothing(
    api: Api, services: Services, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, make_ticket: MakeTicket
) -> None:
    """A closed ticket takes no replies: 422 on `reply` with a message that says it is closed."""
    ticket = make_ticket(tenant)
    services.tickets.close(tenant.account_id, ticket.id)
    before = event_names(uow, tenant)

    response = api.post(f"/tickets/{ticket.id}/reply", json={"reply": "Hello?"})

    assert response.status_code == 422
    assert "closed" in response.json()["errors"]["reply"][0]
    assert (api.get(f"/tickets/{ticket.id}").json()["data"]["replies"], event_names(uow, tenant)) == ([], before)


def test_a_reply_of_10000_characters_is_accepted(api: Api, tenant: Tenant, make_ticket: MakeTicket) -> None:
    """SPEC 8: a reply may be 10,000 characters long."""
    ticket = make_ticket(tenant)

    response = api.post(f"/tickets/{ticket.id}/reply", json={"reply": "x" * 10_000})

    assert response.status_code == 200


@pytest.mark.parametrize("reply", ["x" * 10_001, "   ", ""])
def test_a_reply_too_long_or_blank_is_422(api: Api, tenant: Tenant, make_ticket: MakeTicket, reply: str) -> None:
    """A reply over 10,000 characters, or with nothing in it, is a 422 on `reply`."""
    ticket = make_ticket(tenant)

    response = api.post(f"/tickets/{ticket.id}/reply", json={"reply": reply})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["reply"])


# -- closing -----------------------------------------------------------------------------------------


def test_closing_answers_with_the_closed_ticket(
    api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, make_ticket: MakeTicket
) -> None:
    """`POST /tickets/{id}/close` closes the ticket, sets `closed_at` and records `ticket.closed` alone."""
    ticket = make_ticket(tenant)

    response = api.post(f"/tickets/{ticket.id}/close")

    data = response.json()["data"]
    assert (response.status_code, data["status"], data["closed_at"] is not None) == (200, "closed", True)
    assert event_names(uow, tenant) == ["ticket.created", "ticket.closed"]


def test_closing_a_closed_ticket_changes_nothing(
    api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, make_ticket: MakeTicket, clock: FakeClock
) -> None:
    """A second close answers 200 with the ticket as it was and records no event."""
    ticket = make_ticket(tenant)
    first = api.post(f"/tickets/{ticket.id}/close").json()["data"]
    clock.advance(seconds=60)

    again = api.post(f"/tickets/{ticket.id}/close")

    assert (again.status_code, again.json()["data"]) == (200, first)
    assert event_names(uow, tenant) == ["ticket.created", "ticket.closed"]


# -- departments -------------------------------------------------------------------------------------


def test_departments_start_with_general(api: Api) -> None:
    """A workspace without departments lists one, `General`, created on first use."""
    data = api.get("/tickets/departments").json()["data"]

    assert [d["title"] for d in data] == ["General"]
    assert set(data[0]) == {"id", "title"}


def test_departments_are_listed_in_ascending_id(api: Api, services: Services, tenant: Tenant) -> None:
    """Departments created by the operator are listed oldest first, with no `General` added."""
    for title in ("Sales", "Billing"):
        services.departments.create(tenant.account_id, title)

    assert [d["title"] for d in api.get("/tickets/departments").json()["data"]] == ["Sales", "Billing"]


def test_a_ticket_keeps_living_after_its_department_is_deleted(
    api: Api, services: Services, tenant: Tenant, make_ticket: MakeTicket
) -> None:
    """A ticket whose department was deleted shows `department` null."""
    billing = services.departments.create(tenant.account_id, "Billing")
    ticket = make_ticket(tenant, department_id=billing.id)

    services.departments.delete(tenant.account_id, billing.id)

    assert api.get(f"/tickets/{ticket.id}").json()["data"]["department"] is None
