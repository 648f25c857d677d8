"""AI agents of one account.

At most one default per account: a unique index on `account_id` where `is_default` refuses a second
one, and a check refuses a default that is inactive. The service changes the flag, and creates
agents, under `lock`: on PostgreSQL a transaction-level advisory lock on the account, so racing
set-defaults run one after another (each clears the default the one before it set) instead of
failing on the index; SQLite runs one writer at a time already. In a write unit of work on
PostgreSQL, `get` reads the agent `FOR UPDATE`: a delete or a deactivation racing a set-default of
the same agent reads it only once the other has committed, and is refused if it became the default.
That lock is `FOR NO KEY UPDATE`, so contacts being created meanwhile with the agent as their default
(whose key check takes `KEY SHARE` on it) do not wait for it; deleting takes `FOR UPDATE` first,
which waits for them, so their contacts are cleared too.

Deleting an agent first clears `ai_agent_id` on its contacts: their foreign key to the agent
`(account_id, ai_agent_id)` takes no action (a composite key's SET NULL would null `account_id`
too), so it refuses any delete that did not.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Connection, bindparam, delete, func, insert, select, update

from engage_core.agents.model import AgentDraft, AiAgent
from engage_sql.agents.tables import ai_agents
from engage_sql.commerce.orders import advisory_lock_key
from engage_sql.contacts.tables import contacts
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_COLUMNS = (
    ai_agents.c.id,
    ai_agents.c.name,
    ai_agents.c.system_prompt,
    ai_agents.c.instruction_prompt,
    ai_agents.c.personality_prompt,
    ai_agents.c.booking_agent_instructions,
    ai_agents.c.memory_agent_instructions,
    ai_agents.c.response_guidelines,
    ai_agents.c.is_active,
    ai_agents.c.is_default,
    ai_agents.c.created_at,
    ai_agents.c.updated_at,
)
_RECENT_FIRST = (ai_agents.c.updated_at.desc(), ai_agents.c.id.desc())

_ADVISORY_LOCK = select(func.pg_advisory_xact_lock(bindparam("key", type_=BigInteger())))
"""PostgreSQL: wait for, then hold until the transaction ends, the lock named by a 64-bit key."""
AGENTS_LOCK = "ai-agents"


def agent_from_row(row: AnyRow) -> AiAgent:
    return AiAgent(
        id=row.id,
        name=row.name,
        system_prompt=row.system_prompt,
        instruction_prompt=row.instruction_prompt,
        personality_prompt=row.personality_prompt,
        booking_agent_instructions=row.booking_agent_instructions,
        memory_agent_instructions=row.memory_agent_instructions,
        response_guidelines=dict(row.response_guidelines),
        is_active=row.is_active,
        is_default=row.is_default,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _stored(agent: AiAgent | AgentDraft) -> dict[str, Any]:
    """The columns every write stores, from an agent or a draft."""
    return {
        "name": agent.name,
        "system_prompt": agent.system_prompt,
        "instruction_prompt": agent.instruction_prompt,
        "personality_prompt": agent.personality_prompt,
        "booking_agent_instructions": agent.booking_agent_instructions,
        "memory_agent_instructions": agent.memory_agent_instructions,
        "response_guidelines": dict(agent.response_guidelines),
        "is_active": agent.is_active,
        "is_default": agent.is_default,
    }


class SqlAiAgentRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` locks the agent it reads (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._postgres = connection.dialect.name == "postgresql"
        self._lock_reads = lock_reads and self._postgres

    def lock(self) -> None:
        if self._postgres:
            self._conn.execute(_ADVISORY_LOCK, {"key": advisory_lock_key(AGENTS_LOCK, self._account_id, "")})

    def add(self, draft: AgentDraft, now: datetime) -> AiAgent:
        values = {"account_id": self._account_id, **_stored(draft), "created_at": now, "updated_at": now}
        agent_id = self._conn.execute(insert(ai_agents).values(values).returning(ai_agents.c.id)).scalar_one()
        return AiAgent(id=agent_id, **_stored(draft), created_at=now, updated_at=now)

    def get(self, agent_id: int) -> AiAgent | None:
        """In a write unit of work on PostgreSQL, the agent's row stays locked until the transaction ends."""
        return self._first(ai_agents.c.id == agent_id, for_update=self._lock_reads)

    def list(self) -> Sequence[AiAgent]:
        rows = self._conn.execute(select(*_COLUMNS).where(self.owned(ai_agents)).order_by(*_RECENT_FIRST))
        return [agent_from_row(row) for row in rows]

    def count(self) -> int:
        count: int = self._conn.execute(
            select(func.count()).select_from(ai_agents).where(self.owned(ai_agents))
        ).scalar_one()
        return count

    def default(self) -> AiAgent | None:
        """Through the unique index on the account's default agent; locked like `get`, so the previous
        default is cleared as it is once a concurrent change of it (a rename) has committed."""
        return self._first(ai_agents.c.is_default.is_(True), for_update=self._lock_reads)

    def update(self, agent: AiAgent) -> None:
        self._conn.execute(
            update(ai_agents)
            .where(self.owned(ai_agents), ai_agents.c.id == agent.id)
            .values(**_stored(agent), updated_at=agent.updated_at)
        )

    def delete(self, agent_id: int) -> None:
        if self._postgres:
            # FOR UPDATE waits for the transactions inserting contacts that point at the agent (their
            # key check holds KEY SHARE on it): the clearing below then sees their contacts too.
            self._conn.execute(
                select(ai_agents.c.id).where(self.owned(ai_agents), ai_agents.c.id == agent_id).with_for_update()
            )
        self._conn.execute(
            update(contacts).where(self.owned(contacts), contacts.c.ai_agent_id == agent_id).values(ai_agent_id=None)
        )
        self._conn.execute(delete(ai_agents).where(self.owned(ai_agents), ai_agents.c.id == agent_id))

    def _first(self, *where: ColumnElement[bool], for_update: bool = False) -> AiAgent | None:
        query = select(*_COLUMNS).where(self.owned(ai_agents), *where)
        if for_update:
            # NO KEY UPDATE: serialises the changes of the agent, but not the new contacts that point at
            # it (their key check takes KEY SHARE), which need not wait for a change of its flag.
            query = query.with_for_update(key_share=True)
        row = self._conn.execute(query).one_or_none()
        return None if row is None else agent_from_row(row)
