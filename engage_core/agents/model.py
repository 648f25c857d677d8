"""AI agents: the entity, its fields' rules and the default flag (SPEC 2 AI agent, SPEC 3 AI agent
default flag, SPEC 6 `ai_agent.*`, SPEC 8).

Fields (the name's and the prompts' limits are counted after trimming surrounding spaces, the
guidelines' as written):

- `name` is required, at most `NAME_MAX` (255) characters (SPEC 8): an internal label.
- `system_prompt` is required, at most `SYSTEM_PROMPT_MAX` (20,000) characters: the core instructions.
- `instruction_prompt`, `personality_prompt`, `booking_agent_instructions` and
  `memory_agent_instructions` are optional, at most `PROMPT_MAX` (10,000) characters each; blank is null.
- `response_guidelines` is a JSON object of at most `GUIDELINES_MAX` (50) keys (each 1 to 100
  characters); every value is a string (at most 1,000 characters), a finite number, a boolean, or a
  list of at most 50 such strings. Null or left out is `{}`; a change replaces the whole object. Two
  keys are understood by the answer engine and checked here (`check_guidelines`):

  - `max_reply_chars`: an integer from 50 to 4,000, the longest reply the agent sends;
  - `refused_topics`: at most 50 topics of 1 to 100 characters each (not blank; stored trimmed),
    which the agent declines to discuss.

  Any other key (`language`, `tone`, ...) is free-form, passed to the prompt as written.
- `is_active` (default true) and `is_default` (default false).

The default flag (SPEC 3): the default agent is the one new contacts are assigned to, and the one
that answers a contact with no active agent of its own.

- At most one agent of a workspace is the default, also under concurrent requests: the storage
  keeps it with a unique index on the account's default agent, and the service changes the flag
  only under the account's agents lock (`AiAgentRepository.lock`).
- Making an agent the default (`POST /ai-agents/{id}/set-default`, creating one with `is_default`
  true, or `is_default: true` in an update) also makes it active, and clears the flag of the
  previous default, which gets `ai_agent.updated` too.
- The default agent is always active. Asking for a default that is inactive (`is_default` true
  with `is_active` false, or deactivating the default) is a 422 on `is_active`. Refused rather than
  allowed because an inactive default would still be assigned to every new contact and answer none
  of them: the workspace would go silent without an error anywhere. To stop it, make another agent
  the default, or clear the flag (`is_default: false`) first.
- Clearing the flag of the default (`is_default: false`) is allowed: the workspace then has no
  default, and new contacts get no agent.
- The default agent cannot be deleted (422 on `is_default`); deleting another agent unassigns it
  from every contact that had it.

Contacts carry `ai_agent_id` (an addition to SPEC 2's contact): the agent assigned to them, or null.
A new contact, however it is created, gets the workspace's default agent when that is active
(`ContactRepository.add`). Assigning (`POST /ai-agents/{id}/assign`) sets it on up to
`CONTACT_IDS_MAX` (500) contacts at once; an inactive agent may be assigned (it answers nobody
until activated, and its contacts are answered by the default meanwhile, `agent_for_contact`).
Assignment changes neither the contacts' `updated_at` nor emits `contact.updated`: the field is
not in SPEC 6's contact payload, and one request could otherwise flood 500 events.

Events: `ai_agent.created`, `ai_agent.updated` (any stored change: name, a prompt or instruction,
the guidelines, the active status, or the default flag, including the previous default losing it),
`ai_agent.deleted`, each with exactly SPEC 6's fields.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeAlias

import attrs

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, optional_text, required_text

NAME_MAX = 255
"""SPEC 8: an AI agent's name is at most 255 characters."""
SYSTEM_PROMPT_MAX = 20_000
"""Room for detailed instructions, yet a small fraction of a model's context window."""
PROMPT_MAX = 10_000
"""Each of the four optional prompts and instructions."""
AGENTS_MAX = 100
"""Agents one workspace may have: `GET /ai-agents` returns all of them in one answer, so their number
is bounded (a workspace needs a handful)."""

