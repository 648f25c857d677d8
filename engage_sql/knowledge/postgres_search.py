"""PostgreSQL's candidates for knowledge-base search, with the cost of ranking bounded.

`ts_rank_cd` reads and walks the whole vector of every chunk it ranks, so ranking every match of a
question holding one common word costs thousands of vectors (hundreds of milliseconds at 100,000
chunks). The final order is decided by `engage_core.knowledge.search.ranked`, whose score is the
share of the question's terms a chunk holds, weighted by their rarity; the index's own rank only
breaks ties. So the chunks that come first are nearly always among those holding the rarer terms,
and the search runs in steps:

1. How many chunks hold each term, read from `knowledge_base_lexemes` (migration 0022: counts per
   account and word, kept by triggers; a prefix term sums its words, so it may count a chunk twice).
   The same read names the words a prefix (`stem:*`) stands for in this account; when they are few
   (at most `EXPANDED_WORDS`), the term is searched as those exact words. The answer is the same (the
   table holds every word of the account's vectors), but GIN answers an exact word from its posting
   tree, skipping through it under `&`, while a prefix has every matching posting read into a bitmap
   first: five times slower for a question of four prefixes of about 5,000 chunks each.
2. Few matches in all (at most `EXACT_MATCHES`): rank them all by `ts_rank_cd`, first those holding
   two of the terms (up to `PAIRED_TERMS` terms), as before. Small knowledge bases, and every
   question that finds little, take this path and get the answer of an unbounded ranking.
3. Otherwise a cheap score chooses `BOUNDED_CANDIDATES` chunks, which are then ranked as in step 2.
   The cheap score weighs each term by its inverse frequency (from step 1) and adds the weights of
   the terms a chunk holds (a `@@` test per term, no ranking). The chunks scored are those holding
   the rarest terms, as many terms as fit within `DRAWN` matches (always the rarest one); when even
   the rarest term is common, the first `DRAWN` chunks holding two of the terms.

The documented difference: above `EXACT_MATCHES`, a chunk holding only common terms is not ranked
when the question has a rarer one. It would score below a chunk holding that rare term unless it
held enough of the common ones to outweigh it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sqlalchemy import Connection, text

from engage_core.knowledge.terms import expansions
from engage_sql.knowledge.search_index import tsquery, tsquery_pairs, tsquery_term, tsquery_words
from engage_sql.types import AnyRow

EXACT_MATCHES = 300
"""Up to this many matches in all (the sum of the terms' counts), every match is ranked."""
DRAWN = 250
"""Above `EXACT_MATCHES`: chunks given the cheap score, at most (unless the rarest term alone has more)."""
BOUNDED_CANDIDATES = 100
"""Above `EXACT_MATCHES`: chunks ranked by `ts_rank_cd`, the best by the cheap score."""
PAIRED_TERMS = 8
EXPANDED_WORDS = 8
"""A prefix matching up to this many of the account's words is searched as those words."""
"""Up to this many terms, ranking first looks among the chunks holding two of them (28 pairs)."""

# The entry is joined row by row through its key (OFFSET 0 keeps the subquery from being flattened):
# otherwise the planner reads every entry of the account to hash them.
_ENTRY = """
CROSS JOIN LATERAL (SELECT e.title, e.type FROM knowledge_base_entries AS e
    WHERE e.account_id = c.account_id AND e.id = c.knowledge_base_id AND e.status = 'active' {types} OFFSET 0) AS e
"""
# ts_rank_cd over the generated, weighted `search_vector` (normalisation 1: divided by 1 + log(length)).
_RANKED = """
WITH q AS (SELECT to_tsquery('simple', :query) AS query)
SELECT c.id, c.knowledge_base_id, e.title, e.type, c.content, c.context_header, c.keywords,
       ts_rank_cd(c.search_vector, q.query, 1) AS rank
FROM knowledge_base_chunks AS c
CROSS JOIN q
{entry}
WHERE {where} AND c.account_id = :account
ORDER BY rank DESC, c.id
LIMIT :candidates
"""
# The cheap score chooses, then only those chosen are ranked; one statement, so each chunk's row is
# read once (the machine's buffer cache may not keep it between two statements).
_BOUNDED = """
WITH q AS (SELECT to_tsquery('simple', :query) AS query),
chosen AS MATERIALIZED (
    SELECT c.id, c.knowledge_base_id, e.title, e.type, c.content, c.context_header, c.keywords, c.search_vector
    FROM (SELECT id, account_id, knowledge_base_id, content, context_header, keywords, search_vector
        FROM knowledge_base_chunks
        WHERE search_vector @@ to_tsquery('simple', :drawn) AND account_id = :account LIMIT :drawn_limit) AS c
    {entry}
    ORDER BY {score} DESC, c.id
    LIMIT :bounded
)
SELECT c.id, c.knowledge_base_id, c.title, c.type, c.content, c.context_header, c.keywords,
       ts_rank_cd(c.search_vector, q.query, 1) AS rank
FROM chosen AS c CROSS JOIN q
ORDER BY rank DESC, c.id
LIMIT :candidates
"""
_COUNT = """coalesce((SELECT sum(chunks) FROM knowledge_base_lexemes
    WHERE account_id = :account AND ({words})), 0)"""
# One more word than may be expanded, so a longer list tells that the prefix stays a prefix.
_WORDS = """ARRAY(SELECT lexeme FROM knowledge_base_lexemes
    WHERE account_id = :account AND ({words}) AND chunks > 0 ORDER BY lexeme LIMIT {limit})"""


def candidates(
    conn: Connection, forms: Sequence[Sequence[str]], type_filter: str, params: dict[str, object]
) -> Sequence[AnyRow]:
    """The best `params["candidates"]` chunks by `ts_rank_cd` among those holding any of the terms, each
    given by its forms (as typed, folded), chosen as the module notes say. `params` holds the account,
    the type filter's values and `candidates`; `query` (every term) is set in it for the snippets."""
    counts, words = _counts(conn, forms, params)
    groups = [tsquery_words(found) if found else tsquery_term(f) for f, found in zip(forms, words, strict=True)]
    params["query"] = tsquery(groups)
    entry = _ENTRY.format(types=type_filter)
    if sum(counts) <= EXACT_MATCHES:
        return _exact(conn, groups, entry, params)
    order = sorted(range(len(groups)), key=lambda i: counts[i])
    drawn = [order[0]]
    for i in order[1:]:
        if sum(counts[j] for j in drawn) + counts[i] > DRAWN:
            break
        drawn.append(i)
    common = counts[order[0]] > DRAWN and len(groups) >= 2
    query = tsquery_pairs(groups) if common else tsquery([groups[i] for i in drawn])
    # Inverse frequency, as `ranked` weighs the terms.
    total = sum(counts)
    score = " + ".join(
        f"(CASE WHEN c.search_vector @@ to_tsquery('simple', :term_{i}) THEN {math.log(1 + (total + 1) / (1 + n)):.6f} "
        "ELSE 0 END)"
        for i, n in enumerate(counts)
    )
    limits = {"drawn": query, "drawn_limit": DRAWN if common else total, "bounded": BOUNDED_CANDIDATES}
    terms = {f"term_{i}": group for i, group in enumerate(groups)}
    return conn.execute(text(_BOUNDED.format(entry=entry, score=score)), params | terms | limits).all()


def _counts(
    conn: Connection, forms: Sequence[Sequence[str]], params: dict[str, object]
) -> tuple[list[int], list[list[str] | None]]:
    """How many chunks hold each term (a prefix term: the sum over the words it matches), and the
    account's words the term matches when they are at most `EXPANDED_WORDS`, all letters and digits
    (else None: the term stays as its forms and prefixes)."""
    values: dict[str, object] = {"account": params["account"]}
    columns = []
    for i, term_forms in enumerate(forms):
        words = []
        alternatives = dict.fromkeys(alt for form in term_forms for alt in expansions(form))
        for j, (word, prefix) in enumerate(alternatives):
            values[f"w_{i}_{j}"] = word
            if prefix:  # a range of the "C"-collated key: from the prefix to the prefix and the last code point
                values[f"e_{i}_{j}"] = word + chr(0x10FFFF)
                words.append(f"(lexeme >= :w_{i}_{j} AND lexeme < :e_{i}_{j})")
            else:
                words.append(f"lexeme = :w_{i}_{j}")
        columns.append(_COUNT.format(words=" OR ".join(words)))
        columns.append(_WORDS.format(words=" OR ".join(words), limit=EXPANDED_WORDS + 1))
    row = conn.execute(text("SELECT " + ", ".join(columns)), values).one()
    counts = [int(n) for n in row[0::2]]
    # A word holding other characters ("e-mail", "a.b") would be parsed again by `to_tsquery`, into a phrase.
    found = [list(w) if len(w) <= EXPANDED_WORDS and all(x.isalnum() for x in w) else None for w in row[1::2]]
    return counts, found


def _exact(conn: Connection, groups: Sequence[str], entry: str, params: dict[str, object]) -> Sequence[AnyRow]:
    """Every match ranked: first among the chunks holding two of the terms, when those fill the candidates."""
    sql = text(_RANKED.format(entry=entry, where="c.search_vector @@ q.query"))
    if 2 <= len(groups) <= PAIRED_TERMS:
        rows = conn.execute(sql, params | {"query": tsquery_pairs(groups)}).all()
        if len(rows) == params["candidates"]:
            return rows
    return conn.execute(sql, params).all()
