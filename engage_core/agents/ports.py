"""What the AI agents area needs from storage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from engage_core.agents.memories import ContactMemory, MemoryDraft
from engage_core.agents.model import AgentDraft, AiAgent
from engage_core.agents.replies import AiReply, AiReplyDraft


class AiAgentRepository(Protocol):
    """AI agents of one account (`engage_core.agents.model`).

    At most one agent of an account has `is_default` (SQL: a unique index on `account_id` where
    `is_default`): storing a second default raises. Changes of the flag, and creations, are made
    under `lock`, so concurrent ones run one after another instead of failing. In a write unit of
    work on PostgreSQL, `get` reads the agent `FOR UPDATE`, so a change racing a set-default or a
    delete of the same agent reads it only once the other has committed."""

    def lock(self) -> None:
        """Hold the account's agents lock until the transaction ends: creations and changes of the
        default flag of one account then run one at a time. PostgreSQL: a transaction-level advisory
        lock on the account; SQLite: nothing, its writers already run one at a time."""

    def add(self, draft: AgentDraft, now: datetime) -> AiAgent:
        """Store a new agent; `created_at` = `updated_at` = `now`. The caller has cleared the
        previous default when the draft is one."""

    def get(self, agent_id: int) -> AiAgent | None:
        """The agent `agent_id`, or None (locked until the transaction ends in a write unit of work
        on PostgreSQL)."""

    def list(self) -> Sequence[AiAgent]:
        """Every agent, most recently updated first (`updated_at`, then `id`, descending)."""

    def count(self) -> int:
        """How many agents the account has."""

    def default(self) -> AiAgent | None:
        """The account's default agent, or None (locked like `get`: clearing its flag then writes
        it back as it is after any concurrent change of it)."""

    def update(self, agent: AiAgent) -> None:
        """Store every field of `agent` but `id` and `created_at`."""

    def delete(self, agent_id: int) -> None:
        """Delete the agent. Every contact assigned to it is unassigned first (`ai_agent_id` NULL,
        its `updated_at` unchanged), in the same transaction."""


class AiReplyRepository(Protocol):
    """The automatic replies of one account (`engage_core.agents.replies`): at most one per inbound
    message (SQL: a unique `inbound_message_id`), deleted with their contact."""

    def add(self, draft: AiReplyDraft, now: datetime) -> AiReply:
        """Record a reply. Raises when the inbound message has one already (the caller looks first,
        in the same transaction)."""

    def by_inbound(self, inbound_message_id: int) -> AiReply | None:
        """The reply to this inbound message of the account, or None."""

    def latest(self, contact_id: int) -> AiReply | None:
        """The contact's most recent reply (highest id), or None."""

    def for_outbound(self, outbound_message_ids: Sequence[int]) -> list[AiReply]:
        """The account's replies whose outbound message is one of these (SQL: the index on
        `outbound_message_id`), in no particular order."""


class ContactMemoryRepository(Protocol):
    """The contact memories of one account (`engage_core.agents.memories`): each fact once per
    contact (the caller compares first, without case), deleted with their contact."""

    def add(self, draft: MemoryDraft, now: datetime) -> ContactMemory:
        """Store a fact; `created_at` = `now`. The contact is the account's (the caller checked)."""

    def for_contact(self, contact_id: int) -> Sequence[ContactMemory]:
        """The contact's facts, oldest first (`created_at`, then `id`)."""

    def get(self, memory_id: int) -> ContactMemory | None:
        """The fact `memory_id` of the account, or None."""

    def delete(self, memory_ids: Sequence[int]) -> None:
        """Delete these facts of the account (ids of other accounts are left alone)."""


class AgentsRepositories(Protocol):
    """The AI agents area's repositories, as a workspace unit of work hands them out."""

    @property
    def ai_agents(self) -> AiAgentRepository:
        """The AI agents."""

    @property
    def ai_replies(self) -> AiReplyRepository:
        """The automatic replies."""

    @property
    def contact_memories(self) -> ContactMemoryRepository:
        """The facts kept about contacts."""
