"""AI agents in the dashboard (`engage_http.dashboard.agents`) over the in-memory fakes: adding one,
editing its prompts with errors beside the fields, making it the default, deleting, and roles."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.agents.model import AgentInput
from engage_core.services import Services


def signed_in(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], path: str = "/app/agents"
) -> httpx.Response:
    add_member(tenant)
    sign_in(browser)
    return browser.get(path)


def test_adding_the_first_agent_makes_it_the_default(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The add form creates the agent; ticked as default, it answers new contacts."""
    page = signed_in(browser, tenant, add_member)
    form = {"name": "Concierge", "system_prompt": "Be kind.", "is_default": "1", "csrf": csrf_of(page)}
    answer = browser.post("/app/agents", data=form)
    assert answer.status_code == 303
    default = services.ai_agents.default_agent(tenant.account_id)
    assert default is not None and (default.name, default.system_prompt) == ("Concierge", "Be kind.")


def test_an_agent_without_a_prompt_shows_the_error_beside_it(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A blank system prompt is 422 beside the field; the name typed stays; nothing is created."""
    page = signed_in(browser, tenant, add_member)
    answer = browser.post("/app/agents", data={"name": "Concierge", "system_prompt": "", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="agent-system_prompt-error"' in answer.text and 'value="Concierge"' in answer.text
    assert services.ai_agents.list(tenant.account_id) == []


def test_editing_an_agents_prompts(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Save replaces the prompts; an emptied optional prompt is cleared."""
    agent = services.ai_agents.create(
        tenant.account_id, AgentInput("Concierge", "Be kind.", personality_prompt="Warm.")
    )
    page = signed_in(browser, tenant, add_member, f"/app/agents/{agent.id}")
    assert "Warm." in page.text
    form = {
        "name": "Concierge",
        "system_prompt": "Be brief.",
        "personality_prompt": "",
        "is_active": "1",
        "csrf": csrf_of(page),
    }
    browser.post(f"/app/agents/{agent.id}", data=form)
    saved = services.ai_agents.get(tenant.account_id, agent.id)
    assert (saved.system_prompt, saved.personality_prompt, saved.is_active) == ("Be brief.", None, True)


def test_another_agent_becomes_the_default(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Make it the default: the other agent is no longer the default."""
    first = services.ai_agents.create(tenant.account_id, AgentInput("First", "One.", is_default=True))
    second = services.ai_agents.create(tenant.account_id, AgentInput("Second", "Two."))
    page = signed_in(browser, tenant, add_member, f"/app/agents/{second.id}")
    browser.post(f"/app/agents/{second.id}/default", data={"csrf": csrf_of(page)})
    assert services.ai_agents.default_agent(tenant.account_id) == services.ai_agents.get(tenant.account_id, second.id)
    assert services.ai_agents.get(tenant.account_id, first.id).is_default is False


def test_deleting_an_agent(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Delete removes the agent and returns to the list."""
    agent = services.ai_agents.create(tenant.account_id, AgentInput("Concierge", "Be kind."))
    page = signed_in(browser, tenant, add_member, f"/app/agents/{agent.id}")
    answer = browser.post(f"/app/agents/{agent.id}/delete", data={"csrf": csrf_of(page)})
    assert answer.headers["location"] == "/app/agents"
    assert services.ai_agents.list(tenant.account_id) == []


def test_an_agent_member_is_refused_the_agents_page(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """AI agents are for admins: 403 to a member with the agent role."""
    add_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/agents").status_code == 403
