"""Plans, partners, their client workspaces, impersonation tokens and partner webhooks.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types and the seeded plans instead of importing the application's (which will change). The seed
is `engage_core.plans.SEED_PLANS` as it was when this migration was written.

Partner webhooks are rows of `webhooks` with `partner_id` set and no `account_id`: their
deliveries share `webhook_attempts` (kind `partner`, no `account_id`, which that table already
allows) and so the delivery queue and worker. Existing workspaces keep their rows as they
are; no client exists yet, so every existing workspace runs on the default plan.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ALL_FEATURES = [
    "ai_agents",
    "api_access",
    "booking",
    "campaigns",
    "linkedin_access",
    "voice_cloning_enabled",
    "webhooks",
]
_SEED = [
    {
        "id": 1,
        "slug": "starter",
        "name": "Starter",
        "limits": {"contacts": 1_000, "messages_per_month": 2_000, "team_members": 2, "channels": 1},
        "features": ["api_access", "booking"],
    },
    {
        "id": 2,
        "slug": "pro",
        "name": "Pro",
        "limits": {"contacts": 10_000, "messages_per_month": 20_000, "team_members": 10, "channels": 3},
        "features": ["ai_agents", "api_access", "booking", "campaigns", "webhooks"],
    },
    {
        "id": 3,
        "slug": "business",
        "name": "Business",
        "limits": {"contacts": 100_000, "messages_per_month": 200_000, "team_members": 50, "channels": 4},
        "features": _ALL_FEATURES,
    },
]


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def _timestamps() -> list[sa.Column[object]]:
    return [sa.Column("created_at", _moment(), nullable=False), sa.Column("updated_at", _moment(), nullable=False)]


def _fk(table: str, column: str, target: str, ondelete: str | None = "CASCADE") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], [target], name=op.f(f"fk_{table}_{column}"), ondelete=ondelete)


def _index(table: str, *columns: str) -> None:
    op.create_index(op.f(f"ix_{table}_{'_'.join(columns)}"), table, list(columns), unique=False)


def upgrade() -> None:
    plans = op.create_table(
        "plans",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("limits", sa.JSON(), nullable=False),
        sa.Column("features", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plans")),
        sa.UniqueConstraint("slug", name=op.f("uq_plans_slug")),
    )
    op.bulk_insert(plans, _SEED)
    op.create_table(
        "partners",
        sa.Column("id", _id(), nullable=False),
        sa.Column("company_name", sa.String(length=255), nullable=False),
        sa.Column("slug", sa.String(length=60), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("plan", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("client_seats_max", sa.Integer(), nullable=False),
        sa.Column("key_digest", sa.String(length=64), nullable=False),
        sa.Column("key_hint", sa.String(length=16), nullable=False),
        sa.Column("logo_url", sa.String(length=2048), nullable=True),
        sa.Column("primary_color", sa.String(length=32), nullable=True),
        sa.Column("custom_domain", sa.String(length=255), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("status IN ('active', 'suspended', 'pending')", name=op.f("ck_partners_status")),
        sa.CheckConstraint("client_seats_max >= 0", name=op.f("ck_partners_client_seats_max")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_partners")),
        sa.UniqueConstraint("key_digest", name=op.f("uq_partners_key_digest")),
        sa.UniqueConstraint("slug", name=op.f("uq_partners_slug")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "partner_clients",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("partner_id", _id(), nullable=False),
        sa.Column("company_name", sa.String(length=255), nullable=False),
        sa.Column("company_key", sa.Text(), nullable=False),
        sa.Column("slug", sa.String(length=60), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("plan", sa.String(length=32), nullable=False),
        sa.Column("cycle_anchor", _moment(), nullable=False),
        sa.Column("pending_plan", sa.String(length=32), nullable=True),
        sa.Column("pending_from", _moment(), nullable=True),
        sa.Column("primary_user_id", _id(), nullable=True),
        sa.Column("primary_first_name", sa.String(length=100), nullable=False),
        sa.Column("primary_last_name", sa.String(length=100), nullable=False),
        sa.Column("primary_email", sa.String(length=255), nullable=False),
        sa.Column("primary_email_key", sa.String(length=255), nullable=False),
        sa.Column("primary_phone", sa.String(length=32), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("country_id", sa.Integer(), nullable=True),
        sa.Column("suspended_at", _moment(), nullable=True),
        sa.Column("suspension_reason", sa.String(length=1000), nullable=True),
        *_timestamps(),
        sa.CheckConstraint(
            "status IN ('active', 'suspended', 'pending_setup')", name=op.f("ck_partner_clients_status")
        ),
        sa.CheckConstraint("(pending_plan IS NULL) = (pending_from IS NULL)", name=op.f("ck_partner_clients_pending")),
        _fk("partner_clients", "account_id", "accounts.id"),
        _fk("partner_clients", "partner_id", "partners.id", ondelete=None),
        _fk("partner_clients", "plan", "plans.slug", ondelete=None),
        _fk("partner_clients", "pending_plan", "plans.slug", ondelete=None),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_partner_clients")),
        sa.UniqueConstraint("primary_email_key", name=op.f("uq_partner_clients_primary_email_key")),
        sa.UniqueConstraint("slug", name=op.f("uq_partner_clients_slug")),
    )
    _index("partner_clients", "partner_id", "created_at", "account_id")
    op.create_table(
        "impersonation_tokens",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("partner_id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("expires_at", _moment(), nullable=False),
        sa.Column("used_at", _moment(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        _fk("impersonation_tokens", "account_id", "accounts.id"),
        _fk("impersonation_tokens", "partner_id", "partners.id"),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_impersonation_tokens")),
    )
    _index("impersonation_tokens", "account_id")
    _index("impersonation_tokens", "partner_id")
    op.create_table(
        "partner_events",
        sa.Column("id", _id(), nullable=False),
        sa.Column("partner_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("occurred_at", _moment(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        _fk("partner_events", "partner_id", "partners.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_partner_events")),
        sqlite_autoincrement=True,
    )
    _index("partner_events", "partner_id", "id")
    # Partner subscriptions in `webhooks`: on SQLite this rebuilds the table (foreign keys are off
    # during migrations, so its delivery log survives), keeping AUTOINCREMENT.
    with op.batch_alter_table("webhooks", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.alter_column("account_id", existing_type=_id(), nullable=True)
        batch.add_column(sa.Column("partner_id", _id(), nullable=True))
        batch.create_foreign_key(op.f("fk_webhooks_partner_id"), "partners", ["partner_id"], ["id"], ondelete="CASCADE")
        batch.create_check_constraint(op.f("ck_webhooks_owner"), "(account_id IS NULL) <> (partner_id IS NULL)")
        batch.create_index(op.f("ix_webhooks_partner_id_id"), ["partner_id", "id"], unique=False)
    _index("messages", "account_id", "direction", "created_at")


def downgrade() -> None:
    op.drop_index(op.f("ix_messages_account_id_direction_created_at"), table_name="messages")
    # Partner subscriptions and their attempts go with the partners.
    op.execute("DELETE FROM webhook_attempts WHERE kind = 'partner'")
    op.execute("DELETE FROM webhooks WHERE partner_id IS NOT NULL")
    with op.batch_alter_table("webhooks", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_index(op.f("ix_webhooks_partner_id_id"))
        batch.drop_constraint(op.f("ck_webhooks_owner"), type_="check")
        batch.drop_constraint(op.f("fk_webhooks_partner_id"), type_="foreignkey")
        batch.drop_column("partner_id")
        batch.alter_column("account_id", existing_type=_id(), nullable=False)
    # Children before parents; dropping a table drops its indexes.
    for table in ("partner_events", "impersonation_tokens", "partner_clients", "partners", "plans"):
        op.drop_table(table)
