"""The plans area's tables."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    Integer,
    String,
    Table,
)

from engage_sql.schema import metadata

plans = Table(
    "plans",
    metadata,
    # Seeded with `engage_core.plans.SEED_PLANS` by the migration; changed, never added or removed.
    Column("id", Integer(), primary_key=True, autoincrement=False),
    Column("slug", String(32), nullable=False, unique=True),
    Column("name", String(100), nullable=False),
    Column("limits", JSON(), nullable=False),  # {limit name: integer}, every name of plans.LIMITS
    Column("features", JSON(), nullable=False),  # the enabled feature names, sorted
)
