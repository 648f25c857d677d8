"""The knowledge base in SQL."""

from __future__ import annotations

from engage_sql.knowledge.chunks import SqlChunkRepository
from engage_sql.knowledge.documents import SqlDocumentRepository
from engage_sql.knowledge.repository import SqlKnowledgeBaseRepository
from engage_sql.knowledge.retriever import SqlRetriever
from engage_sql.knowledge.voice_notes import SqlVoiceNoteRepository
from engage_sql.knowledge.website_repository import SqlWebsiteRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "knowledge_base": lambda s: SqlKnowledgeBaseRepository(s.connection, s.account_id),
        "knowledge_documents": lambda s: SqlDocumentRepository(s.connection, s.account_id),
        "knowledge_voice_notes": lambda s: SqlVoiceNoteRepository(s.connection, s.account_id),
        "knowledge_chunks": lambda s: SqlChunkRepository(s.connection, s.account_id),
        "knowledge_search": lambda s: SqlRetriever(s.connection, s.account_id),
        "knowledge_websites": lambda s: SqlWebsiteRepository(s.connection, s.account_id),
    },
)
