"""Campaign recipients record when each one was handed to the gateway.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-29

The sender claims recipients in batches (`sending`) and writes `handed_at` in a commit of its own
just before each one goes to the gateway: a claim without it is certainly unsent, so a pause, a
cancel or a crashed sender gives it back instead of marking its outcome unknown.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | Sequence[str] | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("campaign_recipients") as batch:
        batch.add_column(sa.Column("handed_at", sa.DateTime(timezone=True), nullable=True))
    # A claim of the sender before this revision was written just before its gateway call: handed.
    op.execute("UPDATE campaign_recipients SET handed_at = updated_at WHERE status = 'sending'")


def downgrade() -> None:
    with op.batch_alter_table("campaign_recipients") as batch:
        batch.drop_column("handed_at")
