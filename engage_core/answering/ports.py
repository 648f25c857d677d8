"""What answering needs from outside: a language model, and the workspace's AI agents."""

from __future__ import annotations

from typing import Protocol

from engage_core.answering.chat import ChatCompletion, ChatRequest
from engage_core.answering.memory import MemoryRequest
from engage_core.answering.persona import Persona
from engage_core.answering.turns import TurnDraft, TurnRequest


class LanguageModel(Protocol):
    """A language model behind the aliases `service-chat` and `service-logic`
    (`engage_connectors.llm`: an OpenAI-compatible service, or the offline retrieval-only model)."""

    def compose_turn(self, request: TurnRequest) -> TurnDraft:
        """The model's turn for the assembled context, on `service-chat`. Never raises: when the
        model cannot answer (unreachable, an answer that is not the JSON shape asked for, even after
        asking again), a `handoff` draft."""

    def complete(self, request: ChatRequest) -> ChatCompletion:
        """A raw completion of `request.messages`. With `json_object`, the content is one JSON
        object. Raises `Unavailable` when the model cannot be reached or keeps failing."""

    def extract_memories(self, request: MemoryRequest) -> tuple[str, ...]:
        """The facts the customer's message states about themselves (the memory step,
        `engage_core.answering.memory`), short, in order. Never raises: a model that fails gives none."""


class PersonaDirectory(Protocol):
    """The workspace's AI agents, as personas (implemented by the AI agents area)."""

    def default_persona(self, account_id: int) -> Persona | None:
        """The workspace's default agent when it is active, else None."""
