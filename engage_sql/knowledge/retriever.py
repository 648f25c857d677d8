"""Ranked full-text search over one account's chunks: FTS5 `bm25()` and `snippet()` on SQLite,
`ts_rank_cd` and `ts_headline` over the generated `search_vector` on PostgreSQL (migration 0013;
the candidates are chosen in `postgres_search`).

The index hands over its best `CANDIDATES` chunks of active entries; `engage_core.knowledge.search.ranked`
puts them in final order with the score every adapter shares; snippets are then made for the hits
returned only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import text

from engage_core.knowledge.search import (
    CANDIDATES,
    DEFAULT_LIMIT,
    SNIPPET_ELLIPSIS,
    SNIPPET_END,
    SNIPPET_START,
    SNIPPET_WORDS,
    Candidate,
    SearchHit,
    check_limit,
    ranked,
)
from engage_core.knowledge.terms import fold, query_terms
from engage_sql.knowledge import postgres_search
from engage_sql.knowledge.search_index import fts5_pairs, fts5_query
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

if TYPE_CHECKING:
    from engage_sql.database import Database

# bm25's arguments weigh the FTS5 columns (content, context_header, keywords): the header and keywords
# count twice as much as the content.
_BM25 = "bm25(knowledge_base_chunks_fts, 1.0, 2.0, 2.0)"
_SELECT = """
SELECT c.id, c.knowledge_base_id, e.title, e.type, c.content, c.context_header, c.keywords
FROM {source}
JOIN knowledge_base_chunks AS c ON c.id = ranked.id
JOIN knowledge_base_entries AS e ON e.account_id = c.account_id AND e.id = c.knowledge_base_id
WHERE c.account_id = :account AND e.status = 'active' {types}
ORDER BY ranked.rank, c.id
LIMIT :candidates
"""
# First the best `POOL` matches of the whole index (FTS5 alone, cheap); the account and status
# filters then keep what is theirs. When the pool is full yet too few survive (other accounts' or
# inactive entries' chunks crowd it), every match is ranked instead: the answer is the same either
# way, only its cost differs.
_SQLITE_POOL = _SELECT.format(
    source=f"""(SELECT rowid AS id, {_BM25} AS rank FROM knowledge_base_chunks_fts
    WHERE knowledge_base_chunks_fts MATCH :query ORDER BY rank LIMIT :pool) AS ranked""",
    types="{types}",
)
_SQLITE_ALL = _SELECT.format(
    source=f"""(SELECT rowid AS id, {_BM25} AS rank FROM knowledge_base_chunks_fts
    WHERE knowledge_base_chunks_fts MATCH :query) AS ranked""",
    types="{types}",
)
_SQLITE_MATCHES = """
SELECT count(*) FROM (SELECT 1 FROM knowledge_base_chunks_fts WHERE knowledge_base_chunks_fts MATCH :query LIMIT :pool)
"""
_SQLITE_SNIPPETS = """
SELECT rowid AS id, snippet(knowledge_base_chunks_fts, 0, :start, :end, :ellipsis, :words) AS snippet
FROM knowledge_base_chunks_fts
WHERE knowledge_base_chunks_fts MATCH :query AND rowid IN ({ids})
"""
POOL = 500

# ts_headline re-parses the text, far dearer than the rank: only for the hits returned.
_POSTGRES_SNIPPETS = """
SELECT id, ts_headline('simple', content, to_tsquery('simple', :query), :options) AS snippet
FROM knowledge_base_chunks
WHERE account_id = :account AND id IN ({ids})
"""
_HEADLINE_OPTIONS = (
    f"StartSel={SNIPPET_START}, StopSel={SNIPPET_END}, MaxWords={SNIPPET_WORDS}, MinWords={SNIPPET_WORDS // 2}, "
    f"MaxFragments=1, FragmentDelimiter={SNIPPET_ELLIPSIS}"
)


class SqlRetriever(WorkspaceRepository):
    """The workspace unit of work's `knowledge_search`: searches within its transaction."""

    def search(self, query: str, *, types: Sequence[str] | None = None, limit: int = DEFAULT_LIMIT) -> list[SearchHit]:
        check_limit(limit)
        terms = query_terms(query)
        if not terms or (types is not None and not types):
            return []
        params: dict[str, object] = {"account": self._account_id, "candidates": max(CANDIDATES, limit)}
        type_filter = ""
        if types is not None:
            names = [f"type_{i}" for i in range(len(types))]
            type_filter = f"AND e.type IN ({', '.join(':' + n for n in names)})"
            params.update(zip(names, types, strict=True))
        sqlite = self._conn.dialect.name == "sqlite"
        if sqlite:
            rows = self._sqlite_candidates(terms, type_filter, params, max(CANDIDATES, limit))
        else:
            rows = self._postgres_candidates(query, terms, type_filter, params)
        best = ranked(terms, [_candidate(rank, row) for rank, row in enumerate(rows)], limit)
        snippets = self._snippets([c.chunk_id for c, _ in best], params) if best else {}
        return [candidate.hit(score, snippets.get(candidate.chunk_id, "")) for candidate, score in best]

    def _postgres_candidates(
        self, query: str, terms: list[str], type_filter: str, params: dict[str, object]
    ) -> Sequence[AnyRow]:
        """The best matches by `ts_rank_cd`, with the cost bounded (`postgres_search`)."""
        # `simple` keeps diacritics ("café"): each term is searched as typed as well as folded.
        forms: dict[str, list[str]] = {term: [term] for term in terms}
        for typed in query_terms(query, folded=False):
            forms.setdefault(fold(typed), []).append(typed)
        return postgres_search.candidates(self._conn, [forms[term] for term in terms], type_filter, params)

    def _sqlite_candidates(
        self, terms: list[str], type_filter: str, params: dict[str, object], wanted: int
    ) -> Sequence[AnyRow]:
        """The best matches by `bm25()`: first among the chunks holding two of the terms, as on
        PostgreSQL; those come first in the final order anyway, and ranking only them spares
        `bm25()` over every chunk holding one common term."""
        params.update(query=fts5_query(terms), pool=POOL)
        pool = text(_SQLITE_POOL.format(types=type_filter))
        if 2 <= len(terms) <= postgres_search.PAIRED_TERMS:
            rows = self._conn.execute(pool, params | {"query": fts5_pairs(terms)}).all()
            if len(rows) == wanted:
                return rows
        rows = self._conn.execute(pool, params).all()
        if len(rows) < wanted and self._matches_fill_the_pool(params):
            rows = self._conn.execute(text(_SQLITE_ALL.format(types=type_filter)), params).all()
        return rows

    def _matches_fill_the_pool(self, params: dict[str, object]) -> bool:
        return int(self._conn.execute(text(_SQLITE_MATCHES), params).scalar_one()) >= POOL

    def _snippets(self, ids: list[int], params: dict[str, object]) -> dict[int, str]:
        listed = ", ".join(str(int(i)) for i in ids)
        if self._conn.dialect.name == "sqlite":
            sql = _SQLITE_SNIPPETS.format(ids=listed)
            extra = {"start": SNIPPET_START, "end": SNIPPET_END, "ellipsis": SNIPPET_ELLIPSIS, "words": SNIPPET_WORDS}
        else:
            sql = _POSTGRES_SNIPPETS.format(ids=listed)
            extra = {"options": _HEADLINE_OPTIONS}
        return {row.id: row.snippet for row in self._conn.execute(text(sql), params | extra)}


def _candidate(rank: int, row: AnyRow) -> Candidate:
    return Candidate(
        row.id,
        row.knowledge_base_id,
        row.title,
        row.type,
        row.content,
        row.context_header,
        tuple(_keywords(row.keywords)),
        rank,
    )


def _keywords(value: object) -> list[str]:
    """Keywords as the raw query returns them: JSON text on SQLite, a list on PostgreSQL."""
    if value is None:
        return []
    if isinstance(value, str):
        loaded = json.loads(value)
        return [str(k) for k in loaded] if isinstance(loaded, list) else []
    return [str(k) for k in value] if isinstance(value, list) else []


class DatabaseRetriever:
    """A `Retriever` over a `Database` outside any unit of work: each search reads in a short read-only
    unit of work of the account's (for callers such as an AI agent that only search)."""

    def __init__(self, database: Database, account_id: int) -> None:
        self._database = database
        self._account_id = account_id

    def search(self, query: str, *, types: Sequence[str] | None = None, limit: int = DEFAULT_LIMIT) -> list[SearchHit]:
        with self._database.uow.workspace(self._account_id, readonly=True) as uow:
            hits: list[SearchHit] = uow.knowledge_search.search(query, types=types, limit=limit)
        return hits
