"""Alembic migrations of the engage schema (`engage_sql.migrate` runs them; no alembic.ini needed)."""
