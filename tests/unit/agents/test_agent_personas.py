"""The answer engine's view of the stored agents: the workspace's default persona."""

from __future__ import annotations

from engage_core.agents.model import AgentInput, AgentPatch
from engage_core.agents.personas import AgentPersonas
from engage_core.services import Services


def test_the_default_persona_is_the_default_agents(services: Services, account_id: int) -> None:
    """The directory hands the engine the default agent's prompts and guidelines."""
    guidelines = {"tone": "warm", "max_reply_chars": 300}
    agent = services.ai_agents.create(
        account_id,
        AgentInput(
            "Concierge", "Be kind.", personality_prompt="Cheerful.", response_guidelines=guidelines, is_default=True
        ),
    )
    persona = services.dependencies.personas.default_persona(account_id)
    assert persona is not None
    assert (persona.agent_id, persona.name, persona.system_prompt, persona.personality_prompt) == (
        agent.id,
        "Concierge",
        "Be kind.",
        "Cheerful.",
    )
    assert dict(persona.response_guidelines) == guidelines


def test_a_workspace_without_a_default_agent_has_no_default_persona(services: Services, account_id: int) -> None:
    """Agents that are not the default do not answer as the workspace's default persona."""
    services.ai_agents.create(account_id, AgentInput("Night shift", "Be brief."))
    assert services.dependencies.personas.default_persona(account_id) is None


def test_the_directory_is_the_stored_agents_by_default(services: Services) -> None:
    """Services built without a directory read the stored agents."""
    assert isinstance(services.dependencies.personas, AgentPersonas)


def test_a_renamed_default_is_read_afresh(services: Services, account_id: int) -> None:
    """The directory reads the agent at each call, so an edit applies to the next answer."""
    agent = services.ai_agents.create(account_id, AgentInput("Concierge", "Be kind.", is_default=True))
    services.ai_agents.update(account_id, agent.id, AgentPatch(name="Host"))
    persona = services.dependencies.personas.default_persona(account_id)
    assert persona is not None and persona.name == "Host"
