"""AI agents (SPEC 2, 3, 4, 6, 8) over HTTP: creating, listing, reading, updating and deleting agents,
the default flag, assigning contacts, the contact's `ai_agent_id`, and the `ai_agents` plan feature."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

AGENT = {"name": "Concierge", "system_prompt": "You are the front desk of Café Nour."}


def create(api: Api, **fields: Any) -> dict[str, Any]:
    response = api.post("/ai-agents", json={**AGENT, **fields})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def agent_events(uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> list[str]:
    return [e.name for e in uow.store.events(tenant.account_id) if e.name.startswith("ai_agent.")]


# -- creating and reading --------------------------------------------------------------------------


def test_create_answers_201_with_every_field(api: Api) -> None:
    """`POST /ai-agents` stores the agent and renders every SPEC field."""
    response = api.post(
        "/ai-agents",
        json={
            **AGENT,
            "instruction_prompt": "Answer from the knowledge base.",
            "personality_prompt": "Warm and brief.",
            "booking_agent_instructions": "Offer mornings first.",
            "memory_agent_instructions": "Remember names.",
            "response_guidelines": {"language": "en", "max_reply_chars": 600, "refused_topics": ["politics"]},
        },
    )

    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "name": "Concierge",
        "system_prompt": "You are the front desk of Café Nour.",
        "instruction_prompt": "Answer from the knowledge base.",
        "personality_prompt": "Warm and brief.",
        "booking_agent_instructions": "Offer mornings first.",
        "memory_agent_instructions": "Remember names.",
        "response_guidelines": {"language": "en", "max_reply_chars": 600, "refused_topics": ["politics"]},
        "is_active": True,
        "is_default": False,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }
    assert response.json()["message"] == "AI agent created."


def test_create_defaults_the_optional_fields(api: Api) -> None:
    """Without them, the prompts are null, the guidelines `{}`, and the agent active and not the default."""
    data = create(api)

    assert {k: data[k] for k in ("instruction_prompt", "response_guidelines", "is_active", "is_default")} == {
        "instruction_prompt": None,
        "response_guidelines": {},
        "is_active": True,
        "is_default": False,
    }


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, ["name", "system_prompt"]),
        ({"name": " ", "system_prompt": "x"}, ["name"]),
        ({"name": "x" * 256, "system_prompt": "x"}, ["name"]),
        ({"name": "x", "system_prompt": "x" * 20_001}, ["system_prompt"]),
        ({"name": "x", "system_prompt": "x", "personality_prompt": "x" * 10_001}, ["personality_prompt"]),
        ({"name": "x", "system_prompt": "x", "response_guidelines": []}, ["response_guidelines"]),
        ({"name": "x", "system_prompt": "x", "is_active": "yes"}, ["is_active"]),
    ],
)
def test_invalid_agents_are_422_naming_the_fields(api: Api, body: dict[str, Any], fields: list[str]) -> None:
    """Missing, blank, too long or mistyped values are 422 with an error for each field."""
    response = api.post("/ai-agents", json=body)

    assert (response.status_code, sorted(response.json()["errors"])) == (422, fields)


def test_invalid_guidelines_are_422_naming_the_key(api: Api) -> None:
    """A `max_reply_chars` out of its range is a 422 on that key, saying the range."""
    response = api.post("/ai-agents", json={**AGENT, "response_guidelines": {"max_reply_chars": 10}})

    assert response.status_code == 422
    assert response.json()["errors"] == {
        "response_guidelines.max_reply_chars": [
            "The response_guidelines.max_reply_chars must be a whole number from 50 to 4000."
        ]
    }


def test_list_is_every_agent_most_recently_updated_first(api: Api, clock: FakeClock) -> None:
    """`GET /ai-agents` is one array, the agent changed last first, with no `meta`."""
    first = create(api, name="First")
    clock.advance(minutes=1)
    second = create(api, name="Second")
    clock.advance(minutes=1)
    api.put(f"/ai-agents/{first['id']}", json={"name": "First again"})

    body = api.get("/ai-agents").json()

    assert [a["id"] for a in body["data"]] == [first["id"], second["id"]]
    assert (body["message"], "meta" in body) == ("AI agents retrieved.", False)


def test_show_renders_the_agent(api: Api) -> None:
    """`GET /ai-agents/{id}` answers the agent as created."""
    created = create(api)

    assert api.get(f"/ai-agents/{created['id']}").json()["data"] == created


def test_an_unknown_agent_is_404(api: Api) -> None:
    """An id the workspace does not have answers 404 with the error envelope."""
    response = api.get("/ai-agents/999999")

    assert (response.status_code, response.json()["success"]) == (404, False)


# -- updating --------------------------------------------------------------------------------------


def test_update_changes_only_the_fields_given(api: Api) -> None:
    """`PUT /ai-agents/{id}` with one field keeps the others."""
    created = create(api, personality_prompt="Warm.")

    response = api.put(f"/ai-agents/{created['id']}", json={"system_prompt": "Be brief."})

    data = response.json()["data"]
    assert (response.status_code, response.json()["message"]) == (200, "AI agent updated.")
    assert (data["system_prompt"], data["personality_prompt"], data["name"]) == ("Be brief.", "Warm.", "Concierge")


def test_update_null_clears_an_optional_prompt(api: Api) -> None:
    """Null clears an optional prompt; null is not accepted for the system prompt."""
    created = create(api, personality_prompt="Warm.")

    cleared = api.put(f"/ai-agents/{created['id']}", json={"personality_prompt": None})
    refused = api.put(f"/ai-agents/{created['id']}", json={"system_prompt": None})

    assert cleared.json()["data"]["personality_prompt"] is None
    assert (refused.status_code, list(refused.json()["errors"])) == (422, ["system_prompt"])


def test_deactivating_the_default_is_a_422(api: Api) -> None:
    """`PUT {"is_active": false}` on the default is refused on `is_active`, with the reason."""
    created = create(api, is_default=True)

    response = api.put(f"/ai-agents/{created['id']}", json={"is_active": False})

    assert response.status_code == 422
    assert response.json()["errors"] == {
        "is_active": [
            "The default AI agent must be active. Make another agent the default, or set is_default to false, first."
        ]
    }


# -- the default flag ------------------------------------------------------------------------------


def test_set_default_makes_the_agent_default_and_active(api: Api) -> None:
    """`POST /ai-agents/{id}/set-default` answers the agent, now default and active; the old default is not."""
    first = create(api, name="First", is_default=True)
    second = create(api, name="Second", is_active=False)

    response = api.post(f"/ai-agents/{second['id']}/set-default")

    data = response.json()["data"]
    assert (response.status_code, response.json()["message"]) == (200, "AI agent set as the default.")
    assert (data["is_default"], data["is_active"]) == (True, True)
    assert api.get(f"/ai-agents/{first['id']}").json()["data"]["is_default"] is False


def test_creating_a_default_clears_the_previous_one(api: Api) -> None:
    """A second agent created with `is_default` true leaves it the only default."""
    create(api, name="First", is_default=True)
    second = create(api, name="Second", is_default=True)

    assert [a["id"] for a in api.get("/ai-agents").json()["data"] if a["is_default"]] == [second["id"]]


def test_the_default_cannot_be_deleted(api: Api) -> None:
    """Deleting the default is a 422 whose message says why, and the agent stays."""
    created = create(api, is_default=True)

    response = api.delete(f"/ai-agents/{created['id']}")

    message = "The default AI agent cannot be deleted. Make another agent the default first."
    assert (response.status_code, response.json()) == (
        422,
        {"success": False, "message": message, "errors": {"is_default": [message]}},
    )
    assert api.get(f"/ai-agents/{created['id']}").status_code == 200


def test_delete_answers_204_and_the_agent_is_gone(api: Api) -> None:
    """Deleting another agent answers 204 with no body; the agent is then 404."""
    created = create(api)

    response = api.delete(f"/ai-agents/{created['id']}")

    assert (response.status_code, response.content) == (204, b"")
    assert api.get(f"/ai-agents/{created['id']}").status_code == 404


def test_the_changes_record_their_events(api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> None:
    """Create, a set-default that moves the flag, and delete record `ai_agent.*` events in order."""
    first = create(api, name="First", is_default=True)
    second = create(api, name="Second")
    api.post(f"/ai-agents/{second['id']}/set-default")
    api.delete(f"/ai-agents/{first['id']}")

    assert agent_events(uow, tenant) == [
        "ai_agent.created",
        "ai_agent.created",
        "ai_agent.updated",
        "ai_agent.updated",
        "ai_agent.deleted",
    ]


# -- assigning contacts ----------------------------------------------------------------------------


def test_assign_answers_the_count_and_a_message(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`POST /ai-agents/{id}/assign` answers `updated_count` and `message` in `data`; the contacts show the agent."""
    agent = create(api)
    contacts = [make_contact(tenant).id for _ in range(2)]

    response = api.post(f"/ai-agents/{agent['id']}/assign", json={"contact_ids": [*contacts, 999_999]})

    assert response.status_code == 200, response.text
    assert response.json()["data"] == {"updated_count": 2, "message": "2 contacts assigned to the AI agent."}
    assert response.json()["message"] == "2 contacts assigned to the AI agent."
    assert {api.get(f"/contacts/{c}").json()["data"]["ai_agent_id"] for c in contacts} == {agent["id"]}


