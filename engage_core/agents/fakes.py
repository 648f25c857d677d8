"""In-memory fakes of the AI agents area's ports.

Which agent a contact is assigned to lives on the contact, as in SQL (`contacts.ai_agent_id`):
`InMemoryContactRepository` reads the default agent here for a new contact and assigns agents, and
deleting an agent tells the contacts through `State.forget("ai_agent", id)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.agents.memories import ContactMemory, MemoryDraft
from engage_core.agents.model import AgentDraft, AiAgent
from engage_core.agents.replies import AiReply, AiReplyDraft
from engage_core.kernel.memory import FakeArea, Repo, Tables


@attrs.define
class AgentsTables(Tables):
    """The AI agents area's rows, by table."""

    ai_agents: dict[int, tuple[int, AiAgent]] = attrs.Factory(dict)  # id -> (account_id, agent)
    ai_replies: dict[int, AiReply] = attrs.Factory(dict)  # inbound message id -> reply
    contact_memories: dict[int, ContactMemory] = attrs.Factory(dict)  # id -> fact

    def forget(self, kind: str, ident: int) -> None:
        """A deleted contact takes its automatic replies and memories with it (:meth:`.Tables.forget`)."""
        if kind == "contact":
            self.ai_replies = {k: v for k, v in self.ai_replies.items() if v.contact_id != ident}
            self.contact_memories = {k: v for k, v in self.contact_memories.items() if v.contact_id != ident}

    def default_of(self, account_id: int) -> AiAgent | None:
        """The account's default agent, or None (what a new contact is assigned when it is active)."""
        return next((a for (acc, a) in self.ai_agents.values() if acc == account_id and a.is_default), None)


class _Repo(Repo):
    @property
    def _t(self) -> AgentsTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(AgentsTables)


