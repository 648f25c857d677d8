"""The knowledge base in SQL."""

from __future__ import annotations

from engage_sql.knowledge.repository import SqlKnowledgeBaseRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "knowledge_base": lambda s: SqlKnowledgeBaseRepository(s.connection, s.account_id),
    },
)
