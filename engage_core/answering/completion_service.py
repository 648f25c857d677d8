"""OpenAI-compatible chat completions (SPEC 4, Chat completions) over the answer engine.

- `service-chat` (the default) answers the last message, which must be the customer's (`user`), as
  the workspace's default AI agent (`PersonaDirectory`; without one, `GENERIC_PERSONA`), grounded
  in its knowledge base: `AnswerEngine.answer`, the earlier `user` and `assistant` messages being
  the conversation so far and the `system` and `developer` messages instructions added to the
  agent's. The result carries the turn (action, citations, confidence). JSON mode is refused.
- `service-logic` is a raw completion of the messages (`LanguageModel.complete`); with
  `json_object` its content is always one JSON object: should the model still give something else
  after the adapter asked again, `NO_JSON_OBJECT` (`{"error": ...}`) stands in for it.

`max_tokens` bounds the answer: a raw completion's model stops there (`finish_reason` `length`); a
`service-chat` reply longer than `max_tokens * CHARS_PER_TOKEN` characters is cut on a sentence
boundary, `length` too. `usage` is always filled: the model's counts, or estimates
(`engage_core.answering.tokens`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

import attrs

from engage_core.answering.chat import (
    MODELS,
    SERVICE_CHAT,
    SERVICE_LOGIC,
    ChatMessage,
    ChatRequest,
    Usage,
    json_object,
)
from engage_core.answering.engine import AnswerEngine
from engage_core.answering.guardrails import fit
from engage_core.answering.passages import Passage, relevant
from engage_core.answering.persona import GENERIC_PERSONA
from engage_core.answering.ports import LanguageModel, PersonaDirectory
from engage_core.answering.tokens import CHARS_PER_TOKEN, estimate_tokens, estimate_usage
from engage_core.answering.turns import Turn
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import ValidationFailed
from engage_core.knowledge.embeddings import KnowledgeSearch

MODELS_CREATED = datetime(2025, 8, 1, tzinfo=UTC)
"""When the two models were introduced (SPEC 9: August), as `GET /models` dates them."""
OWNER = "engage"
INSTRUCTION_ROLES = ("system", "developer")
CONVERSATION_ROLES = ("user", "assistant")


@attrs.frozen
class ModelInfo:
    """A model alias as `GET /models` lists it."""

    id: str
    created: datetime
    owned_by: str
    description: str


MODEL_INFO: tuple[ModelInfo, ...] = (
    ModelInfo(
        SERVICE_CHAT,
        MODELS_CREATED,
        OWNER,
        "Answers as the workspace's default AI agent, from its knowledge base (the default).",
    ),
    ModelInfo(SERVICE_LOGIC, MODELS_CREATED, OWNER, "A raw completion; supports response_format json_object."),
)


@attrs.frozen
class CompletionInput:
    """A chat completion request: the messages, the model alias, the sampling temperature, the
    answer's token limit, and whether the answer must be a JSON object."""

    messages: tuple[ChatMessage, ...]
    model: str = SERVICE_CHAT
    temperature: float | None = None
    max_tokens: int | None = None
    json_object: bool = False


@attrs.frozen
class CompletionResult:
    """A chat completion: its id, when it was made, the model alias, the answer, why it stopped
    (`stop` or `length`), the tokens used, and for `service-chat` the turn it comes from."""

    id: str
    created: datetime
    model: str
    content: str
    finish_reason: str
    usage: Usage
    turn: Turn | None = None


class ChatCompletionService:
    """Chat completions for one workspace at a time (see the module notes)."""

    def __init__(
        self,
        clock: Clock,
        engine: AnswerEngine,
        model: LanguageModel,
        personas: PersonaDirectory,
        search: KnowledgeSearch,
    ) -> None:
        self._clock = clock
        self._engine = engine
        self._model = model
        self._personas = personas
        self._search = search

    def models(self) -> tuple[ModelInfo, ...]:
        """The model aliases, the default first."""
        return MODEL_INFO

    def complete(self, account_id: int, data: CompletionInput) -> CompletionResult:
        """The completion of `data` in the workspace. Raises `ValidationFailed` for an unknown
        model, JSON mode on `service-chat`, or a `service-chat` request whose last message is not
        a non-blank `user` message; `Unavailable` when the `service-logic` model cannot answer."""
        _check(data)
        if data.model == SERVICE_CHAT:
            return self._chat(account_id, data)
        return self._logic(account_id, data)

    def _chat(self, account_id: int, data: CompletionInput) -> CompletionResult:
        persona = self._personas.default_persona(account_id) or GENERIC_PERSONA
        *earlier, last = data.messages
        turn = self._engine.answer(
            account_id,
            persona,
            [m for m in earlier if m.role in CONVERSATION_ROLES],
            last.content,
            extra_instructions=[m.content for m in earlier if m.role in INSTRUCTION_ROLES],
            temperature=data.temperature,
            max_tokens=data.max_tokens,
        )
        content, finish, usage = turn.reply, "stop", turn.usage
        if data.max_tokens is not None:
            content = fit(turn.reply, data.max_tokens * CHARS_PER_TOKEN)
            if content != turn.reply:
                finish, usage = "length", Usage(usage.prompt_tokens, estimate_tokens(content))
        return self._result(data, content, finish, usage, turn)

    def _logic(self, account_id: int, data: CompletionInput) -> CompletionResult:
        def lookup(text: str) -> Sequence[Passage]:
            return relevant(self._search.search(account_id, text))

        request = ChatRequest(
            messages=data.messages,
            model=SERVICE_LOGIC,
            temperature=data.temperature,
            max_tokens=data.max_tokens,
            json_object=data.json_object,
            knowledge=lookup,
        )
        completion = self._model.complete(request)
        content = json_object(completion.content) if data.json_object else completion.content
        usage = completion.usage or estimate_usage((m.content for m in data.messages), content)
        return self._result(data, content, completion.finish_reason, usage, None)

    def _result(
        self, data: CompletionInput, content: str, finish: str, usage: Usage, turn: Turn | None
    ) -> CompletionResult:
        created = self._clock.now()
        return CompletionResult(f"chatcmpl-{secrets.token_hex(12)}", created, data.model, content, finish, usage, turn)


def _check(data: CompletionInput) -> None:
    if data.model not in MODELS:
        raise ValidationFailed.on("model", f"The model must be one of: {', '.join(MODELS)}.")
    if not data.messages:
        raise ValidationFailed.on("messages", "The messages must have at least 1 item.")
    if data.json_object and data.model != SERVICE_LOGIC:
        raise ValidationFailed.on(
            "response_format", f"JSON mode (json_object) is supported on {SERVICE_LOGIC} only, not on {data.model}."
        )
    if data.model == SERVICE_CHAT:
        last = data.messages[-1]
        if last.role != "user" or not last.content.strip():
            raise ValidationFailed.on(
                "messages", f"On {SERVICE_CHAT} the last message must be the customer's: role user, with text."
            )
