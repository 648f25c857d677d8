"""`engage_core.kernel.idempotency.IdempotencyStore` over the `idempotency_keys` table.

A claim is one short write transaction: `INSERT ... ON CONFLICT DO NOTHING RETURNING` of a fresh
claim; when the key exists, its row is read (locked `FOR UPDATE` on PostgreSQL; on SQLite the
transaction holds the database's write lock) and judged by the core's rules (`resolve`), and an
expired or abandoned row is taken over by an UPDATE. Concurrent claims of one key therefore queue on
the row: on PostgreSQL the second INSERT waits for the first transaction, then skips and reads what
it committed. A completion or release matches the claim's lease token, so a claim that lost its key
changes nothing. Given the units of work's `WriteGroups` (SQLite), the transactions join their group
commit, as the delivery queue's do, instead of waiting for SQLite's write lock on their own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, select, update

from engage_core.kernel.idempotency import (
    Claim,
    ClaimState,
    KeyRecord,
    KeyState,
    StoredResponse,
    new_claim,
    resolve,
)
from engage_sql.group_commit import WriteGroups, WriteTransactions
from engage_sql.idempotency.tables import idempotency_keys as _k
from engage_sql.statements import insert_or_ignore
from engage_sql.types import AnyRow

_ATTEMPTS = 3
"""Claims of a key within one transaction: a key released between the INSERT and the read is
inserted again (a release is rare, twice in a row rarer still)."""

_RECORD = (
    _k.c.fingerprint,
    _k.c.state,
    _k.c.lease_token,
    _k.c.leased_until,
    _k.c.created_at,
    _k.c.expires_at,
    _k.c.response_status,
    _k.c.response_body,
    _k.c.response_headers,
)


def _record_from_row(row: AnyRow) -> KeyRecord:
    fingerprint, state, token, leased_until, created_at, expires_at, status, body, headers = row
    response = None
    if status is not None:
        response = StoredResponse(status, bytes(body or b""), tuple((str(n), str(v)) for n, v in headers or ()))
    return KeyRecord(fingerprint, KeyState(state), token, leased_until, created_at, expires_at, response)


def _claim_values(record: KeyRecord) -> dict[str, Any]:
    """The columns of a fresh claim, every response column empty."""
    return {
        "fingerprint": record.fingerprint,
        "state": record.state.value,
        "lease_token": record.token,
        "leased_until": record.leased_until,
        "response_status": None,
        "response_body": None,
        "response_headers": None,
        "created_at": record.created_at,
        "expires_at": record.expires_at,
    }


class SqlIdempotencyStore:
    """`IdempotencyStore` over one engine. Thread-safe: every call has its own transaction."""

    def __init__(self, engine: Engine, *, groups: WriteGroups | None = None) -> None:
        """`groups`: the write groups (SQLite) of the units of work over the same engine, to commit with."""
        self._transactions = WriteTransactions(engine, groups)

    def claim(self, scope: str, key: str, fingerprint: str, now: datetime) -> Claim:
        slot = (_k.c.scope == scope) & (_k.c.key == key)
        with self._transactions.write() as connection:
            for _ in range(_ATTEMPTS):
                fresh = new_claim(fingerprint, now)
                values = {"scope": scope, "key": key, **_claim_values(fresh)}
                claiming = insert_or_ignore(connection, _k, ("scope", "key")).values(values).returning(_k.c.scope)
                if connection.execute(claiming).first() is not None:  # no row: the key exists
                    return Claim(ClaimState.CLAIMED, token=fresh.token)
                row = connection.execute(select(*_RECORD).where(slot).with_for_update()).one_or_none()
                if row is None:  # released since the INSERT: insert again
                    continue
                answer = resolve(_record_from_row(row), fingerprint, now)
                if answer is not None:
                    return answer
                connection.execute(update(_k).where(slot).values(_claim_values(fresh)))
                return Claim(ClaimState.CLAIMED, token=fresh.token)
        raise RuntimeError(f"the idempotency key was released {_ATTEMPTS} times while being claimed")

    def complete(self, scope: str, key: str, token: str, response: StoredResponse) -> bool:
        with self._transactions.write() as connection:
            result = connection.execute(
                update(_k)
                .where((_k.c.scope == scope) & (_k.c.key == key) & (_k.c.lease_token == token))
                .values(
                    state=KeyState.COMPLETED.value,
                    lease_token=None,
                    leased_until=None,
                    response_status=response.status,
                    response_body=response.body,
                    response_headers=[list(pair) for pair in response.headers],
                )
            )
            return result.rowcount == 1

    def release(self, scope: str, key: str, token: str) -> bool:
        with self._transactions.write() as connection:
            result = connection.execute(
                delete(_k).where((_k.c.scope == scope) & (_k.c.key == key) & (_k.c.lease_token == token))
            )
            return result.rowcount == 1

    def purge(self, now: datetime) -> int:
        with self._transactions.write() as connection:
            return connection.execute(delete(_k).where(_k.c.expires_at <= now)).rowcount
