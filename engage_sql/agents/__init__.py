"""AI agents in SQL: the agents, with at most one default per account on either engine, and their
automatic replies and the facts they keep about contacts."""

from __future__ import annotations

from engage_sql.agents.memories import SqlContactMemoryRepository
from engage_sql.agents.replies import SqlAiReplyRepository
from engage_sql.agents.repository import SqlAiAgentRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "ai_agents": lambda s: SqlAiAgentRepository(s.connection, s.account_id, lock_reads=s.writes),
        "ai_replies": lambda s: SqlAiReplyRepository(s.connection, s.account_id),
        "contact_memories": lambda s: SqlContactMemoryRepository(s.connection, s.account_id),
    },
)
