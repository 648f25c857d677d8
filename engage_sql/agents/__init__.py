"""AI agents in SQL: the agents, with at most one default per account on either engine."""

from __future__ import annotations

from engage_sql.agents.repository import SqlAiAgentRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "ai_agents": lambda s: SqlAiAgentRepository(s.connection, s.account_id, lock_reads=s.writes),
    },
)
