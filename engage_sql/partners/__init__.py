"""Partners in SQL: partners, their clients, impersonation tokens, partner webhooks and their outbox."""

from __future__ import annotations

from engage_sql.partners.clients import SqlClientRepository
from engage_sql.partners.impersonation import SqlImpersonationRepository
from engage_sql.partners.partner_webhooks import SqlPartnerWebhookRepository
from engage_sql.partners.partners import SqlPartnerRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    partners={
        "partners": lambda s: SqlPartnerRepository(s.connection),
        "clients": lambda s: SqlClientRepository(s.connection),
        "impersonations": lambda s: SqlImpersonationRepository(s.connection),
        "partner_webhooks": lambda s: SqlPartnerWebhookRepository(s.connection),
    },
)
