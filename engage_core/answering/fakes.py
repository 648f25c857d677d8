"""Fakes of the answering ports: a scripted language model and an in-memory persona directory."""

from __future__ import annotations

from collections.abc import Callable

from engage_core.answering.chat import ChatCompletion, ChatRequest
from engage_core.answering.memory import MemoryRequest, self_statements
from engage_core.answering.persona import Persona
from engage_core.answering.turns import TurnDraft, TurnRequest
from engage_core.kernel.errors import Unavailable


class ScriptedLanguageModel:
    """A `LanguageModel` answering as told, and recording what it was asked.

    `turn` decides each draft from the request (by default: a `continue` citing the first passage,
    or a `handoff` when there is none); `completion` each raw completion (by default: the last
    message's text echoed); `memories` the facts of each memory request (by default: the offline
    rules, `self_statements`). `down` makes the first two raise `Unavailable`, as a port that breaks
    its never-raise promise would, and the memory step find nothing."""

    def __init__(
        self,
        turn: Callable[[TurnRequest], TurnDraft] | None = None,
        completion: Callable[[ChatRequest], ChatCompletion] | None = None,
    ) -> None:
        self.turn = turn or _first_passage
        self.completion = completion or _echo
        self.memories: Callable[[MemoryRequest], tuple[str, ...]] = lambda r: self_statements(r.message)
        self.down = False
        self.turn_requests: list[TurnRequest] = []
        self.chat_requests: list[ChatRequest] = []
        self.memory_requests: list[MemoryRequest] = []

    def compose_turn(self, request: TurnRequest) -> TurnDraft:
        """The scripted draft for `request` (recorded in `turn_requests`)."""
        self.turn_requests.append(request)
        if self.down:
            raise Unavailable("The scripted model is down.")
        return self.turn(request)

    def complete(self, request: ChatRequest) -> ChatCompletion:
        """The scripted completion for `request` (recorded in `chat_requests`)."""
        self.chat_requests.append(request)
        if self.down:
            raise Unavailable("The scripted model is down.")
        return self.completion(request)

    def extract_memories(self, request: MemoryRequest) -> tuple[str, ...]:
        """The scripted facts for `request` (recorded in `memory_requests`); none when down."""
        self.memory_requests.append(request)
        return () if self.down else self.memories(request)


def _first_passage(request: TurnRequest) -> TurnDraft:
    if not request.passages:
        return TurnDraft("Let me pass you to a colleague.", "handoff", confidence=0.0)
    first = request.passages[0]
    return TurnDraft(first.content, "continue", (first.chunk_id,), first.score)


def _echo(request: ChatRequest) -> ChatCompletion:
    return ChatCompletion(request.messages[-1].content if request.messages else "")


class InMemoryPersonaDirectory:
    """A `PersonaDirectory` holding one default persona per workspace, set by the test."""

    def __init__(self) -> None:
        self._defaults: dict[int, Persona] = {}

    def set_default(self, account_id: int, persona: Persona | None) -> None:
        """Make `persona` the workspace's default agent (None: the workspace has none)."""
        if persona is None:
            self._defaults.pop(account_id, None)
        else:
            self._defaults[account_id] = persona

    def default_persona(self, account_id: int) -> Persona | None:
        """The persona set for the workspace, or None."""
        return self._defaults.get(account_id)