GUIDELINES_MAX = 50
GUIDELINE_KEY_MAX = 100
GUIDELINE_TEXT_MAX = 1000
GUIDELINE_LIST_MAX = 50
MAX_REPLY_CHARS = "max_reply_chars"
MAX_REPLY_CHARS_RANGE = (50, 4000)
REFUSED_TOPICS = "refused_topics"
REFUSED_TOPICS_MAX = 50
REFUSED_TOPIC_MAX = 100

GuidelineValue: TypeAlias = str | int | float | bool | list[str]
"""A value of `response_guidelines`."""

PROMPTS: tuple[str, ...] = (
    "instruction_prompt",
    "personality_prompt",
    "booking_agent_instructions",
    "memory_agent_instructions",
)
"""The optional texts, each at most `PROMPT_MAX` characters."""


@attrs.frozen
class AiAgent:
    """SPEC 2, AI agent."""

    id: int
    name: str
    system_prompt: str
    instruction_prompt: str | None
    personality_prompt: str | None
    booking_agent_instructions: str | None
    memory_agent_instructions: str | None
    response_guidelines: Mapping[str, GuidelineValue]
    is_active: bool
    is_default: bool
    created_at: datetime
    updated_at: datetime

    @property
    def max_reply_chars(self) -> int | None:
        """`response_guidelines.max_reply_chars`, when set: the longest reply the agent sends."""
        value = self.response_guidelines.get(MAX_REPLY_CHARS)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def refused_topics(self) -> tuple[str, ...]:
        """`response_guidelines.refused_topics`: the topics the agent declines to discuss."""
        value = self.response_guidelines.get(REFUSED_TOPICS)
        return tuple(value) if isinstance(value, list) else ()

    def event_payload(self) -> Mapping[str, Any]:
        """`ai_agent.created` / `ai_agent.updated` data (SPEC 6)."""
        return {
            "id": self.id,
            "name": self.name,
            "is_active": self.is_active,
            "is_default": self.is_default,
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }

    def deleted_payload(self, deleted_at: datetime) -> Mapping[str, Any]:
        """`ai_agent.deleted` data (SPEC 6)."""
        return {"id": self.id, "name": self.name, "deleted_at": format_timestamp(deleted_at)}


@attrs.frozen
class AgentInput:
    """Fields of `POST /ai-agents`. `response_guidelines` None is `{}`."""

    name: str
    system_prompt: str
    instruction_prompt: str | None = None
    personality_prompt: str | None = None
    booking_agent_instructions: str | None = None
    memory_agent_instructions: str | None = None
    response_guidelines: Mapping[str, Any] | None = None
    is_active: bool = True
    is_default: bool = False


@attrs.frozen
class AgentPatch:
    """Fields of `PUT /ai-agents/{id}`: any subset; `UNSET` leaves a field alone, None clears an
    optional prompt (and makes the guidelines `{}`)."""

    name: str | Unset = UNSET
    system_prompt: str | Unset = UNSET
    instruction_prompt: str | Unset | None = UNSET
    personality_prompt: str | Unset | None = UNSET
    booking_agent_instructions: str | Unset | None = UNSET
    memory_agent_instructions: str | Unset | None = UNSET
    response_guidelines: Mapping[str, Any] | Unset | None = UNSET
    is_active: bool | Unset = UNSET
    is_default: bool | Unset = UNSET


@attrs.frozen
class AgentDraft:
    """A validated new agent, before it has an id."""

    name: str
    system_prompt: str
    instruction_prompt: str | None = None
    personality_prompt: str | None = None
    booking_agent_instructions: str | None = None
    memory_agent_instructions: str | None = None
    response_guidelines: Mapping[str, GuidelineValue] = attrs.Factory(dict)
    is_active: bool = True
    is_default: bool = False


@attrs.frozen
class AgentAssignment:
    """The answer to `POST /ai-agents/{id}/assign`: how many of the workspace's contacts now have
    the agent (each named contact once, those that had it already included), and a sentence saying so."""

    updated_count: int
    message: str


DEFAULT_INACTIVE = (
    "The default AI agent must be active. Make another agent the default, or set is_default to false, first."
)
DEFAULT_UNDELETABLE = "The default AI agent cannot be deleted. Make another agent the default first."


