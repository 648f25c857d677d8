"""Knowledge-base search on PostgreSQL: per-account term counts, and a GIN index with a small pending list.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28

PostgreSQL only (SQLite's FTS5 needs none of it; the revision does nothing there):

- `knowledge_base_lexemes`: how many of an account's chunks hold each word of the `search_vector`,
  kept by statement-level triggers on `knowledge_base_chunks` (one ordered upsert per statement,
  so concurrent writers lock the rows in the same order). Search reads a term's rarity here
  instead of counting its matches in the table (`engage_sql.knowledge.postgres_search`). The column
  is `COLLATE "C"` so a word prefix is a range of the primary key. Not on `metadata`, like the rest
  of the full-text index (`engage_sql.knowledge.search_index.include_object`).
- The GIN index's pending list of recent insertions is held to 256 kB (from 4 MB): every search
  scans it unsorted, which cost more than the index itself; with no list at all (`fastupdate`
  off), an insert cost 3.5 times as much.
- `search_vector` is stored `MAIN` (in the row, compressed if that pays, not moved to the TOAST
  table), so ranking or testing a chunk does not fetch its vector from a second table. Existing
  chunks are rewritten for it (about five minutes for 100,000 chunks on a loaded machine).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | Sequence[str] | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The net change per (account, word) of one statement: + for new chunks, - for old ones; an update
# that leaves the vector alone (an embedding stored) nets to nothing and writes nothing.
_UPSERT = """
        INSERT INTO knowledge_base_lexemes AS l (account_id, lexeme, chunks)
        SELECT d.account_id, d.lexeme, sum(d.delta) FROM ({changes}) AS d
        WHERE EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = d.account_id)  -- gone when the account is
        GROUP BY d.account_id, d.lexeme HAVING sum(d.delta) <> 0
        ORDER BY d.account_id, d.lexeme
        ON CONFLICT (account_id, lexeme) DO UPDATE SET chunks = l.chunks + excluded.chunks;"""
_ADDED = "SELECT n.account_id, w.lexeme, 1 AS delta FROM knowledge_base_new_chunks AS n, unnest(n.search_vector) w"
_REMOVED = "SELECT o.account_id, w.lexeme, -1 AS delta FROM knowledge_base_old_chunks AS o, unnest(o.search_vector) w"
# A statement names only the transition tables its trigger has (plpgsql plans each when first run).
_FUNCTION = f"""
CREATE FUNCTION knowledge_base_lexemes_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN{_UPSERT.format(changes=_ADDED)}
    ELSIF TG_OP = 'DELETE' THEN{_UPSERT.format(changes=_REMOVED)}
    ELSE{_UPSERT.format(changes=_ADDED + " UNION ALL " + _REMOVED)}
    END IF;
    RETURN NULL;
END
$$
"""
_UP = (
    "ALTER TABLE knowledge_base_chunks ALTER COLUMN search_vector SET STORAGE MAIN",
    # Rewrites every chunk so its vector is stored in the row (before the counting triggers exist).
    "UPDATE knowledge_base_chunks SET content = content",
    """CREATE TABLE knowledge_base_lexemes (
        account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        lexeme text COLLATE "C" NOT NULL,
        chunks integer NOT NULL,
        PRIMARY KEY (account_id, lexeme))""",
    _FUNCTION,
    """CREATE TRIGGER knowledge_base_lexemes_insert AFTER INSERT ON knowledge_base_chunks
        REFERENCING NEW TABLE AS knowledge_base_new_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION knowledge_base_lexemes_count()""",
    """CREATE TRIGGER knowledge_base_lexemes_delete AFTER DELETE ON knowledge_base_chunks
        REFERENCING OLD TABLE AS knowledge_base_old_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION knowledge_base_lexemes_count()""",
    """CREATE TRIGGER knowledge_base_lexemes_update AFTER UPDATE ON knowledge_base_chunks
        REFERENCING OLD TABLE AS knowledge_base_old_chunks NEW TABLE AS knowledge_base_new_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION knowledge_base_lexemes_count()""",
    """INSERT INTO knowledge_base_lexemes (account_id, lexeme, chunks)
        SELECT c.account_id, w.lexeme, count(*) FROM knowledge_base_chunks AS c, unnest(c.search_vector) AS w
        GROUP BY c.account_id, w.lexeme""",
    "ALTER INDEX ix_knowledge_base_chunks_search_vector SET (gin_pending_list_limit = 256)",
    "SELECT gin_clean_pending_list('ix_knowledge_base_chunks_search_vector')",
)
_DOWN = (
    "ALTER TABLE knowledge_base_chunks ALTER COLUMN search_vector SET STORAGE EXTENDED",
    "ALTER INDEX ix_knowledge_base_chunks_search_vector RESET (gin_pending_list_limit)",
    "DROP TRIGGER knowledge_base_lexemes_update ON knowledge_base_chunks",
    "DROP TRIGGER knowledge_base_lexemes_delete ON knowledge_base_chunks",
    "DROP TRIGGER knowledge_base_lexemes_insert ON knowledge_base_chunks",
    "DROP FUNCTION knowledge_base_lexemes_count()",
    "DROP TABLE knowledge_base_lexemes",
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in _UP:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in _DOWN:
            op.execute(statement)
