"""Accounts in SQL: accounts with their key digests, admission in one read, and the per-account counters."""

from __future__ import annotations

from engage_sql.accounts.repository import SqlAccountRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    admin={
        # Kept admissions for read-only work only: a transaction that writes reads its own changes.
        "accounts": lambda s: SqlAccountRepository(s.connection, None if s.writes else s.admissions),
    },
    partners={
        "accounts": lambda s: SqlAccountRepository(s.connection),
    },
)
