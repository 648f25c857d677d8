"""The workspace's locale.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

`accounts.locale` holds a BCP 47 language tag in canonical case (`engage_core.accounts.model.parse_locale`);
existing workspaces get `en`, the default of new ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("accounts", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.add_column(sa.Column("locale", sa.String(16), nullable=False, server_default="en"))


def downgrade() -> None:
    with op.batch_alter_table("accounts", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_column("locale")
