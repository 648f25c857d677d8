"""Request and response bodies of the OpenAI-compatible operations (SPEC 4, Chat completions: "Request
and response bodies: not shown"), as OpenAI's API has them.

A request may carry any of OpenAI's other parameters (`top_p`, `stop`, `tools`, `user`, ...): they
are ignored. `max_completion_tokens` wins over `max_tokens` when both are given. A message's
`content` is a string, an array of text parts (`{"type": "text", "text": ...}`, joined by line
breaks) or null (an empty text). A completion carries, beside OpenAI's fields, `engage`: the
structured turn of a `service-chat` answer (null on `service-logic`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.answering.chat import ChatMessage
from engage_core.answering.completion_service import CompletionInput, CompletionResult, ModelInfo
from engage_core.kernel.errors import ValidationFailed
from engage_http.constraints import NO_NUL, Doc, Integer, Items, Number
from engage_http.converter import structures_into

MAX_MESSAGES = 100
MAX_TOKENS = 100_000

Role = Literal["system", "developer", "user", "assistant", "tool"]
ModelAlias = Literal["service-chat", "service-logic"]
"""`engage_core.answering.chat.MODELS`."""

_TEXT_PART = {
    "type": "object",
    "properties": {"type": {"type": "string", "enum": ["text"]}, "text": {"type": "string", "pattern": NO_NUL}},
    "required": ["type", "text"],
}
CONTENT_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "pattern": NO_NUL},
        {"type": "array", "items": _TEXT_PART, "maxItems": 100},
        {"type": "null"},
    ],
    "description": "The message's text: a string, an array of text parts, or null.",
}


@attrs.frozen
class ChatCompletionMessageParam:
    """One message of the conversation: who wrote it and its text."""

    role: Role
    content: Any = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["properties"]["content"] = CONTENT_SCHEMA
        return schema

    def text(self, field: str) -> str:
        """The content as one text (see the module notes); `ValidationFailed` naming `field` otherwise."""
        content = self.content
        if content is None or isinstance(content, str):
            return content or ""
        if isinstance(content, list) and all(
            isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
            for part in content
        ):
            return "\n".join(part["text"] for part in content)
        raise ValidationFailed.on(field, f"The {field} must be a string, an array of text parts, or null.")


@attrs.frozen
class ResponseFormat:
    """The answer's format: `text`, or `json_object` (one JSON object; `service-logic` only)."""

    type: Literal["text", "json_object"]


def _completion_input(body: ChatCompletionCreate) -> CompletionInput:
    if body.stream:
        raise ValidationFailed.on("stream", "Streaming is not supported: leave stream out or set it to false.")
    if body.n is not None and body.n != 1:
        raise ValidationFailed.on("n", "Only one choice is generated: leave n out or set it to 1.")
    messages = tuple(ChatMessage(m.role, m.text(f"messages.{i}.content")) for i, m in enumerate(body.messages))
    max_tokens = body.max_completion_tokens if body.max_completion_tokens is not None else body.max_tokens
    json_mode = body.response_format is not None and body.response_format.type == "json_object"
    return CompletionInput(messages, body.model, body.temperature, max_tokens, json_mode)


@structures_into(CompletionInput, _completion_input)
@attrs.frozen
class ChatCompletionCreate:
    """A chat completion request, as OpenAI's API takes it."""

    messages: Annotated[list[ChatCompletionMessageParam], Items(min_items=1, max_items=MAX_MESSAGES)]
    model: Annotated[ModelAlias, Doc(description="The model alias.")] = "service-chat"
    temperature: Annotated[float, Number(minimum=0, maximum=2)] | None = None
    max_tokens: Annotated[int, Integer(minimum=1, maximum=MAX_TOKENS)] | None = None
    max_completion_tokens: Annotated[int, Integer(minimum=1, maximum=MAX_TOKENS)] | None = None
    n: int | None = None
    stream: bool | None = None
    response_format: ResponseFormat | None = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        properties = schema["properties"]
        properties["n"] = {"type": ["integer", "null"], "minimum": 1, "maximum": 1, "description": "Only 1."}
        # Not `enum: [false, null]`, which client generators cannot read: true is refused by the server.
        properties["stream"] = {
            "type": ["boolean", "null"],
            "description": "Streaming is not supported: true is a 400.",
        }
        properties["max_tokens"]["description"] = "Deprecated by OpenAI: use max_completion_tokens."
        # JSON mode is for service-logic only (the default model is service-chat).
        schema["anyOf"] = [
            {
                "properties": {
                    "response_format": {"anyOf": [{"type": "null"}, {"properties": {"type": {"const": "text"}}}]}
                }
            },
            {"properties": {"model": {"const": "service-logic"}}, "required": ["model"]},
        ]
        return schema


@attrs.frozen
class ChatCompletionModel:
    """A model alias, as OpenAI lists models."""

    id: str
    object: Literal["model"]
    created: int = attrs.field(metadata={"description": "When the model was introduced (Unix seconds)."})
    owned_by: str
    description: str

    @classmethod
    def from_domain(cls, info: ModelInfo) -> ChatCompletionModel:
        return cls(info.id, "model", _unix(info.created), info.owned_by, info.description)


@attrs.frozen
class ChatCompletionModelList:
    """The models, as OpenAI lists them: `service-chat` (the default) and `service-logic`."""

    object: Literal["list"]
    data: list[ChatCompletionModel]


@attrs.frozen
class ChatCompletionAnswer:
    """The assistant's message."""

    role: Literal["assistant"]
    content: str
    refusal: None = None


@attrs.frozen
class ChatCompletionChoice:
    """The one choice: its message and why it stopped (`length`: cut at `max_tokens`)."""

    index: int
    message: ChatCompletionAnswer
    finish_reason: Literal["stop", "length"]
    logprobs: None = None


@attrs.frozen
class ChatCompletionUsage:
    """Tokens used: the model's counts, or estimates (about four characters a token)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@attrs.frozen
class ChatCompletionTurn:
    """A `service-chat` answer's turn: what happens next (`continue`, `handoff` to a person, or
    `resolve`), the knowledge-base chunk ids it draws on, and how sure the engine is (0 to 1)."""

    action: Literal["continue", "handoff", "resolve"]
    citations: list[int]
    confidence: float


@attrs.frozen
class ChatCompletionObject:
    """A chat completion, as OpenAI's API answers one."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatCompletionChoice]
    usage: ChatCompletionUsage
    engage: ChatCompletionTurn | None = attrs.field(
        metadata={"description": "The structured turn of a service-chat answer; null on service-logic."}
    )
    system_fingerprint: None = None

    @classmethod
    def from_domain(cls, result: CompletionResult) -> ChatCompletionObject:
        finish: Literal["stop", "length"] = "length" if result.finish_reason == "length" else "stop"
        turn = result.turn
        engage = None if turn is None else ChatCompletionTurn(turn.action, list(turn.citations), turn.confidence)
        usage = ChatCompletionUsage(
            result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.total_tokens
        )
        choice = ChatCompletionChoice(0, ChatCompletionAnswer("assistant", result.content), finish)
        return cls(result.id, "chat.completion", _unix(result.created), result.model, [choice], usage, engage)


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())
