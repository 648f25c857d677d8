"""An agent's `response_guidelines` (SPEC 2: key/value formatting rules) as the engine reads them.

Two keys are guardrails the engine enforces itself, whatever the model does:

- `max_reply_chars`: an integer from `MAX_REPLY_MIN` to `MAX_REPLY_MAX`; a longer reply is cut on a
  sentence boundary to fit (`engage_core.answering.guardrails.fit`).
- `refused_topics`: a list of topics (strings); a customer message about one of them gets a polite
  refusal, with no call to the model.

Every other key (`language`, `tone`, `length`, ...) is a formatting rule the prompt states as
`key: value`. Reading is lenient, so a stored agent always answers: a `max_reply_chars` out of bounds
is brought within them, one that is not an integer is ignored, a single string counts as one topic,
and blank topics are dropped. `problems` says what a stricter writer (the agents area) would refuse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

MAX_REPLY_KEY = "max_reply_chars"
REFUSED_TOPICS_KEY = "refused_topics"
MAX_REPLY_MIN = 50
MAX_REPLY_MAX = 4000
TOPIC_MAX = 200
"""Characters of one refused topic."""


@attrs.frozen
class Guidelines:
    """The guardrails and the formatting rules of one agent."""

    max_reply_chars: int | None = None
    refused_topics: tuple[str, ...] = ()
    rules: tuple[tuple[str, str], ...] = ()
    """The other keys, in order, each with its value as text."""

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Guidelines:
        """Read `response_guidelines` leniently (see the module notes)."""
        limit = raw.get(MAX_REPLY_KEY)
        max_chars = None
        if isinstance(limit, int) and not isinstance(limit, bool):
            max_chars = min(max(limit, MAX_REPLY_MIN), MAX_REPLY_MAX)
        topics = raw.get(REFUSED_TOPICS_KEY)
        if isinstance(topics, str):
            topics = [topics]
        refused = (
            tuple(t.strip() for t in topics if isinstance(t, str) and t.strip()) if isinstance(topics, list) else ()
        )
        rules = tuple(
            (str(key), _text(value))
            for key, value in raw.items()
            if key not in (MAX_REPLY_KEY, REFUSED_TOPICS_KEY) and value is not None and _text(value).strip()
        )
        return cls(max_chars, refused, rules)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def problems(raw: Mapping[str, Any]) -> dict[str, list[str]]:
    """What is wrong with the guardrail keys of `raw`, by field path (`response_guidelines.max_reply_chars`):
    for a writer that refuses what `Guidelines.of` would adjust or ignore."""
    found: dict[str, list[str]] = {}
    if MAX_REPLY_KEY in raw:
        limit = raw[MAX_REPLY_KEY]
        if not isinstance(limit, int) or isinstance(limit, bool) or not MAX_REPLY_MIN <= limit <= MAX_REPLY_MAX:
            found[f"response_guidelines.{MAX_REPLY_KEY}"] = [
                f"The max_reply_chars must be an integer from {MAX_REPLY_MIN} to {MAX_REPLY_MAX}."
            ]
    if REFUSED_TOPICS_KEY in raw:
        topics = raw[REFUSED_TOPICS_KEY]
        if not isinstance(topics, list) or not all(
            isinstance(t, str) and t.strip() and len(t) <= TOPIC_MAX for t in topics
        ):
            found[f"response_guidelines.{REFUSED_TOPICS_KEY}"] = [
                f"The refused_topics must be a list of topics, each 1 to {TOPIC_MAX} characters."
            ]
    return found
