"""The AI agents as the answer engine reads them: each agent's `Persona`, and the workspace's
default one (the `PersonaDirectory` of `engage_core.answering`)."""

from __future__ import annotations

from engage_core.agents.model import AiAgent
from engage_core.answering.persona import Persona
from engage_core.unit_of_work import UnitOfWorkFactory


def persona_of(agent: AiAgent) -> Persona:
    """The persona the engine answers as, from the agent's prompts and guidelines."""
    return Persona(
        name=agent.name,
        system_prompt=agent.system_prompt,
        agent_id=agent.id,
        instruction_prompt=agent.instruction_prompt,
        personality_prompt=agent.personality_prompt,
        booking_agent_instructions=agent.booking_agent_instructions,
        memory_agent_instructions=agent.memory_agent_instructions,
        response_guidelines=dict(agent.response_guidelines),
    )


class AgentPersonas:
    """The `PersonaDirectory` over the stored agents: a workspace's default persona is its active
    default agent."""

    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self._uow = uow

    def default_persona(self, account_id: int) -> Persona | None:
        """The persona of the workspace's active default agent, or None when it has none."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            agent = uow.ai_agents.default()
        return None if agent is None or not agent.is_active else persona_of(agent)
