"""Guardrails the engine applies whatever the model says: refused topics and the reply's length.

A message is about a refused topic when it holds every meaningful word of the topic, each as
written or by its stem (the knowledge search's rule, `engage_core.knowledge.terms`): the topic
"competitor prices" refuses "What are your competitors' prices?" but not "What are your prices?".

A reply longer than the agent's `max_reply_chars` keeps its whole sentences that fit; when even the
first sentence does not, it is cut at the last word boundary that fits, with an ellipsis.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engage_core.knowledge.terms import WordSet, query_terms

ELLIPSIS = "…"
_SENTENCE_END = re.compile(r"(?<=[.!?؟。])\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def refused_topic(message: str, topics: Sequence[str]) -> str | None:
    """The first of `topics` the message is about (see the module notes), or None."""
    words: WordSet | None = None
    for topic in topics:
        terms = query_terms(topic)
        if not terms:
            continue
        words = words or WordSet(message)
        if all(words.has(term) for term in terms):
            return topic
    return None


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order: split after `.`, `!`, `?` (and `؟`, `。`) followed by
    space, and at line breaks; list markers and surrounding space removed, empty ones dropped."""
    found = []
    for piece in _SENTENCE_END.split(text):
        cleaned = _BULLET.sub("", piece).strip()
        if cleaned:
            found.append(cleaned)
    return found


def fit(reply: str, max_chars: int | None) -> str:
    """`reply` within `max_chars` characters (see the module notes); as it is without a limit."""
    reply = reply.strip()
    if max_chars is None or len(reply) <= max_chars:
        return reply
    kept = ""
    for sentence in sentences(reply):
        candidate = f"{kept} {sentence}" if kept else sentence
        if len(candidate) > max_chars:
            break
        kept = candidate
    if kept:
        return kept
    cut = reply[: max_chars - len(ELLIPSIS)]
    space = cut.rfind(" ")
    if space > 0:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + ELLIPSIS
