"""Team members (SPEC 2, 4 Team, 8): adding with an invitation, unique addresses, passwords that are
stored hashed and never returned, listing by role, changing, and deleting (which unassigns)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.services import Services
from engage_core.support.ticket_service import TicketPatch
from engage_core.support.tickets import Ticket
from engage_core.team.model import TeamMember
from engage_core.testing import FakeMailer, FakePasswordHasher, InMemoryUnitOfWorkFactory

MakeMember = Callable[..., TeamMember]
MEMBER_FIELDS = {"id", "name", "email", "role", "status", "created_at", "updated_at"}


def new_member(**fields: Any) -> dict[str, Any]:
    return {"name": "Ada Lovelace", "email": "ada@example.com", "role": "agent", "password": "analytical1"} | fields


def stored_hash(uow: InMemoryUnitOfWorkFactory, tenant: Tenant, member_id: int) -> str | None:
    with uow.workspace(tenant.account_id, readonly=True) as work:
        return work.team.password_hash(member_id)


# -- adding ------------------------------------------------------------------------------------------


def test_adding_a_member_answers_201_without_the_password(api: Api) -> None:
    """`POST /team` answers 201 with the member's fields and `invitation_sent`, and no password anywhere."""
    response = api.post("/team", json=new_member(role="admin"))

    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert set(data) == MEMBER_FIELDS | {"invitation_sent", "invitation_error"}
    assert {k: data[k] for k in ("name", "email", "role", "status", "invitation_sent")} == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "role": "admin",
        "status": "active",
        "invitation_sent": True,
    }
    assert "analytical1" not in response.text


def test_the_password_is_stored_as_a_hash(api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> None:
    """The stored hash verifies the password and does not contain it."""
    member_id = api.post("/team", json=new_member()).json()["data"]["id"]

    stored = stored_hash(uow, tenant, member_id)

    assert stored is not None and "analytical1" not in stored
    assert FakePasswordHasher().verify(stored, "analytical1")


def test_adding_sends_an_invitation(api: Api, mailer: FakeMailer) -> None:
    """The new member gets one invitation e-mail naming the workspace, the role and the sign-in link."""
    api.post("/team", json=new_member())

    [sent] = mailer.sent
    assert (sent.to, sent.subject) == ("ada@example.com", "You have been added to Acme")
    assert "as an agent" in sent.text
    assert "/login?email=ada%40example.com" in sent.text
    assert "analytical1" not in sent.text


def test_a_failed_invitation_keeps_the_member(api: Api, mailer: FakeMailer) -> None:
    """When the mail server fails, the member is still added, with `invitation_sent` false and a message."""
    mailer.fail()

    response = api.post("/team", json=new_member())

    body = response.json()
    assert (response.status_code, body["data"]["invitation_sent"]) == (201, False)
    assert body["data"]["invitation_error"] and body["data"]["invitation_error"] in body["message"]
    assert "was not sent" in body["message"]
    assert [m["email"] for m in api.get("/team").json()["data"]] == ["ada@example.com"]


@pytest.mark.parametrize("email", ["ada@example.com", "ADA@Example.COM"])
def test_a_taken_address_is_422_in_any_case(api: Api, email: str) -> None:
    """An address another member has, whatever its case, is a 422 on `email`."""
    api.post("/team", json=new_member())

    response = api.post("/team", json=new_member(name="Someone else", email=email))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["email"])


def test_the_same_address_may_join_two_workspaces(
    api: Api, client_for: Callable[[Tenant], Api], make_tenant: Callable[..., Tenant]
) -> None:
    """Addresses are unique per workspace only."""
    api.post("/team", json=new_member())

    response = client_for(make_tenant("Other")).post("/team", json=new_member())

    assert response.status_code == 201


@pytest.mark.parametrize("password", ["", "short", "1234567"])
def test_a_password_under_8_characters_is_422(api: Api, password: str) -> None:
    """SPEC 8: a password has at least 8 characters."""
    response = api.post("/team", json=new_member(password=password))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["password"])


def test_a_password_of_8_spaces_is_accepted(api: Api) -> None:
    """Spaces count and are never trimmed: eight of them make a valid password."""
    assert api.post("/team", json=new_member(password=" " * 8)).status_code == 201


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        ({"role": "owner"}, ["role"]),
        ({"email": "not-an-address"}, ["email"]),
        ({"name": "   "}, ["name"]),
        ({"status": "away"}, ["status"]),
    ],
)
def test_invalid_members_are_422_naming_the_field(api: Api, fields: dict[str, str], errors: list[str]) -> None:
    """An unknown role or status, a malformed address or a blank name is a 422 on that field."""
    response = api.post("/team", json=new_member(**fields))

    assert (response.status_code, list(response.json()["errors"])) == (422, errors)


