"""Raw chat with a language model: messages in, one completion out (the `complete` half of the
`LanguageModel` port, `engage_core.answering.ports`).

Two models are offered, by alias: `service-chat` (answers customers as an AI agent, grounded in the
knowledge base) and `service-logic` (a raw completion, for classification, extraction and other
instructions; it may be asked for a JSON object). An adapter maps each alias to a model of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Literal

import attrs

from engage_core.answering.passages import Passage

SERVICE_CHAT = "service-chat"
SERVICE_LOGIC = "service-logic"
MODELS: tuple[str, ...] = (SERVICE_CHAT, SERVICE_LOGIC)
"""Every model alias, the default first."""

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = ("system", "developer", "user", "assistant", "tool")

FinishReason = Literal["stop", "length"]

NO_JSON_OBJECT = json.dumps({"error": "The model did not produce a JSON object."})
"""What stands for a JSON-mode answer that is not one JSON object, so the content always parses."""

PassageLookup = Callable[[str], Sequence[Passage]]
"""The knowledge-base passages that best answer a text, best first."""


@attrs.frozen
class ChatMessage:
    """One message of a conversation: its role and its text."""

    role: str
    content: str


@attrs.frozen
class Usage:
    """Tokens a completion used: those of the prompt and those of the answer."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens


@attrs.frozen
class ChatRequest:
    """A raw completion: `messages` for the model of alias `model`. With `json_object`, the answer
    must be one JSON object. `knowledge` looks up the workspace's knowledge base: a model that
    answers from retrieval alone (the offline one) answers the last user message from it; a
    generative model is given the messages alone."""

    messages: tuple[ChatMessage, ...]
    model: str = SERVICE_LOGIC
    temperature: float | None = None
    max_tokens: int | None = None
    json_object: bool = False
    knowledge: PassageLookup | None = attrs.field(default=None, eq=False)


@attrs.frozen
class ChatCompletion:
    """A model's answer: its text, why it stopped (`length`: cut at the token limit), and the
    tokens used when the model says (None: the caller estimates them, `tokens`)."""

    content: str
    finish_reason: str = "stop"
    usage: Usage | None = None


def last_user_message(messages: Sequence[ChatMessage]) -> str:
    """The text of the last `user` message ("" when there is none)."""
    for message in reversed(messages):
        if message.role == "user":
            return message.content
    return ""


def json_object(content: str) -> str:
    """`content` when it is one JSON object, else `NO_JSON_OBJECT`."""
    try:
        parsed = json.loads(content)
    except ValueError:
        return NO_JSON_OBJECT
    return content if isinstance(parsed, dict) else NO_JSON_OBJECT
