"""Accounts (workspaces): administration and authentication, across every account."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, String, Text, bindparam, case, cast, func, insert, select, update

from engage_core.accounts.model import DEFAULT_LOCALE, Account, Admission
from engage_core.plans.model import Plan
from engage_sql.accounts.admissions import AdmissionCache
from engage_sql.accounts.tables import account_counters, accounts
from engage_sql.driver import DriverStatement
from engage_sql.partners.tables import partner_clients
from engage_sql.plans.tables import plans
from engage_sql.transaction_memo import memo
from engage_sql.types import AnyRow, UTCDateTime

_COLUMNS = (
    accounts.c.id,
    accounts.c.name,
    accounts.c.is_active,
    accounts.c.allowed_origins,
    accounts.c.key_hint,
    accounts.c.created_at,
    accounts.c.updated_at,
    accounts.c.locale,
)


_BY_ID = select(*_COLUMNS).where(accounts.c.id == bindparam("id"))
_BY_KEY_DIGEST = DriverStatement(
    select(*_COLUMNS, accounts.c.key_digest).where(accounts.c.key_digest == bindparam("digest"))
)
"""Authentication's one statement per request, straight to the driver (see `driver.py`)."""

_PLAN_IN_FORCE = func.coalesce(
    # `ScheduledPlan.plan_at`: the pending plan from its boundary on, else the client's plan, else
    # (no client row: a workspace without a partner) the default plan.
    case((partner_clients.c.pending_from <= bindparam("now", type_=UTCDateTime()), partner_clients.c.pending_plan)),
    partner_clients.c.plan,
    bindparam("default_plan", type_=String()),
)
_ADMISSION = DriverStatement(
    select(
        *_COLUMNS[:3],
        cast(accounts.c.allowed_origins, Text),  # JSON as text, to be parsed once (`_origins`)
        *_COLUMNS[4:],
        accounts.c.key_digest,
        partner_clients.c.status,
        plans.c.id,
        plans.c.slug,
        plans.c.name,
        cast(plans.c.limits, Text),
        cast(plans.c.features, Text),
        partner_clients.c.pending_from,
    )
    .select_from(
        accounts.outerjoin(partner_clients, partner_clients.c.account_id == accounts.c.id).outerjoin(
            plans, plans.c.slug == _PLAN_IN_FORCE
        )
    )
    .where(accounts.c.key_digest == bindparam("digest"))
)
"""Admission's one statement per workspace request (`AccountRepository.admission`): the key lookup
with the client row (primary key) and the plan (unique slug) joined, straight to the driver. Its
JSON columns come as text: every request of a workspace reads the same few values, so each distinct
text is parsed once (`_origins`, `_plan`)."""


@functools.lru_cache(maxsize=1024)
def _origins(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


@functools.lru_cache(maxsize=256)
def _plan(plan_id: int, slug: str, name: str, limits: str, features: str) -> Plan:
    """The plan of these stored values (shared by the requests that read them: a `Plan` is frozen)."""
    return Plan(plan_id, slug, name, json.loads(limits), frozenset(json.loads(features)))


def account_from_row(row: AnyRow | tuple[Any, ...]) -> Account:
    """An account from a row of `_COLUMNS` (by position)."""
    id, name, is_active, allowed_origins, key_hint, created_at, updated_at, locale = row[:8]
    return Account(id, name, is_active, tuple(allowed_origins), key_hint, created_at, updated_at, locale)


class SqlAccountRepository:
    """Accounts over `connection`; with `admissions` (read-only work on PostgreSQL), admissions are
    kept between transactions (`engage_sql.accounts.admissions`)."""

    def __init__(self, connection: Connection, admissions: AdmissionCache | None = None) -> None:
        self._conn = connection
        self._admissions = admissions

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account:
        row = self._conn.execute(
            accounts.insert()
            .values(
                name=name,
                is_active=True,
                allowed_origins=[],
                key_digest=key_digest,
                key_hint=key_hint,
                locale=DEFAULT_LOCALE,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one()
        # Its counters start at zero, in the same transaction (see SqlContactRepository).
        self._conn.execute(insert(account_counters), {"account_id": row.id, "contacts": 0})
        return account_from_row(row)

    def get(self, account_id: int) -> Account | None:
        row = self._conn.execute(_BY_ID, {"id": account_id}).one_or_none()
        return None if row is None else account_from_row(row)

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        row = _BY_KEY_DIGEST.first(self._conn, {"digest": key_digest})  # key_digest is UNIQUE
        return None if row is None else (account_from_row(row), row[8])

    def admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        # Read once per transaction: a write-lane batch admits the same key once per request of it
        # (`transaction_memo`; whatever writes accounts, clients or plans empties the memo).
        memo_key = ("admission", key_digest, default_plan)
        memoised = memo(self._conn)
        found: tuple[Admission, str] | None = memoised.get(memo_key)
        if found is None or not found[0].holds_at(now):
            found = self._kept_or_read(memo_key, key_digest, now, default_plan)
            if found is not None:
                memoised[memo_key] = found
        return found

    def _kept_or_read(
        self, cache_key: tuple[str, str, str], key_digest: str, now: datetime, default_plan: str
    ) -> tuple[Admission, str] | None:
        """The admission the process keeps, while it still holds; else read (and kept)."""
        cache = self._admissions
        if cache is None:
            return self._read_admission(key_digest, now, default_plan)
        found = cache.get(cache_key)
        if found is not None and found[0].holds_at(now):
            return found
        generation = cache.generation  # before the read: a change heard meanwhile voids it
        found = self._read_admission(key_digest, now, default_plan)
        if found is not None:
            cache.put(cache_key, found, generation)
        return found

    def _read_admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        row = _ADMISSION.first(self._conn, {"digest": key_digest, "now": now, "default_plan": default_plan})
        if row is None:
            return None
        id, account_name, is_active, origins, key_hint, created_at, updated_at, locale = row[:8]
        account = Account(id, account_name, is_active, _origins(origins), key_hint, created_at, updated_at, locale)
        plan_id, slug, name, limits, features, pending_from = row[10:]
        plan = None if plan_id is None else _plan(plan_id, slug, name, limits, features)
        changes_at = pending_from if pending_from is not None and now < pending_from else None
        return Admission(account, row[9] == "suspended", plan, changes_at), row[8]

    def list(self) -> Sequence[Account]:
        return [account_from_row(r) for r in self._conn.execute(select(*_COLUMNS).order_by(accounts.c.id))]

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        self._set(account_id, key_digest=key_digest, key_hint=key_hint, updated_at=now)

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None:
        self._set(account_id, is_active=is_active, updated_at=now)

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None:
        self._set(account_id, allowed_origins=list(origins), updated_at=now)

    def rename(self, account_id: int, name: str, now: datetime) -> None:
        self._set(account_id, name=name, updated_at=now)

    def set_locale(self, account_id: int, locale: str, now: datetime) -> None:
        self._set(account_id, locale=locale, updated_at=now)

    def _set(self, account_id: int, **values: object) -> None:
        self._conn.execute(update(accounts).where(accounts.c.id == account_id).values(**values))
