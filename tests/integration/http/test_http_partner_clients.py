"""Partner clients over HTTP (SPEC 3 Partner client, SPEC 4 Partner API, SPEC 8)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from http_support import Api, PartnerCaller, Tenant

from engage_core.contacts.model import ContactInput
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMailer


def new_client(email: str = "ada@acme.example", **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "company_name": "Acme Dental",
        "plan": "pro",
        "admin": {"first_name": "Ada", "last_name": "Lovelace", "email": email, "phone": "+14155550123"},
    }
    body.update(fields)
    return body


def test_create_answers_201_with_the_spec_fields(make_partner: Callable[..., PartnerCaller]) -> None:
    """`POST /partner/clients` is 201 with id, slug, plan, status, primary_user, dashboard_url, created_at."""
    partner = make_partner()

    response = partner.api.post("/partner/clients", json=new_client())

    assert response.status_code == 201
    data = response.json()["data"]
    assert data["company_name"] == "Acme Dental"
    assert data["slug"] == "acme-dental"
    assert data["plan"] == "pro"
    assert data["status"] == "active"
    assert data["primary_user"]["email"] == "ada@acme.example"
    assert data["dashboard_url"].endswith("/dashboard/acme-dental")


def test_create_invites_the_admin(make_partner: Callable[..., PartnerCaller], mailer: FakeMailer) -> None:
    """Creating a client e-mails its admin an invitation."""
    partner = make_partner()

    partner.api.post("/partner/clients", json=new_client())

    assert [message.to for message in mailer.sent] == ["ada@acme.example"]


def test_skip_invite_sends_no_email(make_partner: Callable[..., PartnerCaller], mailer: FakeMailer) -> None:
    """With `skip_invite` no invitation is sent."""
    partner = make_partner()

    response = partner.api.post("/partner/clients", json=new_client(skip_invite=True))

    assert (response.json()["data"]["invitation_sent"], response.json()["data"]["invitation_error"]) == (False, None)
    assert mailer.sent == []


def test_the_admin_is_a_team_member_of_the_new_workspace(
    make_partner: Callable[..., PartnerCaller], services: Services
) -> None:
    """The client's admin exists as an admin team member of the workspace."""
    partner = make_partner()

    data = partner.api.post("/partner/clients", json=new_client()).json()["data"]

    member = services.team.get(data["id"], data["primary_user"]["id"])
    assert (member.email, member.role) == ("ada@acme.example", "admin")


def test_an_email_already_in_use_is_409(make_partner: Callable[..., PartnerCaller]) -> None:
    """A second client whose admin has an address in use, whatever the partner, is 409."""
    first, second = make_partner("First"), make_partner("Second")
    first.api.post("/partner/clients", json=new_client())

    response = second.api.post("/partner/clients", json=new_client(company_name="Other"))

    assert response.status_code == 409


def test_a_partner_with_every_seat_used_gets_403(make_partner: Callable[..., PartnerCaller]) -> None:
    """At `client_seats.max` a create is 403 with code `client_seats_exhausted`."""
    partner = make_partner(seats=1)
    partner.api.post("/partner/clients", json=new_client())

    response = partner.api.post("/partner/clients", json=new_client("other@acme.example"))

    assert response.status_code == 403
    assert response.json()["code"] == "client_seats_exhausted"


def test_an_unknown_plan_is_422(make_partner: Callable[..., PartnerCaller]) -> None:
    """A plan outside starter, pro, business is a validation failure on `plan`."""
    partner = make_partner()

    response = partner.api.post("/partner/clients", json=new_client(plan="platinum"))

    assert response.status_code == 422
    assert "plan" in response.json()["errors"]


def test_a_missing_admin_email_is_422(make_partner: Callable[..., PartnerCaller]) -> None:
    """`admin.email` is required."""
    partner = make_partner()
    body = new_client()
    del body["admin"]["email"]

    response = partner.api.post("/partner/clients", json=body)

    assert response.status_code == 422
    assert "admin.email" in response.json()["errors"]


