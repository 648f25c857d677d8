"""The chunks' full-text index: what migration 0012 creates beside `knowledge_base_chunks` on each
dialect, and how a query is written for it.

With it on PostgreSQL, `knowledge_base_lexemes` (migration 0022): how many of an account's chunks hold
each word, kept by triggers, which search reads to tell rare terms from common ones.

The index is left off `metadata` (SQLAlchemy cannot describe an FTS5 table, nor a column that only
one dialect has), so the comparison of the migrated schema with `metadata` skips it
(`include_object`, used by the migration environment and its test).

Queries are never passed through as written: a user's words become the terms of
`engage_core.knowledge.terms` (letters and digits only), each quoted, with its stem-lite expansions,
joined by OR, so FTS5 or tsquery syntax in a question ("NEAR", `*`, `"`, `:`, `!`) is just text.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from engage_core.knowledge.terms import expansions

FTS_TABLE = "knowledge_base_chunks_fts"
LEXEMES_TABLE = "knowledge_base_lexemes"  # PostgreSQL: per-account word counts (migration 0022)
SEARCH_VECTOR = "search_vector"
SEARCH_VECTOR_INDEX = "ix_knowledge_base_chunks_search_vector"


def include_object(obj: object, name: str | None, type_: str, reflected: bool, compare_to: object) -> bool:
    """Alembic's `include_object`: leave the full-text index out of schema comparisons."""
    if type_ == "table" and name is not None and (name.startswith(FTS_TABLE) or name == LEXEMES_TABLE):
        return False  # the FTS5 table and its shadow tables, the word counts
    return name not in (SEARCH_VECTOR, SEARCH_VECTOR_INDEX)


def fts5_query(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression: any of the terms, as written or as a prefix of their stem."""
    return " OR ".join(
        f'"{text.replace(chr(34), chr(34) * 2)}"{"*" if prefix else ""}'
        for term in terms
        for text, prefix in expansions(term)
    )


def fts5_pairs(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression: any two of the terms together (each as `fts5_query` writes it)."""
    groups = [f"({fts5_query([term])})" for term in terms]
    return " OR ".join(f"({a} AND {b})" for a, b in itertools.combinations(groups, 2))


def tsquery_term(forms: Sequence[str]) -> str:
    """One query term for `to_tsquery('simple', ...)`: any of its forms (as typed, folded), each as
    written or `stem:*`, in parentheses."""
    alternatives = dict.fromkeys(
        f"'{text.replace(chr(39), chr(39) * 2)}'{':*' if prefix else ''}"
        for form in forms
        for text, prefix in expansions(form)
    )
    return "(" + " | ".join(alternatives) + ")"


def tsquery_words(words: Sequence[str]) -> str:
    """One query term as the exact words (lexemes of the index, at least one) it stands for;
    `tsquery_term` gives its forms and prefixes instead. Quotes and backslashes are escaped."""
    return "(" + " | ".join("'" + word.replace("\\", "\\\\").replace("'", "''") + "'" for word in words) + ")"


def tsquery(terms: Sequence[str]) -> str:
    """Any of the terms (each made by `tsquery_term`)."""
    return " | ".join(terms)


def tsquery_pairs(terms: Sequence[str]) -> str:
    """Any two of the terms together."""
    return " | ".join(f"({a} & {b})" for a, b in itertools.combinations(terms, 2))
