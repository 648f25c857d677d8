"""Personas: what the answer engine needs of an AI agent (SPEC 2, AI agent), and where it finds a
workspace's default one.

The AI agents area stores agents; the engine only reads a `Persona`, through the
`PersonaDirectory` port (`engage_core.answering.ports`), which `engage_core.agents.personas`
implements over the stored agents. A workspace without a default agent has the chat completions of
`service-chat` answer as `GENERIC_PERSONA`: a neutral assistant grounded in the workspace's
knowledge base.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen
class Persona:
    """An AI agent as the engine sees it.

    `system_prompt`, `instruction_prompt` (appended after it), `personality_prompt` (tone) and
    `response_guidelines` (key/value rules, `engage_core.answering.guidelines`) go into every answer's
    prompt. `booking_agent_instructions` and `memory_agent_instructions` belong to the booking and
    memory steps, and are not part of an answer's prompt. `agent_id` is None for a persona that is
    no stored agent (`GENERIC_PERSONA`)."""

    name: str
    system_prompt: str
    agent_id: int | None = None
    instruction_prompt: str | None = None
    personality_prompt: str | None = None
    booking_agent_instructions: str | None = None
    memory_agent_instructions: str | None = None
    response_guidelines: Mapping[str, Any] = attrs.field(factory=dict, hash=False)


GENERIC_PERSONA = Persona(
    name="Assistant",
    system_prompt=(
        "You are the customer-service assistant of this business. You answer customers' questions "
        "briefly and politely, from the business's knowledge base only."
    ),
)
"""Who `service-chat` answers as in a workspace without a default AI agent."""


class NoPersonas:
    """A `PersonaDirectory` with no agents: every workspace is without a default one."""

    def default_persona(self, account_id: int) -> Persona | None:
        """None: no workspace has a default agent."""
        return None