def test_the_profile_counts_used_seats(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`client_seats.used` counts the partner's clients."""
    partner = make_partner(seats=5)
    make_client_workspace(partner)
    make_client_workspace(partner, "Beta")

    seats = partner.api.get("/partner/profile").json()["data"]["client_seats"]

    assert seats == {"used": 2, "max": 5}


def test_list_is_paginated_with_meta(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`per_page` limits the page and `meta` describes it."""
    partner = make_partner()
    for name in ("One", "Two", "Three"):
        make_client_workspace(partner, name)

    body = partner.api.get("/partner/clients", params={"per_page": 2, "page": 2}).json()

    assert len(body["data"]) == 1
    assert body["meta"] == {"current_page": 2, "per_page": 2, "total": 3, "last_page": 2}


def test_list_per_page_defaults_to_15_and_clamps_at_100(make_partner: Callable[..., PartnerCaller]) -> None:
    """SPEC 8: 15 by default, at most 100."""
    partner = make_partner()

    default = partner.api.get("/partner/clients").json()["meta"]["per_page"]
    clamped = partner.api.get("/partner/clients", params={"per_page": 500}).json()["meta"]["per_page"]

    assert (default, clamped) == (15, 100)


def test_list_searches_company_email_and_slug(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`search` matches a part of the company name, the admin e-mail or the slug."""
    partner = make_partner()
    make_client_workspace(partner, "Acme Dental")
    wanted = make_client_workspace(partner, "Beta", email="boss@zeta.example")

    found = partner.api.get("/partner/clients", params={"search": "ZETA"}).json()["data"]

    assert [c["id"] for c in found] == [wanted]


def test_list_filters_by_status(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`status=suspended` lists only suspended clients."""
    partner = make_partner()
    make_client_workspace(partner, "Open")
    suspended = make_client_workspace(partner, "Closed")
    partner.api.post(f"/partner/clients/{suspended}/suspend")

    found = partner.api.get("/partner/clients", params={"status": "suspended"}).json()["data"]

    assert [c["id"] for c in found] == [suspended]


def test_list_filters_by_plan(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`plan=starter` lists only clients on starter now."""
    partner = make_partner()
    make_client_workspace(partner, "Pro", plan="pro")
    starter = make_client_workspace(partner, "Small", plan="starter")

    found = partner.api.get("/partner/clients", params={"plan": "starter"}).json()["data"]

    assert [c["id"] for c in found] == [starter]


def test_list_items_carry_usage(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int], services: Services
) -> None:
    """Each summary client has `usage` counted from its records."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    services.contacts.create(client_id, ContactInput(name="Bo", phone="+14155550124", type="whatsapp"))

    [item] = partner.api.get("/partner/clients").json()["data"]

    assert item["usage"] == {"contacts": 1, "messages_this_month": 0, "team_members": 1}


def test_get_adds_branding_inherited(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """The single-client response has `branding_inherited` and the primary user in full."""
    partner = make_partner()
    client_id = make_client_workspace(partner)

    data = partner.api.get(f"/partner/clients/{client_id}").json()["data"]

    assert data["branding_inherited"] is True
    assert data["primary_user"]["first_name"] == "Ada"


def test_an_immediate_plan_change_applies_now(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`immediate` true switches the plan at once."""
    partner = make_partner()
    client_id = make_client_workspace(partner, plan="pro")

    response = partner.api.request(
        "PATCH", f"/partner/clients/{client_id}", json={"plan": "starter", "immediate": True}
    )

    assert response.status_code == 200
    assert (response.json()["data"]["plan"], response.json()["data"]["pending_plan"]) == ("starter", None)


def test_a_deferred_plan_change_waits_for_the_cycle_boundary(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """Without `immediate` the plan stays, and the change is pending from the next boundary."""
    partner = make_partner()
    client_id = make_client_workspace(partner, plan="pro")

    data = partner.api.request("PATCH", f"/partner/clients/{client_id}", json={"plan": "starter"}).json()["data"]

    assert (data["plan"], data["pending_plan"]) == ("pro", "starter")
    assert data["pending_plan_from"] is not None


def test_a_deferred_plan_change_applies_after_the_boundary(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int], clock: FakeClock
) -> None:
    """Once the billing cycle turns, the client reads as on the new plan."""
    partner = make_partner()
    client_id = make_client_workspace(partner, plan="pro")
    partner.api.request("PATCH", f"/partner/clients/{client_id}", json={"plan": "starter"})
    clock.advance(days=32)

    data = partner.api.get(f"/partner/clients/{client_id}").json()["data"]

    assert (data["plan"], data["pending_plan"]) == ("starter", None)


def test_update_renames_the_client(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`company_name` is changed and the answer has a message."""
    partner = make_partner()
    client_id = make_client_workspace(partner)

    body = partner.api.request("PATCH", f"/partner/clients/{client_id}", json={"company_name": "Renamed"}).json()

    assert body["data"]["company_name"] == "Renamed"
    assert body["message"]


def test_suspend_sets_suspended_at(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`POST .../suspend` answers id, status suspended and `suspended_at`."""
    partner = make_partner()
    client_id = make_client_workspace(partner)

    data = partner.api.post(f"/partner/clients/{client_id}/suspend", json={"reason": "unpaid"}).json()["data"]

    assert data["id"] == client_id
    assert data["status"] == "suspended"
    assert data["suspended_at"] is not None


def test_suspending_a_suspended_client_is_409(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """Only an active client can be suspended."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    partner.api.post(f"/partner/clients/{client_id}/suspend")

    response = partner.api.post(f"/partner/clients/{client_id}/suspend")

    assert response.status_code == 409


def test_reactivate_clears_suspended_at(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`POST .../reactivate` answers status active and `suspended_at` null."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    partner.api.post(f"/partner/clients/{client_id}/suspend")

    data = partner.api.post(f"/partner/clients/{client_id}/reactivate").json()["data"]

    assert (data["status"], data["suspended_at"]) == ("active", None)


def test_delete_is_204_and_the_client_is_gone(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`DELETE` answers 204; the client then answers 404."""
    partner = make_partner()
    client_id = make_client_workspace(partner)

    deleted = partner.api.delete(f"/partner/clients/{client_id}")

    assert deleted.status_code == 204
    assert partner.api.get(f"/partner/clients/{client_id}").status_code == 404


def test_usage_counts_the_clients_records(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int], services: Services
) -> None:
    """`/usage` counts contacts created this period and the team."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    services.contacts.create(client_id, ContactInput(name="Bo", phone="+14155550124", type="whatsapp"))

    data = partner.api.get(f"/partner/clients/{client_id}/usage").json()["data"]

    assert data["client_id"] == client_id
    assert data["contacts"] == {"total": 1, "created_this_period": 1, "blacklisted": 0}
    assert data["team_members"] == 1


def test_usage_of_another_month_counts_nothing_created_now(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int], services: Services
) -> None:
    """A `YYYY-MM` period counts only what was created in that month."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    services.contacts.create(client_id, ContactInput(name="Bo", phone="+14155550124", type="whatsapp"))

    data = partner.api.get(f"/partner/clients/{client_id}/usage", params={"period": "2020-01"}).json()["data"]

    assert data["period"] == "2020-01"
    assert data["contacts"]["created_this_period"] == 0


def test_a_malformed_period_is_422(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """A period that is neither `current` nor `YYYY-MM` is 422 on `period`."""
    partner = make_partner()
    client_id = make_client_workspace(partner)

    response = partner.api.get(f"/partner/clients/{client_id}/usage", params={"period": "2020-13"})

    assert response.status_code == 422
    assert "period" in response.json()["errors"]


def test_usage_summary_totals_every_client(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int], services: Services
) -> None:
    """`/partner/usage` sums over every client and pages the lines (default 50)."""
    partner = make_partner()
    first = make_client_workspace(partner, "One")
    make_client_workspace(partner, "Two")
    services.contacts.create(first, ContactInput(name="Bo", phone="+14155550124", type="whatsapp"))

    body = partner.api.get("/partner/usage", params={"per_page": 1}).json()

    assert body["data"]["summary"]["total_clients"] == 2
    assert body["data"]["summary"]["total_contacts"] == 1
    assert [line["client_id"] for line in body["data"]["clients"]] == [first]
    assert body["meta"]["total"] == 2


def test_plans_lists_the_three_plans(make_partner: Callable[..., PartnerCaller]) -> None:
    """`GET /partner/plans` lists starter, pro and business with limits (the media file count added to
    SPEC's four) and features."""
    partner = make_partner()

    plans = partner.api.get("/partner/plans").json()["data"]

    assert [plan["slug"] for plan in plans] == ["starter", "pro", "business"]
    assert set(plans[0]["limits"]) == {"contacts", "messages_per_month", "team_members", "channels", "media_files"}
    assert {"webhooks", "api_access", "booking", "ai_agents", "campaigns"} <= set(plans[0]["features"])


def test_impersonate_returns_a_login_link_valid_five_minutes(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int], clock: FakeClock
) -> None:
    """`POST .../impersonate` answers a `/impersonate/<token>` link expiring in five minutes."""
    partner = make_partner()
    client_id = make_client_workspace(partner)

    data = partner.api.post(f"/partner/clients/{client_id}/impersonate").json()["data"]

    assert "/impersonate/" in data["login_url"]
    assert data["expires_at"] == (clock.now() + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_suspended_clients_workspace_key_is_403(
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
    services: Services,
    client_for: Callable[[Tenant], Api],
) -> None:
    """While suspended, the client workspace's own API key is refused with 403."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    workspace = Tenant(client_id, services.accounts.rotate_key(client_id).api_key)
    partner.api.post(f"/partner/clients/{client_id}/suspend")

    response = client_for(workspace).get("/contacts")

    assert response.status_code == 403
