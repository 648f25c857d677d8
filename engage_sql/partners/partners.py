"""Partners (resellers): administration and partner-key authentication, across every partner."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, exists, select, update

from engage_core.partners.model import Branding, Partner, PartnerDraft
from engage_sql.partners.tables import partners
from engage_sql.statements import insert_or_ignore
from engage_sql.types import AnyRow

_COLUMNS = (
    partners.c.id,
    partners.c.company_name,
    partners.c.slug,
    partners.c.email,
    partners.c.plan,
    partners.c.status,
    partners.c.client_seats_max,
    partners.c.key_hint,
    partners.c.created_at,
    partners.c.updated_at,
    partners.c.logo_url,
    partners.c.primary_color,
    partners.c.custom_domain,
    partners.c.key_generation,
)
_NEXT_GENERATION = partners.c.key_generation + 1
_BY_ID = select(*_COLUMNS).where(partners.c.id == bindparam("id"))
_BY_KEY_DIGEST = select(*_COLUMNS, partners.c.key_digest).where(partners.c.key_digest == bindparam("digest"))


def partner_from_row(row: AnyRow) -> Partner:
    return Partner(
        id=row.id,
        company_name=row.company_name,
        slug=row.slug,
        email=row.email,
        plan=row.plan,
        status=row.status,
        client_seats_max=row.client_seats_max,
        key_hint=row.key_hint,
        created_at=row.created_at,
        updated_at=row.updated_at,
        branding=Branding(row.logo_url, row.primary_color, row.custom_domain),
        key_generation=row.key_generation,
    )


class SqlPartnerRepository:
    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def add(self, draft: PartnerDraft, key_digest: str, key_hint: str, now: datetime) -> Partner | None:
        # The unique index on the slug decides between concurrent creates: the loser's insert is
        # skipped rather than failed, so a PostgreSQL transaction stays usable.
        row = self._conn.execute(
            insert_or_ignore(self._conn, partners, ("slug",))
            .values(
                company_name=draft.company_name,
                slug=draft.slug,
                email=draft.email,
                plan=draft.plan,
                status="active",
                client_seats_max=draft.client_seats_max,
                key_digest=key_digest,
                key_hint=key_hint,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one_or_none()
        return None if row is None else partner_from_row(row)

    def get(self, partner_id: int) -> Partner | None:
        row = self._conn.execute(_BY_ID, {"id": partner_id}).one_or_none()
        return None if row is None else partner_from_row(row)

    def by_key_digest(self, key_digest: str) -> tuple[Partner, str] | None:
        row = self._conn.execute(_BY_KEY_DIGEST, {"digest": key_digest}).one_or_none()  # key_digest is UNIQUE
        return None if row is None else (partner_from_row(row), row.key_digest)

    def slug_taken(self, slug: str) -> bool:
        return bool(self._conn.execute(select(exists().where(partners.c.slug == slug))).scalar_one())

    def list(self) -> Sequence[Partner]:
        return [partner_from_row(row) for row in self._conn.execute(select(*_COLUMNS).order_by(partners.c.id))]

    def set_key(self, partner_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        self._set(partner_id, key_digest=key_digest, key_hint=key_hint, updated_at=now, key_generation=_NEXT_GENERATION)

    def advance_key_generation(self, partner_id: int) -> None:
        self._set(partner_id, key_generation=_NEXT_GENERATION)

    def update(self, partner: Partner) -> None:
        self._set(
            partner.id,
            company_name=partner.company_name,
            email=partner.email,
            plan=partner.plan,
            status=partner.status,
            client_seats_max=partner.client_seats_max,
            logo_url=partner.branding.logo_url,
            primary_color=partner.branding.primary_color,
            custom_domain=partner.branding.custom_domain,
            updated_at=partner.updated_at,
        )

    def _set(self, partner_id: int, **values: Any) -> None:
        self._conn.execute(update(partners).where(partners.c.id == partner_id).values(**values))
