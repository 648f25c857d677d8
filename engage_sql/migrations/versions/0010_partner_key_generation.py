"""The generation of a partner's key, on the partner and on each impersonation token.

Revision ID: 0010
Revises: 0009
Create Date: 2027-01-15

`partners.key_generation` advances with every key rotation and suspension; an impersonation token
records the generation that minted it, and is redeemed, and its session honoured, only while the
partner is still on it (`engage_core.partners.model.impersonation_refusal`). Existing partners and
tokens start at 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("partners", {"sqlite_autoincrement": True}),
    ("impersonation_tokens", {}),
)


def upgrade() -> None:
    for table, kwargs in _TABLES:
        with op.batch_alter_table(table, table_kwargs=kwargs) as batch:
            batch.add_column(sa.Column("key_generation", sa.Integer(), nullable=False, server_default="1"))


def downgrade() -> None:
    for table, kwargs in reversed(_TABLES):
        with op.batch_alter_table(table, table_kwargs=kwargs) as batch:
            batch.drop_column("key_generation")
