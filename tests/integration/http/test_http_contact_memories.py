"""Contact memories over HTTP (an extension of SPEC 4): list, add and delete a contact's facts,
scoped to the workspace, and the `ai_agents` plan feature."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services


def test_a_memory_added_is_listed(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`POST` answers 201 with the memory; `GET` lists it."""
    contact = make_contact(tenant)

    created = api.post(f"/contacts/{contact.id}/memories", json={"fact": "Prefers  email"})
    listed = api.get(f"/contacts/{contact.id}/memories")

    assert created.status_code == 201, created.text
    memory = created.json()["data"]
    assert memory == {
        "id": memory["id"],
        "contact_id": contact.id,
        "fact": "Prefers email",
        "source_message_id": None,
        "created_at": memory["created_at"],
    }
    assert (listed.status_code, listed.json()["data"]) == (200, [memory])


def test_a_memory_is_deleted(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`DELETE` answers 204 and the fact is gone; again is a 404."""
    contact = make_contact(tenant)
    memory = api.post(f"/contacts/{contact.id}/memories", json={"fact": "Prefers email"}).json()["data"]

    deleted = api.delete(f"/contacts/{contact.id}/memories/{memory['id']}")
    again = api.delete(f"/contacts/{contact.id}/memories/{memory['id']}")

    assert (deleted.status_code, again.status_code) == (204, 404)
    assert api.get(f"/contacts/{contact.id}/memories").json()["data"] == []


def test_a_blank_duplicate_or_long_fact_is_a_422(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """Each refused on `fact`."""
    contact = make_contact(tenant)
    api.post(f"/contacts/{contact.id}/memories", json={"fact": "Prefers email"})

    for fact in (" ", "prefers EMAIL", "x" * 281):
        response = api.post(f"/contacts/{contact.id}/memories", json={"fact": fact})
        assert (response.status_code, list(response.json()["errors"])) == (422, ["fact"])


def test_another_workspaces_contact_is_a_404(
    api: Api, make_tenant: Callable[..., Tenant], make_contact: Callable[..., Contact], client_for: Callable[..., Api]
) -> None:
    """Their contact's memories can be neither listed, added to nor deleted."""
    other = make_tenant("Other")
    theirs = make_contact(other)
    memory = client_for(other).post(f"/contacts/{theirs.id}/memories", json={"fact": "Prefers email"}).json()["data"]

    assert [
        api.get(f"/contacts/{theirs.id}/memories").status_code,
        api.post(f"/contacts/{theirs.id}/memories", json={"fact": "Lives in Jeddah"}).status_code,
        api.delete(f"/contacts/{theirs.id}/memories/{memory['id']}").status_code,
    ] == [404, 404, 404]


def test_adding_needs_the_ai_agents_feature(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services: Services
) -> None:
    """Without `ai_agents`, adding is a 403 `feature_not_in_plan`; listing stays allowed."""
    contact = make_contact(tenant)
    services.plans.update("business", PlanPatch(features={"ai_agents": False}))

    refused = api.post(f"/contacts/{contact.id}/memories", json={"fact": "Prefers email"})

    assert (refused.status_code, refused.json()["code"]) == (403, "feature_not_in_plan")
    assert api.get(f"/contacts/{contact.id}/memories").status_code == 200
