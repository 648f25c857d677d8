"""Contact memories: short facts the AI agent keeps about a contact, across conversations.

The memory step of an automatic reply (`engage_core.agents.reply_service`) runs only for an agent
with `memory_agent_instructions` (opt-in). It asks the language model for the facts the customer's
new message states about themselves (`LanguageModel.extract_memories`), stores the new ones with
the reply, in the transaction that records it (so a retried job stores nothing twice), and gives
every fact kept so far to the model in the prompt of each later turn.

A fact is one line of at most `FACT_MAX` characters (whitespace collapsed; longer is cut). A contact
keeps at most `MEMORY_LIMIT` facts, each once (compared without case): storing one more drops the
oldest. Facts are shown and managed at `/contacts/{id}/memories`, and go with their contact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import attrs

FACT_MAX = 280
"""Characters of one fact at most."""
MEMORY_LIMIT = 50
"""Facts a contact keeps at most; one more drops the oldest."""
EXTRACTED_MAX = 5
"""Facts taken at most from one message."""


@attrs.frozen
class MemoryDraft:
    """A fact to store about a contact, and the inbound message it came from (None: added by a
    person through the API)."""

    contact_id: int
    fact: str
    source_message_id: int | None = None


@attrs.frozen
class ContactMemory:
    """A stored fact about a contact."""

    id: int
    account_id: int
    contact_id: int
    fact: str
    source_message_id: int | None
    created_at: datetime


def clean_fact(text: str) -> str:
    """`text` as a fact: one line, whitespace collapsed, cut to `FACT_MAX` characters."""
    return " ".join(text.split())[:FACT_MAX].strip()


def fact_key(fact: str) -> str:
    """What two facts are compared by: the cleaned text, without case."""
    return clean_fact(fact).casefold()


def new_facts(candidates: Iterable[str], known: Sequence[ContactMemory]) -> tuple[str, ...]:
    """The cleaned `candidates` that are neither blank nor already `known`, each once, at most
    `EXTRACTED_MAX`, in order."""
    seen = {fact_key(m.fact) for m in known}
    kept: list[str] = []
    for candidate in candidates:
        fact = clean_fact(candidate)
        key = fact.casefold()
        if fact and key not in seen:
            seen.add(key)
            kept.append(fact)
    return tuple(kept[:EXTRACTED_MAX])


def overflow(stored: Sequence[ContactMemory], adding: int) -> tuple[int, ...]:
    """The ids of the oldest of `stored` (oldest first) to drop so that `adding` more fit in
    `MEMORY_LIMIT`."""
    excess = len(stored) + adding - MEMORY_LIMIT
    return tuple(m.id for m in stored[: max(excess, 0)])


def memory_instructions(instructions: str, facts: Sequence[str]) -> str:
    """The prompt's part about the contact: the agent's memory instructions and the facts kept."""
    lines = "\n".join(f"- {fact}" for fact in facts) if facts else "- (nothing yet)"
    return (
        f"{instructions.strip()}\n\nWhat you know about this customer from earlier messages:\n{lines}\n"
        "When the customer only tells you something about themselves, thank them briefly (action continue)."
    )
