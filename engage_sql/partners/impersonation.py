"""Single-use impersonation tokens, kept as SHA-256 digests only."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, bindparam, insert, update

from engage_core.partners.model import Impersonation
from engage_sql.partners.tables import impersonation_tokens

_t = impersonation_tokens.c
_REDEEM = (
    update(impersonation_tokens)
    .where(_t.digest == bindparam("b_digest"), _t.used_at.is_(None), _t.expires_at > bindparam("b_now"))
    .values(used_at=bindparam("b_now"))
    .returning(_t.partner_id, _t.account_id, _t.key_generation)
)
"""One statement: of two concurrent redeems, the second finds `used_at` set and changes nothing."""


class SqlImpersonationRepository:
    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def add(self, token_digest: str, grant: Impersonation, expires_at: datetime, now: datetime) -> None:
        self._conn.execute(
            insert(impersonation_tokens).values(
                digest=token_digest,
                partner_id=grant.partner_id,
                account_id=grant.account_id,
                key_generation=grant.key_generation,
                expires_at=expires_at,
                created_at=now,
            )
        )

    def redeem(self, token_digest: str, now: datetime) -> Impersonation | None:
        row = self._conn.execute(_REDEEM, {"b_digest": token_digest, "b_now": now}).one_or_none()
        return None if row is None else Impersonation(row.partner_id, row.account_id, row.key_generation)