def validate_agent(data: AgentInput) -> AgentDraft:
    """The agent `data` describes, every field checked at once (a 422 names every problem).
    `is_default` true makes it active; with `is_active` false it is a 422 on `is_active`."""
    errors = ErrorCollector()
    name = errors.run(lambda: required_text("name", _text(data.name), max_length=NAME_MAX))
    system = errors.run(lambda: required_text("system_prompt", _text(data.system_prompt), max_length=SYSTEM_PROMPT_MAX))
    prompts = {field: errors.run(functools.partial(_prompt, field, getattr(data, field))) for field in PROMPTS}
    guidelines = errors.run(lambda: check_guidelines(data.response_guidelines))
    active = errors.run(lambda: _flag("is_active", data.is_active))
    default = errors.run(lambda: _flag("is_default", data.is_default))
    if default and active is False:
        errors.errors.setdefault("is_active", []).append(DEFAULT_INACTIVE)
    errors.raise_if_any()
    assert name is not None and system is not None and guidelines is not None
    return AgentDraft(
        name=name,
        system_prompt=system,
        response_guidelines=guidelines,
        is_active=True if default else bool(active),
        is_default=bool(default),
        **prompts,
    )


def checked_patch(patch: AgentPatch) -> AgentPatch:
    """`patch` with every given field checked at once and cleaned (trimmed texts, blank prompts None,
    the guidelines as `check_guidelines` stores them), before the agent is even read: a bad field is
    a 422 whether or not the agent exists."""
    errors = ErrorCollector()
    fields: dict[str, Any] = {}
    if patch.name is not UNSET:
        fields["name"] = errors.run(lambda: required_text("name", _text(patch.name), max_length=NAME_MAX))
    if patch.system_prompt is not UNSET:
        fields["system_prompt"] = errors.run(
            lambda: required_text("system_prompt", _text(patch.system_prompt), max_length=SYSTEM_PROMPT_MAX)
        )
    for field in PROMPTS:
        value = getattr(patch, field)
        if value is not UNSET:
            fields[field] = errors.run(functools.partial(_prompt, field, value))
    if patch.response_guidelines is not UNSET:
        fields["response_guidelines"] = errors.run(lambda: check_guidelines(patch.response_guidelines))
    if patch.is_active is not UNSET:
        fields["is_active"] = errors.run(lambda: _flag("is_active", patch.is_active))
    if patch.is_default is not UNSET:
        fields["is_default"] = errors.run(lambda: _flag("is_default", patch.is_default))
    errors.raise_if_any()
    return attrs.evolve(patch, **fields)


def patched(current: AiAgent, patch: AgentPatch, now: datetime) -> AiAgent:
    """The agent with a `checked_patch` applied; `updated_at` is `now` when anything changed (the
    agent as it was otherwise). `is_default` true also activates it; the result may not be a default
    that is inactive (422 on `is_active`). Clearing the previous default is the service's part."""
    fields = {f.name: getattr(patch, f.name) for f in attrs.fields(AgentPatch) if getattr(patch, f.name) is not UNSET}
    if fields.get("is_default") is True:
        fields.setdefault("is_active", True)
    if "response_guidelines" in fields and fields["response_guidelines"] is None:
        fields["response_guidelines"] = {}
    changed = attrs.evolve(current, **fields)
    if changed.is_default and not changed.is_active:
        raise ValidationFailed.on("is_active", DEFAULT_INACTIVE)
    return current if changed == current else attrs.evolve(changed, updated_at=now)


def made_default(agent: AiAgent, now: datetime) -> AiAgent:
    """SPEC 3 set-default: the agent default and active (as it was when it already is both)."""
    if agent.is_default and agent.is_active:
        return agent
    return attrs.evolve(agent, is_default=True, is_active=True, updated_at=now)


def demoted(agent: AiAgent, now: datetime) -> AiAgent:
    """The previous default once another agent became the default: no longer the default."""
    return attrs.evolve(agent, is_default=False, updated_at=now)


def assignment(count: int) -> AgentAssignment:
    """The answer to an assignment of `count` contacts."""
    noun = "contact" if count == 1 else "contacts"
    return AgentAssignment(count, f"{count} {noun} assigned to the AI agent.")


# -- response guidelines ----------------------------------------------------------------------------


