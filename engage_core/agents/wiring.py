"""The AI agents area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.agents.service import AiAgentService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class AgentsServices:
    """The AI agents area's service: the agents, the default agent and assignments."""

    ai_agents: AiAgentService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.ai_agents = AiAgentService(deps.uow, deps.clock)
