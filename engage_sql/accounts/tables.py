"""The accounts area's tables: accounts and their counters."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    String,
    Table,
)

from engage_sql.schema import metadata, timestamps
from engage_sql.types import Id

accounts = Table(
    "accounts",
    metadata,
    Column("id", Id, primary_key=True),
    Column("name", String(255), nullable=False),
    Column("is_active", Boolean(), nullable=False),
    Column("allowed_origins", JSON(), nullable=False),
    Column("key_digest", String(64), nullable=False, unique=True),
    Column("key_hint", String(16), nullable=False),
    *timestamps(),
    # A BCP 47 language tag in canonical case (`engage_core.accounts.model.parse_locale`; migration 0009).
    Column("locale", String(16), nullable=False, server_default="en"),
    sqlite_autoincrement=True,
)


account_counters = Table(
    "account_counters",
    metadata,
    # One row per account, changed in the same transaction as what it counts (migration 0002).
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("contacts", BigInteger, nullable=False, server_default="0"),
    # The last ticket number handed out (migration 0005): `UPDATE ... SET tickets = tickets + 1
    # RETURNING tickets` takes the next one under the row's lock (`SqlTicketRepository.next_number`).
    Column("tickets", BigInteger, nullable=False, server_default="0"),
)