class InMemoryAiAgentRepository(_Repo):
    """The in-memory :class:`.AiAgentRepository`. Transactions of the fakes run one at a time, so
    `lock` has nothing to do."""

    def _mine(self) -> list[AiAgent]:
        return [agent for (acc, agent) in self._t.ai_agents.values() if acc == self._account]

    def lock(self) -> None:
        """In memory, as :meth:`.AiAgentRepository.lock`: nothing (transactions are serial)."""

    def add(self, draft: AgentDraft, now: datetime) -> AiAgent:
        """In memory, as :meth:`.AiAgentRepository.add`."""
        if draft.is_default:
            self._refuse_second_default(None)
        agent = AiAgent(
            id=self._store.next_id(),
            name=draft.name,
            system_prompt=draft.system_prompt,
            instruction_prompt=draft.instruction_prompt,
            personality_prompt=draft.personality_prompt,
            booking_agent_instructions=draft.booking_agent_instructions,
            memory_agent_instructions=draft.memory_agent_instructions,
            response_guidelines=dict(draft.response_guidelines),
            is_active=draft.is_active,
            is_default=draft.is_default,
            created_at=now,
            updated_at=now,
        )
        self._t.ai_agents[agent.id] = (self._account, agent)
        return agent

    def get(self, agent_id: int) -> AiAgent | None:
        """In memory, as :meth:`.AiAgentRepository.get`."""
        row = self._t.ai_agents.get(agent_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[AiAgent]:
        """In memory, as :meth:`.AiAgentRepository.list`."""
        return sorted(self._mine(), key=lambda a: (a.updated_at, a.id), reverse=True)

    def count(self) -> int:
        """In memory, as :meth:`.AiAgentRepository.count`."""
        return len(self._mine())

    def default(self) -> AiAgent | None:
        """In memory, as :meth:`.AiAgentRepository.default`."""
        return self._t.default_of(self._account)

    def update(self, agent: AiAgent) -> None:
        """In memory, as :meth:`.AiAgentRepository.update`."""
        current = self.get(agent.id)
        if current is None:
            return
        if agent.is_default:
            self._refuse_second_default(agent.id)
        stored = attrs.evolve(agent, created_at=current.created_at, response_guidelines=dict(agent.response_guidelines))
        self._t.ai_agents[agent.id] = (self._account, stored)

    def delete(self, agent_id: int) -> None:
        """In memory, as :meth:`.AiAgentRepository.delete`."""
        if self.get(agent_id) is not None:
            del self._t.ai_agents[agent_id]
            self._state.forget("ai_agent", agent_id)  # its contacts are unassigned

    def _refuse_second_default(self, agent_id: int | None) -> None:
        """What SQL's unique index on the account's default agent does."""
        other = self.default()
        if other is not None and other.id != agent_id:
            raise RuntimeError(f"account {self._account} already has a default AI agent ({other.id})")


class InMemoryAiReplyRepository(_Repo):
    """The in-memory :class:`.AiReplyRepository`."""

    def add(self, draft: AiReplyDraft, now: datetime) -> AiReply:
        """In memory, as :meth:`.AiReplyRepository.add`."""
        if draft.inbound_message_id in self._t.ai_replies:  # what SQL's unique constraint does
            raise RuntimeError(f"message {draft.inbound_message_id} has an automatic reply already")
        reply = draft.recorded(self._store.next_id(), self._account, now)
        self._t.ai_replies[draft.inbound_message_id] = reply
        return reply

    def by_inbound(self, inbound_message_id: int) -> AiReply | None:
        """In memory, as :meth:`.AiReplyRepository.by_inbound`."""
        reply = self._t.ai_replies.get(inbound_message_id)
        return reply if reply is not None and reply.account_id == self._account else None

    def latest(self, contact_id: int) -> AiReply | None:
        """In memory, as :meth:`.AiReplyRepository.latest`."""
        mine = [r for r in self._t.ai_replies.values() if r.account_id == self._account and r.contact_id == contact_id]
        return max(mine, key=lambda r: r.id, default=None)

    def for_outbound(self, outbound_message_ids: Sequence[int]) -> list[AiReply]:
        """In memory, as :meth:`.AiReplyRepository.for_outbound`."""
        wanted = set(outbound_message_ids)
        return [
            r for r in self._t.ai_replies.values() if r.account_id == self._account and r.outbound_message_id in wanted
        ]


class InMemoryContactMemoryRepository(_Repo):
    """The in-memory :class:`.ContactMemoryRepository`."""

    def add(self, draft: MemoryDraft, now: datetime) -> ContactMemory:
        """In memory, as :meth:`.ContactMemoryRepository.add`."""
        if any(m.fact.casefold() == draft.fact.casefold() for m in self.for_contact(draft.contact_id)):
            raise RuntimeError(f"contact {draft.contact_id} already has this fact")  # SQL's unique index
        memory = ContactMemory(
            self._store.next_id(), self._account, draft.contact_id, draft.fact, draft.source_message_id, now
        )
        self._t.contact_memories[memory.id] = memory
        return memory

    def for_contact(self, contact_id: int) -> Sequence[ContactMemory]:
        """In memory, as :meth:`.ContactMemoryRepository.for_contact`."""
        mine = [m for m in self._t.contact_memories.values() if m.account_id == self._account]
        return sorted((m for m in mine if m.contact_id == contact_id), key=lambda m: (m.created_at, m.id))

    def get(self, memory_id: int) -> ContactMemory | None:
        """In memory, as :meth:`.ContactMemoryRepository.get`."""
        memory = self._t.contact_memories.get(memory_id)
        return memory if memory is not None and memory.account_id == self._account else None

    def delete(self, memory_ids: Sequence[int]) -> None:
        """In memory, as :meth:`.ContactMemoryRepository.delete`."""
        for memory_id in memory_ids:
            if self.get(memory_id) is not None:
                del self._t.contact_memories[memory_id]


AREA = FakeArea(
    AgentsTables,
    workspace={
        "ai_agents": InMemoryAiAgentRepository,
        "ai_replies": InMemoryAiReplyRepository,
        "contact_memories": InMemoryContactMemoryRepository,
    },
)