def check_guidelines(value: object) -> dict[str, GuidelineValue]:
    """`response_guidelines` as stored: a copy, with `refused_topics` trimmed and an integral
    `max_reply_chars` an `int`; ValidationFailed naming `response_guidelines` or the key
    (`response_guidelines.max_reply_chars`) otherwise. None is `{}`."""
    if value is None:
        return {}
    field = "response_guidelines"
    if not isinstance(value, Mapping):
        raise ValidationFailed.on(field, f"The {field} must be an object.")
    if len(value) > GUIDELINES_MAX:
        raise ValidationFailed.on(field, f"The {field} may not have more than {GUIDELINES_MAX} keys.")
    errors = ErrorCollector()
    checked: dict[str, GuidelineValue] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key.strip() or len(key) > GUIDELINE_KEY_MAX or not _unicode(key):
            errors.errors.setdefault(field, []).append(
                f"Each key of the {field} must have 1 to {GUIDELINE_KEY_MAX} characters, not all spaces."
            )
            continue
        checker = _KNOWN.get(key, _free_value)
        result = errors.run(functools.partial(checker, f"{field}.{key}", item))
        if result is not None:
            checked[key] = result
    errors.raise_if_any()
    return checked


def _max_reply_chars(path: str, value: object) -> int:
    low, high = MAX_REPLY_CHARS_RANGE
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationFailed.on(path, f"The {path} must be a whole number from {low} to {high}.")
    return value


def _refused_topics(path: str, value: object) -> list[str]:
    message = (
        f"The {path} must be a list of at most {REFUSED_TOPICS_MAX} topics of 1 to {REFUSED_TOPIC_MAX} characters."
    )
    if not isinstance(value, list):
        raise ValidationFailed.on(path, message)
    if len(value) > REFUSED_TOPICS_MAX:
        raise ValidationFailed.on(path, f"The {path} may not have more than {REFUSED_TOPICS_MAX} items.")
    topics = [topic for topic in value if isinstance(topic, str)]
    if len(topics) != len(value) or not all(_text_fits(topic, REFUSED_TOPIC_MAX) and topic.strip() for topic in topics):
        raise ValidationFailed.on(path, message)
    return [topic.strip() for topic in topics]


def _free_value(path: str, value: object) -> GuidelineValue:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValidationFailed.on(path, f"The {path} must be a finite number.")
        return value
    if isinstance(value, str):
        if not _text_fits(value, GUIDELINE_TEXT_MAX):
            raise ValidationFailed.on(path, f"The {path} may not be greater than {GUIDELINE_TEXT_MAX} characters.")
        return value
    if isinstance(value, list) and len(value) > GUIDELINE_LIST_MAX:
        raise ValidationFailed.on(path, f"The {path} may not have more than {GUIDELINE_LIST_MAX} items.")
    if isinstance(value, list) and all(
        isinstance(item, str) and _text_fits(item, GUIDELINE_TEXT_MAX) for item in value
    ):
        return list(value)
    raise ValidationFailed.on(
        path,
        f"The {path} must be a string, a number, a boolean or a list of at most {GUIDELINE_LIST_MAX} strings "
        f"of at most {GUIDELINE_TEXT_MAX} characters.",
    )


_KNOWN: dict[str, Callable[[str, object], GuidelineValue]] = {
    MAX_REPLY_CHARS: _max_reply_chars,
    REFUSED_TOPICS: _refused_topics,
}


# -- helpers -------------------------------------------------------------------------------------


def _text_fits(text: str, limit: int) -> bool:
    """At most `limit` characters as written (the published schema's `maxLength`), all valid Unicode."""
    return len(text) <= limit and _unicode(text)


def _unicode(text: str) -> bool:
    """No lone surrogate (JSON can carry one; no database can store it as text)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _prompt(field: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValidationFailed.on(field, f"The {field} must be a string.")
    return optional_text(field, value, max_length=PROMPT_MAX)


def _flag(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValidationFailed.on(field, f"The {field.replace('_', ' ')} field must be true or false.")
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def ids_once(contact_ids: Sequence[int]) -> list[int]:
    """The ids in their order, each once."""
    return list(dict.fromkeys(contact_ids))
