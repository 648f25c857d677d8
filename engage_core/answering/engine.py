"""The answer engine: one customer message, in an agent's voice, grounded in the knowledge base.

`AnswerEngine.answer` turns (persona, conversation so far, new message) into a `Turn`:

1. A message about one of the persona's `refused_topics` gets a polite refusal, `continue`, with no
   retrieval and no call to the model.
2. Otherwise the knowledge base is searched for the message (its first `QUERY_MAX` characters, as
   `GET /knowledge-base/search` takes; `RETRIEVED` hits); those reaching `PASSAGE_FLOOR` (0.4: a fair
   part of the question) are the passages.
3. The prompt is assembled (`engage_core.answering.prompt`) and the model asked for a structured
   turn (`LanguageModel.compose_turn`); a model that fails gives a hand-over.
4. The draft is checked (`engage_core.answering.turns.settle`): the action, the citations (only
   passages given), the confidence, and the honesty rule below; then the reply is cut to the
   persona's `max_reply_chars`.

The honesty rule. When the message is not small talk (`engage_core.answering.intents`) and no
passage reaches the floor, a `continue` becomes a `handoff` with the hand-over message, whatever the
model wrote: with nothing relevant retrieved, any answer would be made up. The prompt tells the
model so as well; the offline model never answers below its own, higher threshold. A message that
only tells something about the customer (the memory step found `statements` in it, and it asks
nothing: no question mark) needs no passage either: acknowledging it makes nothing up.

`usage` is the model's when it gives it, else estimated (`engage_core.answering.tokens`). A caller's
`max_tokens` bounds the reply; the model may spend `TURN_OVERHEAD_TOKENS` more on the JSON around it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.answering.chat import ChatMessage, Usage
from engage_core.answering.guardrails import fit, refused_topic
from engage_core.answering.guidelines import Guidelines
from engage_core.answering.intents import asks_something, small_talk
from engage_core.answering.passages import relevant
from engage_core.answering.persona import Persona
from engage_core.answering.ports import LanguageModel
from engage_core.answering.prompt import instructions
from engage_core.answering.tokens import estimate_usage
from engage_core.answering.turns import HANDOFF_REPLY, Turn, TurnDraft, TurnRequest, settle
from engage_core.kernel.errors import Unavailable
from engage_core.knowledge.chunks import QUERY_MAX
from engage_core.knowledge.embeddings import KnowledgeSearch

RETRIEVED = 5
"""Hits asked of the search for each message."""
HISTORY_MESSAGES = 20
"""Messages of the conversation so far given to the model (the latest ones)."""
MESSAGE_MAX = 4000
"""Characters of the customer's message given to the model."""
TURN_OVERHEAD_TOKENS = 100
"""Tokens of a turn's JSON beyond its reply (the keys, the action, the citations, the confidence)."""

REFUSAL = "I'm sorry, but I can't help with that topic. Is there anything else I can do for you?"


class AnswerEngine:
    """Answers customer messages as a persona, from the workspace's knowledge base."""

    def __init__(self, search: KnowledgeSearch, model: LanguageModel) -> None:
        self._search = search
        self._model = model

    def answer(
        self,
        account_id: int,
        persona: Persona,
        history: Sequence[ChatMessage],
        message: str,
        *,
        extra_instructions: Sequence[str] = (),
        statements: Sequence[str] = (),
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Turn:
        """The turn answering `message` (see the module notes). `history` is the conversation so
        far (`user` and `assistant` messages, oldest first); `extra_instructions` are added to the
        persona's (a chat completion's system messages); `statements` are the facts the memory step
        found in `message`."""
        guidelines = Guidelines.of(persona.response_guidelines)
        message = message.strip()[:MESSAGE_MAX]
        if refused_topic(message, guidelines.refused_topics) is not None:
            return Turn(REFUSAL, "continue", (), 1.0, estimate_usage([message], REFUSAL))
        chatter = small_talk(message)
        noted = tuple(statements) if statements and not asks_something(message) else ()
        query = message[:QUERY_MAX]
        passages = relevant(self._search.search(account_id, query, limit=RETRIEVED)) if message else ()
        request = TurnRequest(
            instructions=instructions(persona, guidelines, passages, extra_instructions),
            history=tuple(m for m in history if m.role in ("user", "assistant"))[-HISTORY_MESSAGES:],
            message=message,
            passages=passages,
            persona=persona,
            small_talk=chatter,
            statements=noted,
            temperature=temperature,
            max_tokens=None if max_tokens is None else max_tokens + TURN_OVERHEAD_TOKENS,
        )
        try:
            draft = self._model.compose_turn(request)
        except Unavailable:
            draft = TurnDraft(HANDOFF_REPLY, "handoff", confidence=0.0)
        turn = settle(
            draft, passages, grounded=bool(passages) or chatter is not None or bool(noted), usage=_usage(request, draft)
        )
        reply = fit(turn.reply, guidelines.max_reply_chars)
        return turn if reply == turn.reply else Turn(reply, turn.action, turn.citations, turn.confidence, turn.usage)


def _usage(request: TurnRequest, draft: TurnDraft) -> Usage:
    if draft.usage is not None:
        return draft.usage
    return estimate_usage((m.content for m in request.messages()), draft.reply)