def test_every_required_field_is_named_when_missing(api: Api) -> None:
    """An empty body is a 422 naming name, email, role and password."""
    response = api.post("/team", json={})

    assert sorted(response.json()["errors"]) == ["email", "name", "password", "role"]


# -- reading -----------------------------------------------------------------------------------------


def test_listing_is_in_ascending_id_and_filters_by_role(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """`GET /team` lists members oldest first; `role` keeps only that role."""
    make_member(tenant, name="Ada", role="admin")
    make_member(tenant, name="Bob", role="agent")
    make_member(tenant, name="Cy", role="admin")

    everyone = [m["name"] for m in api.get("/team").json()["data"]]
    admins = [m["name"] for m in api.get("/team", params={"role": "admin"}).json()["data"]]

    assert (everyone, admins) == (["Ada", "Bob", "Cy"], ["Ada", "Cy"])


def test_listing_pages_with_meta(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """`per_page` and `page` select a page; `meta` counts every member."""
    for name in ("Ada", "Bob", "Cy"):
        make_member(tenant, name=name)

    body = api.get("/team", params={"per_page": 2, "page": 2}).json()

    assert ([m["name"] for m in body["data"]], body["meta"]) == (
        ["Cy"],
        {"current_page": 2, "per_page": 2, "total": 3, "last_page": 2},
    )


def test_an_unknown_role_filter_is_422(api: Api) -> None:
    """`role` must be `admin` or `agent`."""
    assert api.get("/team", params={"role": "owner"}).status_code == 422


def test_a_member_is_read_without_a_password(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """`GET /team/{id}` answers with the member's fields only."""
    member = make_member(tenant, name="Ada")

    data = api.get(f"/team/{member.id}").json()["data"]

    assert (set(data), data["name"]) == (MEMBER_FIELDS, "Ada")


def test_an_unknown_member_is_404(api: Api) -> None:
    """A member id the workspace does not have is 404."""
    assert api.get("/team/999").status_code == 404


# -- changing ----------------------------------------------------------------------------------------


def test_updating_changes_only_the_fields_given(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """`PUT /team/{id}` with `role` alone changes the role and keeps the other fields."""
    member = make_member(tenant, name="Ada", email="ada@example.com", role="agent")

    data = api.put(f"/team/{member.id}", json={"role": "admin"}).json()["data"]

    assert (data["name"], data["email"], data["role"], data["status"]) == ("Ada", "ada@example.com", "admin", "active")


def test_updating_onto_a_taken_address_is_422(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """Changing an address to another member's (in another case) is a 422 on `email`."""
    make_member(tenant, email="ada@example.com")
    bob = make_member(tenant, email="bob@example.com")

    response = api.put(f"/team/{bob.id}", json={"email": "Ada@Example.com"})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["email"])


def test_a_new_password_replaces_the_hash(
    api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, make_member: MakeMember
) -> None:
    """A `password` in `PUT /team/{id}` replaces the stored hash; the response never carries it."""
    member = make_member(tenant)

    response = api.put(f"/team/{member.id}", json={"password": "new password"})

    stored = stored_hash(uow, tenant, member.id)
    assert stored is not None and FakePasswordHasher().verify(stored, "new password")
    assert "new password" not in response.text


def test_a_short_new_password_is_422(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """A new password under 8 characters is a 422 on `password`."""
    member = make_member(tenant)

    response = api.put(f"/team/{member.id}", json={"password": "short"})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["password"])


# -- deleting ----------------------------------------------------------------------------------------


def test_deleting_answers_204_and_the_member_is_gone(api: Api, tenant: Tenant, make_member: MakeMember) -> None:
    """`DELETE /team/{id}` answers 204 with no body; the member then is 404."""
    member = make_member(tenant)

    response = api.delete(f"/team/{member.id}")

    assert (response.status_code, response.content) == (204, b"")
    assert api.get(f"/team/{member.id}").status_code == 404


def test_deleting_unassigns_the_members_tickets(
    api: Api,
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    tenant: Tenant,
    make_member: MakeMember,
    make_ticket: Callable[..., Ticket],
) -> None:
    """The member's tickets stay, unassigned, each with `ticket.updated`; other tickets are untouched."""
    member = make_member(tenant)
    other = make_member(tenant)
    theirs = make_ticket(tenant)
    kept = make_ticket(tenant)
    services.tickets.update(tenant.account_id, theirs.id, TicketPatch(assignee_id=member.id))
    services.tickets.update(tenant.account_id, kept.id, TicketPatch(assignee_id=other.id))
    before = len(uow.store.events(tenant.account_id))

    api.delete(f"/team/{member.id}")

    assignees = [api.get(f"/tickets/{t.id}").json()["data"]["assignee_id"] for t in (theirs, kept)]
    events = uow.store.events(tenant.account_id)[before:]
    assert (assignees, [(e.name, e.payload["id"]) for e in events]) == (
        [None, other.id],
        [("ticket.updated", theirs.id)],
    )