def test_assign_does_not_count_another_workspaces_contacts(
    api: Api, make_tenant: Callable[..., Tenant], make_contact: Callable[..., Contact], services: Services
) -> None:
    """A contact id of another workspace is ignored: not counted, not changed."""
    other = make_tenant("Other")
    theirs = make_contact(other)
    agent = create(api)

    response = api.post(f"/ai-agents/{agent['id']}/assign", json={"contact_ids": [theirs.id]})

    assert response.json()["data"]["updated_count"] == 0
    assert services.contacts.get(other.account_id, theirs.id).ai_agent_id is None


@pytest.mark.parametrize("count", [0, 501])
def test_assign_takes_1_to_500_contact_ids(api: Api, count: int) -> None:
    """No ids, or more than 500 (SPEC 8), is a 422 on `contact_ids`."""
    agent = create(api)

    response = api.post(f"/ai-agents/{agent['id']}/assign", json={"contact_ids": list(range(1, count + 1))})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["contact_ids"])


def test_a_new_contact_shows_the_default_agent(api: Api) -> None:
    """`POST /contacts` in a workspace with a default agent answers the contact with `ai_agent_id` set."""
    agent = create(api, is_default=True)

    response = api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    assert response.json()["data"]["ai_agent_id"] == agent["id"]


def test_deleting_an_agent_unassigns_its_contacts(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """After the delete, the agent's contacts show `ai_agent_id` null."""
    agent = create(api)
    contact = make_contact(tenant).id
    api.post(f"/ai-agents/{agent['id']}/assign", json={"contact_ids": [contact]})

    api.delete(f"/ai-agents/{agent['id']}")

    assert api.get(f"/contacts/{contact}").json()["data"]["ai_agent_id"] is None


# -- the plan feature ------------------------------------------------------------------------------


def test_without_ai_agents_in_the_plan_creating_is_403(api: Api, services: Services) -> None:
    """A plan without `ai_agents` refuses a new agent with 403 `feature_not_in_plan`; listing stays allowed."""
    services.plans.update("business", PlanPatch(features={"ai_agents": False}))

    refused = api.post("/ai-agents", json=AGENT)

    assert (refused.status_code, refused.json()["code"]) == (403, "feature_not_in_plan")
    assert api.get("/ai-agents").status_code == 200
