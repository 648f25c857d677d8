"""A turn: the engine's answer to one customer message, and what it asks the model for.

The model proposes a `TurnDraft` (from a `TurnRequest`, the assembled context); the engine checks
it (`settle`) into the `Turn` it returns:

- `action` is one of `ACTIONS`; anything else becomes `handoff` (a person looks rather than
  the customer getting something undefined);
- `citations` keep only the ids of the passages the model was given, in order, once each;
- `confidence` is brought within 0 to 1 (None or not a number: 0);
- an empty reply becomes the hand-over message with `handoff`;
- when nothing relevant was retrieved, a `continue` that is not small talk (nor a message only
  telling about the customer) becomes `handoff` with the
  hand-over message (the honesty rule, `engage_core.answering.engine`).

A hand-over is always this structured `action`, never read from the reply's wording.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, cast

import attrs

from engage_core.answering.chat import ChatMessage, Usage
from engage_core.answering.intents import SmallTalk
from engage_core.answering.passages import Passage
from engage_core.answering.persona import Persona

Action = Literal["continue", "handoff", "resolve"]
ACTIONS: tuple[str, ...] = ("continue", "handoff", "resolve")

HANDOFF_REPLY = (
    "I'm not sure about that, so I'm passing your question to a member of our team, who will get back to you here."
)
"""What the customer is told when the engine hands over on its own (nothing relevant found, the
model failed or answered nothing)."""


@attrs.frozen
class Turn:
    """The answer to one customer message: the `reply` to send, what happens next (`action`:
    `continue` the conversation, `handoff` to a person, or `resolve` it), the chunk ids the reply
    draws on (`citations`), how sure the engine is (`confidence`, 0 to 1) and the tokens used."""

    reply: str
    action: Action
    citations: tuple[int, ...]
    confidence: float
    usage: Usage


@attrs.frozen
class TurnDraft:
    """A model's proposal for a turn, as it gave it: `settle` checks it."""

    reply: str
    action: str
    citations: tuple[int, ...] = ()
    confidence: float | None = None
    usage: Usage | None = None


@attrs.frozen
class TurnRequest:
    """What the model answers from: the `instructions` assembled by `engage_core.answering.prompt`
    (the persona's prompts and guidelines, the passages labelled by chunk id and the answer's JSON
    shape), the conversation so far, the customer's new `message`, and the same context as values
    for a model that reads them rather than the prompt (the offline one): the `passages`, the
    persona, whether the message is `small_talk`, and the `statements` about the customer it only
    tells (the memory step's facts, when it asks nothing)."""

    instructions: str
    history: tuple[ChatMessage, ...]
    message: str
    passages: tuple[Passage, ...]
    persona: Persona
    small_talk: SmallTalk | None = None
    statements: tuple[str, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None

    def messages(self) -> tuple[ChatMessage, ...]:
        """The prompt as chat messages: the instructions, the history, then the new message."""
        return (ChatMessage("system", self.instructions), *self.history, ChatMessage("user", self.message))


def settle(draft: TurnDraft, passages: Sequence[Passage], *, grounded: bool, usage: Usage) -> Turn:
    """The turn `draft` stands for, checked as the module notes say. `grounded` is false when the
    message needed knowledge and nothing relevant was retrieved."""
    action = cast(Action, draft.action) if draft.action in ACTIONS else "handoff"
    given = {p.chunk_id for p in passages}
    citations = tuple(dict.fromkeys(c for c in draft.citations if c in given))
    confidence = draft.confidence if draft.confidence is not None and math.isfinite(draft.confidence) else 0.0
    confidence = min(max(confidence, 0.0), 1.0)
    reply = draft.reply.strip()
    if not reply or (action == "continue" and not grounded):
        return Turn(HANDOFF_REPLY, "handoff", (), 0.0 if not grounded else confidence, usage)
    return Turn(reply, action, citations, confidence, usage)
