"""The offline `LanguageModel`: retrieval only, and honest. Pure Python: no network, no model files.

It composes no text of its own beyond a few fixed sentences. For a turn it answers with the
best-matching knowledge passages when the best one is good enough, and otherwise says it does not
know and hands over; it never makes an answer up:

- small talk (`engage_core.answering.intents`) gets a fixed reply: a greeting (naming the agent),
  "you're welcome", or a goodbye that `resolve`s the conversation;
- a request for a person is handed over;
- when the best passage's search score reaches `ANSWER_THRESHOLD` (0.5: at least half of the
  question's weighted words, `engage_core.knowledge.search`), the reply is the one or two sentences
  of the best passages (the top `SOURCES` reaching the threshold) that hold most of the question's
  words, as written, citing their chunks; its confidence is the top score;
- otherwise `UNKNOWN_REPLY` and `handoff`, with the top score (or 0) as confidence; except for a
  message that only tells something about the customer (`TurnRequest.statements`, the memory step's
  facts), which gets `NOTED_REPLY` and `continue`.

Choosing sentences: each sentence of a candidate passage is scored by the question's words it holds
(or its passage's header or title holds), each weighted by its rarity among the candidate sentences;
the best one is taken, then the one adding most of the words still missing, if any. Ties go to the
better passage, then to the earlier sentence.

`complete` answers the last `user` message the same way from the passages `ChatRequest.knowledge`
looks up (none without it): as text, cut to about `max_tokens` (`engage_core.answering.tokens`, with
`finish_reason` `length`); in JSON mode as `{"answer", "action", "citations", "confidence"}`, whole,
so it always parses. It gives no token counts: callers estimate them.

The memory step's facts are the customer's explicit statements about themselves, found by the rules
of `engage_core.answering.memory.self_statements` (English and Arabic); nothing is inferred.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import attrs

from engage_core.answering.chat import ChatCompletion, ChatRequest, last_user_message
from engage_core.answering.guardrails import fit, sentences
from engage_core.answering.intents import SmallTalk, asks_for_a_person, small_talk
from engage_core.answering.memory import MemoryRequest, self_statements
from engage_core.answering.passages import Passage
from engage_core.answering.persona import Persona
from engage_core.answering.tokens import CHARS_PER_TOKEN
from engage_core.answering.turns import TurnDraft, TurnRequest
from engage_core.knowledge.terms import WordSet, query_terms

ANSWER_THRESHOLD = 0.5
SOURCES = 2
"""Passages a reply may quote from."""

UNKNOWN_REPLY = (
    "I'm sorry, I don't have that information. I'm passing your question to a member of our team, "
    "who will get back to you here."
)
PERSON_REPLY = "Of course. I'm passing you to a member of our team, who will get back to you here."
THANKS_REPLY = "You're welcome! Is there anything else I can help you with?"
FAREWELL_REPLY = "Thank you for reaching out. Have a great day!"
NOTED_REPLY = "Thank you, I've noted that. How can I help you today?"


@attrs.frozen
class _Sentence:
    passage: int
    index: int
    text: str
    words: frozenset[str]
    content_words: frozenset[str]


class OfflineLanguageModel:
    """Answers from the passages alone (see the module notes)."""

    def __init__(self, threshold: float = ANSWER_THRESHOLD) -> None:
        if not 0 < threshold <= 1:
            raise ValueError("The answer threshold must be greater than 0 and at most 1.")
        self._threshold = threshold

    def __repr__(self) -> str:
        return f"OfflineLanguageModel(threshold={self._threshold})"

    def compose_turn(self, request: TurnRequest) -> TurnDraft:
        draft = self._turn(request.message, request.passages, request.persona, request.small_talk)
        if draft.action == "handoff" and draft.reply == UNKNOWN_REPLY and request.statements:
            return TurnDraft(NOTED_REPLY, "continue", confidence=1.0)
        return draft

    def complete(self, request: ChatRequest) -> ChatCompletion:
        question = last_user_message(request.messages)
        passages: Sequence[Passage] = ()
        if request.knowledge is not None and question.strip():
            passages = request.knowledge(question)
        draft = self._turn(question, passages, None, small_talk(question))
        if request.json_object:
            answer = {
                "answer": draft.reply,
                "action": draft.action,
                "citations": list(draft.citations),
                "confidence": draft.confidence,
            }
            return ChatCompletion(json.dumps(answer, ensure_ascii=False))
        if request.max_tokens is None:
            return ChatCompletion(draft.reply)
        content = fit(draft.reply, request.max_tokens * CHARS_PER_TOKEN)
        return ChatCompletion(content, "stop" if content == draft.reply else "length")

    def extract_memories(self, request: MemoryRequest) -> tuple[str, ...]:
        return self_statements(request.message)

    def _turn(
        self, question: str, passages: Sequence[Passage], persona: Persona | None, chatter: SmallTalk | None
    ) -> TurnDraft:
        if chatter is not None:
            return _small_talk(chatter, persona)
        if asks_for_a_person(question):
            return TurnDraft(PERSON_REPLY, "handoff", confidence=1.0)
        top = passages[0].score if passages else 0.0
        sources = [p for p in passages if p.score >= self._threshold][:SOURCES]
        chosen = _best_sentences(question, sources)
        if not chosen:
            return TurnDraft(UNKNOWN_REPLY, "handoff", confidence=top)
        citations = tuple(dict.fromkeys(sources[s.passage].chunk_id for s in chosen))
        return TurnDraft(" ".join(s.text for s in chosen), "continue", citations, top)


def _small_talk(kind: SmallTalk, persona: Persona | None) -> TurnDraft:
    if kind == "farewell":
        return TurnDraft(FAREWELL_REPLY, "resolve", confidence=1.0)
    if kind == "thanks":
        return TurnDraft(THANKS_REPLY, "continue", confidence=1.0)
    named = persona is not None and persona.agent_id is not None and persona.name.strip()
    greeting = f"Hello! I'm {persona.name.strip()}. " if named and persona is not None else "Hello! "
    return TurnDraft(greeting + "How can I help you today?", "continue", confidence=1.0)


def _best_sentences(question: str, sources: Sequence[Passage]) -> list[_Sentence]:
    """One or two sentences of `sources` answering `question` (see the module notes); none when
    there is no source or the question has no meaningful word."""
    terms = query_terms(question)
    if not sources or not terms:
        return []
    candidates = []
    for number, passage in enumerate(sources):
        heading = WordSet(f"{passage.title} {passage.context_header or ''}")
        for index, text in enumerate(sentences(passage.content)):
            words = WordSet(text)
            content_words = frozenset(t for t in terms if words.has(t))
            covered = content_words | {t for t in terms if heading.has(t)}
            candidates.append(_Sentence(number, index, text, frozenset(covered), content_words))
    if not candidates:
        return []
    total = len(candidates)
    weight = {t: math.log(1 + (total + 1) / (1 + sum(t in c.words for c in candidates))) for t in terms}

    def gain(sentence: _Sentence, wanted: frozenset[str]) -> tuple[float, float, int, int]:
        return (
            sum(weight[t] for t in sentence.words & wanted),
            sum(weight[t] for t in sentence.content_words & wanted),
            -sentence.passage,
            -sentence.index,
        )

    everything = frozenset(terms)
    best = max(candidates, key=lambda s: gain(s, everything))
    chosen = [best]
    missing = everything - best.words
    if missing:
        rest = [c for c in candidates if c is not best]
        second = max(rest, key=lambda s: gain(s, missing), default=None)
        if second is not None and gain(second, missing)[1] > 0:
            chosen.append(second)
    return sorted(chosen, key=lambda s: (s.passage, s.index))
