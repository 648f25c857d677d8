"""The media library: files, the objects waiting to be removed, and the plans' media file limit.

Revision ID: 0019
Revises: 0018
Create Date: 2027-01-28

`media_files` holds one row per image or video of a workspace's library (the object itself is in
the blob store, named by `storage_key`); `media_blob_removals` the stored objects to remove once
due, unless cancelled first (an upload until its row is added, a deleted file until its object is
gone). Every plan gains a `media_files` limit (starter 100, pro 1,000, business 10,000), unless an
operator already set one. Self-contained: a migration describes the schema as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MEDIA_FILES = "media_files"
_MEDIA_LIMITS = {"starter": 100, "pro": 1_000, "business": 10_000}

_plans = sa.table("plans", sa.column("slug", sa.String()), sa.column("limits", sa.JSON()))


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def _account(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["account_id"], ["accounts.id"], name=op.f(f"fk_{table}_account_id"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "media_files",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("original_name", sa.String(length=255), nullable=False),
        sa.Column("original_name_key", sa.Text(), nullable=False),
        sa.Column("storage_key", sa.String(length=255), nullable=False),
        sa.Column("file_type", sa.String(length=16), nullable=False),
        sa.Column("mime_type", sa.String(length=64), nullable=False),
        sa.Column("extension", sa.String(length=8), nullable=False),
        sa.Column("file_size", _id(), nullable=False),
        sa.Column("metadata", sa.JSON(), nullable=True),
        sa.Column("uploaded_by", sa.String(length=16), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint("file_type IN ('image', 'video')", name=op.f("ck_media_files_file_type")),
        sa.CheckConstraint("uploaded_by IN ('client', 'admin')", name=op.f("ck_media_files_uploaded_by")),
        sa.CheckConstraint("file_size >= 0", name=op.f("ck_media_files_file_size")),
        _account("media_files"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_media_files")),
        sa.UniqueConstraint("storage_key", name=op.f("uq_media_files_storage_key")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_media_files_account_id_file_type_created_at_id"),
        "media_files",
        ["account_id", "file_type", "created_at", "id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_media_files_account_id_created_at_id"), "media_files", ["account_id", "created_at", "id"], unique=False
    )
    op.create_table(
        "media_blob_removals",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("storage_key", sa.String(length=255), nullable=False),
        sa.Column("remove_after", _moment(), nullable=False),
        _account("media_blob_removals"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_media_blob_removals")),
        sa.UniqueConstraint("storage_key", name=op.f("uq_media_blob_removals_storage_key")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_media_blob_removals_account_id_remove_after"),
        "media_blob_removals",
        ["account_id", "remove_after"],
        unique=False,
    )
    _set_media_limits(add=True)


def downgrade() -> None:
    _set_media_limits(add=False)
    op.drop_table("media_blob_removals")
    op.drop_table("media_files")


def _set_media_limits(*, add: bool) -> None:
    """Give every plan its `media_files` limit (keeping one already set), or take it away."""
    connection = op.get_bind()
    for slug, limits in connection.execute(sa.select(_plans.c.slug, _plans.c.limits)).all():
        changed = dict(limits)
        if add:
            changed.setdefault(MEDIA_FILES, _MEDIA_LIMITS.get(slug, _MEDIA_LIMITS["business"]))
        else:
            changed.pop(MEDIA_FILES, None)
        connection.execute(sa.update(_plans).where(_plans.c.slug == slug).values(limits=changed))
