"""Request and response bodies of AI agents (SPEC 2, AI agent; SPEC 3; SPEC 4, AI agents; SPEC 8).

`response_guidelines` is a free-form object, so the converter cannot check what is inside it: its
schema below states the core's rules (`engage_core.agents.model.check_guidelines`), which the
service enforces, so the published document and the 422s agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import attrs

from engage_core.agents import model as domain
from engage_core.agents.model import AgentInput, AgentPatch
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import NO_NUL, NOT_BLANK, Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import ContactIds, Name

SystemPrompt = Annotated[
    str,
    Text(max_length=domain.SYSTEM_PROMPT_MAX, blank=False),
    Doc(
        description="The core instructions.",
        example="You are the front desk of Café Nour. Answer from the knowledge base.",
    ),
]
Prompt = Annotated[str, Text(max_length=domain.PROMPT_MAX)]
Guidelines = Annotated[
    dict[str, Any],
    Doc(
        description="Key/value formatting rules (language, tone, length, ...): at most 50 keys; each value a "
        "string, a number, a boolean or a list of strings. `max_reply_chars` (50 to 4000) and `refused_topics` "
        "(topics the agent declines) are read by the answer engine. Null is `{}`; an update replaces the object."
    ),
]

_TEXT = {"type": "string", "maxLength": domain.GUIDELINE_TEXT_MAX, "pattern": NO_NUL}
_GUIDELINES_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "maxProperties": domain.GUIDELINES_MAX,
    "propertyNames": {"minLength": 1, "maxLength": domain.GUIDELINE_KEY_MAX, "pattern": NOT_BLANK},
    "properties": {
        domain.MAX_REPLY_CHARS: {
            "type": "integer",
            "minimum": domain.MAX_REPLY_CHARS_RANGE[0],
            "maximum": domain.MAX_REPLY_CHARS_RANGE[1],
            "description": "The longest reply the agent sends, in characters.",
        },
        domain.REFUSED_TOPICS: {
            "type": "array",
            "maxItems": domain.REFUSED_TOPICS_MAX,
            "items": {"type": "string", "minLength": 1, "maxLength": domain.REFUSED_TOPIC_MAX, "pattern": NOT_BLANK},
            "description": "Topics the agent declines to discuss.",
        },
    },
    "examples": [{"language": "en", "tone": "warm", "max_reply_chars": 600, "refused_topics": ["politics"]}],
    "additionalProperties": {
        "anyOf": [
            _TEXT,
            {"type": "number"},
            {"type": "boolean"},
            {"type": "array", "maxItems": domain.GUIDELINE_LIST_MAX, "items": _TEXT},
        ]
    },
}


def _guidelines_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The object schema with the rules of `response_guidelines` spelled out (its description kept)."""
    properties = schema["properties"]
    described = properties["response_guidelines"]
    properties["response_guidelines"] = {
        **_GUIDELINES_SCHEMA,
        "description": described["description"],
    }
    return schema


@structures_into(AgentInput)
@attrs.frozen
class AiAgentCreate:
    """A new AI agent. With `is_default` true it becomes the workspace's default agent (and is active),
    and the previous default loses the flag."""

    name: Name
    system_prompt: SystemPrompt
    instruction_prompt: Prompt | None = attrs.field(
        default=None, metadata={"description": "Appended after the system prompt."}
    )
    personality_prompt: Prompt | None = attrs.field(default=None, metadata={"description": "Tone and personality."})
    booking_agent_instructions: Prompt | None = attrs.field(
        default=None,
        metadata={"description": "Injected into the booking step; does not replace the built-in booking logic."},
    )
    memory_agent_instructions: Prompt | None = attrs.field(
        default=None,
        metadata={"description": "Injected into the memory step; does not replace the built-in memory logic."},
    )
    response_guidelines: Guidelines | None = None
    is_active: bool = True
    is_default: bool = attrs.field(
        default=False,
        metadata={"description": "Make it the default agent (assigned to new contacts). Needs `is_active` true."},
    )

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _guidelines_schema(schema)


@structures_into(AgentPatch)
@attrs.frozen
class AiAgentUpdate:
    """Any subset of the create fields; fields left out keep their value, null clears an optional prompt.
    `is_default` true does what set-default does; the default agent cannot be deactivated (422 on
    `is_active`) until another agent is the default or its `is_default` is set to false."""

    name: Name | Unset = UNSET
    system_prompt: SystemPrompt | Unset = UNSET
    instruction_prompt: Prompt | Unset | None = UNSET
    personality_prompt: Prompt | Unset | None = UNSET
    booking_agent_instructions: Prompt | Unset | None = UNSET
    memory_agent_instructions: Prompt | Unset | None = UNSET
    response_guidelines: Guidelines | Unset | None = UNSET
    is_active: bool | Unset = UNSET
    is_default: bool | Unset = UNSET

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _guidelines_schema(schema)


@attrs.frozen
class AiAgentAssign:
    """The contacts to assign the agent to (SPEC 8: at most 500)."""

    contact_ids: ContactIds = attrs.field(
        metadata={"description": "Contact ids; those not in the workspace are ignored. Each is counted once."}
    )


@renders(domain.AiAgent)
@attrs.frozen
class AiAgent:
    """An AI agent (SPEC 2)."""

    id: int
    name: str
    system_prompt: str
    instruction_prompt: str | None
    personality_prompt: str | None
    booking_agent_instructions: str | None
    memory_agent_instructions: str | None
    response_guidelines: dict[str, Any]
    is_active: bool
    is_default: bool = attrs.field(metadata={"description": "The workspace's default agent: assigned to new contacts."})
    created_at: datetime
    updated_at: datetime


@renders(domain.AgentAssignment)
@attrs.frozen
class AiAgentAssignment:
    """The answer to an assignment (SPEC 4)."""

    updated_count: int = attrs.field(
        metadata={"description": "The workspace's contacts among `contact_ids` that now have the agent."}
    )
    message: str


__all__ = ["AiAgent", "AiAgentAssign", "AiAgentAssignment", "AiAgentCreate", "AiAgentUpdate"]
