"""Client workspaces of partners. Every look-up but `of_account`, `email_in_use` and `slug_taken`
names the partner, so another partner's client is simply not found."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, case, delete, exists, func, literal, or_, select, update

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.partners.model import Client, ClientDraft, ClientFilter, PrimaryUser, email_key
from engage_core.plans.model import ScheduledPlan
from engage_core.plans.usage import UsageCounts
from engage_sql.accounts.tables import accounts
from engage_sql.partners.tables import partner_clients, partners
from engage_sql.plans.usage import client_counts
from engage_sql.statements import insert_or_ignore
from engage_sql.text import fold
from engage_sql.transaction_memo import forget
from engage_sql.types import AnyRow

_c = partner_clients.c
_COLUMNS = (
    _c.account_id,
    _c.partner_id,
    _c.company_name,
    _c.slug,
    _c.status,
    _c.plan,
    _c.cycle_anchor,
    _c.pending_plan,
    _c.pending_from,
    _c.primary_user_id,
    _c.primary_first_name,
    _c.primary_last_name,
    _c.primary_email,
    _c.primary_phone,
    _c.timezone,
    _c.country_id,
    _c.suspended_at,
    _c.suspension_reason,
    _c.created_at,
    _c.updated_at,
)
_NEWEST_FIRST = (_c.created_at.desc(), _c.account_id.desc())


def client_from_row(row: AnyRow) -> Client:
    return Client(
        id=row.account_id,
        partner_id=row.partner_id,
        company_name=row.company_name,
        slug=row.slug,
        status=row.status,
        schedule=ScheduledPlan(row.plan, row.cycle_anchor, row.pending_plan, row.pending_from),
        primary_user=PrimaryUser(
            row.primary_user_id, row.primary_first_name, row.primary_last_name, row.primary_email, row.primary_phone
        ),
        timezone=row.timezone,
        country_id=row.country_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        suspended_at=row.suspended_at,
        suspension_reason=row.suspension_reason,
    )


def plan_in_force(now: datetime) -> ColumnElement[str]:
    """The plan at `now` (`ScheduledPlan.plan_at`): the pending one once its boundary has passed."""
    return case((_c.pending_from <= now, _c.pending_plan), else_=_c.plan)


def _filters(filters: ClientFilter, now: datetime) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if filters.status is not None:
        where.append(_c.status == filters.status)
    if filters.plan is not None:
        where.append(plan_in_force(now) == filters.plan)
    if filters.search:
        needle = fold(filters.search)
        # autoescape: `%`, `_` and the escape character in the search match themselves.
        where.append(
            or_(
                _c.company_key.contains(needle, autoescape=True),
                _c.primary_email_key.contains(needle, autoescape=True),
                _c.slug.contains(needle, autoescape=True),
            )
        )
    return where


class SqlClientRepository:
    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def lock_partner(self, partner_id: int) -> None:
        # SQLite: the write transaction already holds the database's write lock (BEGIN IMMEDIATE).
        if self._conn.dialect.name == "postgresql":
            self._conn.execute(select(literal(1)).where(partners.c.id == partner_id).with_for_update())

    def add(self, partner_id: int, account_id: int, draft: ClientDraft, now: datetime) -> Client | None:
        user = draft.primary_user
        # The unique indexes on the slug and the admin's address decide between concurrent creates
        # (of any partner): the loser's insert waits for the winner's commit, then is skipped rather
        # than failed, so a PostgreSQL transaction stays usable.
        row = self._conn.execute(
            insert_or_ignore(self._conn, partner_clients)
            .values(
                account_id=account_id,
                partner_id=partner_id,
                company_name=draft.company_name,
                company_key=fold(draft.company_name),
                slug=draft.slug,
                status="pending_setup",
                plan=draft.plan,
                cycle_anchor=now,
                primary_user_id=user.id,
                primary_first_name=user.first_name,
                primary_last_name=user.last_name,
                primary_email=user.email,
                primary_email_key=email_key(user.email),
                primary_phone=user.phone,
                timezone=draft.timezone,
                country_id=draft.country_id,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one_or_none()
        return None if row is None else client_from_row(row)

    def get(self, partner_id: int, client_id: int) -> Client | None:
        row = self._conn.execute(
            select(*_COLUMNS).where(_c.account_id == client_id, _c.partner_id == partner_id)
        ).one_or_none()
        return None if row is None else client_from_row(row)

    def of_account(self, account_id: int) -> Client | None:
        row = self._conn.execute(select(*_COLUMNS).where(_c.account_id == account_id)).one_or_none()
        return None if row is None else client_from_row(row)

    def find(self, partner_id: int, filters: ClientFilter, page: PageRequest, now: datetime) -> Page[Client]:
        """Newest first (`created_at`, then `id`, descending)."""
        where = [_c.partner_id == partner_id, *_filters(filters, now)]
        total = self._conn.execute(select(func.count()).select_from(partner_clients).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS).where(*where).order_by(*_NEWEST_FIRST).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[client_from_row(row) for row in rows], request=page, total=total)

    def list(self, partner_id: int) -> Sequence[Client]:
        rows = self._conn.execute(select(*_COLUMNS).where(_c.partner_id == partner_id).order_by(_c.account_id))
        return [client_from_row(row) for row in rows]

    def usage(self, partner_id: int, start: datetime, end: datetime) -> Mapping[int, UsageCounts]:
        return client_counts(self._conn, partner_id, start, end)

    def count(self, partner_id: int) -> int:
        query = select(func.count()).select_from(partner_clients).where(_c.partner_id == partner_id)
        return int(self._conn.execute(query).scalar_one())

    def email_in_use(self, email: str) -> bool:
        return bool(self._conn.execute(select(exists().where(_c.primary_email_key == email_key(email)))).scalar_one())

    def slug_taken(self, slug: str) -> bool:
        return bool(self._conn.execute(select(exists().where(_c.slug == slug))).scalar_one())

    def update(self, client: Client) -> None:
        schedule = client.schedule
        self._conn.execute(
            update(partner_clients)
            .where(_c.account_id == client.id, _c.partner_id == client.partner_id)
            .values(
                company_name=client.company_name,
                company_key=fold(client.company_name),
                status=client.status,
                plan=schedule.plan,
                cycle_anchor=schedule.cycle_anchor,
                pending_plan=schedule.pending_plan,
                pending_from=schedule.pending_from,
                primary_user_id=client.primary_user.id,
                timezone=client.timezone,
                suspended_at=client.suspended_at,
                suspension_reason=client.suspension_reason,
                updated_at=client.updated_at,
            )
        )

    def delete(self, partner_id: int, client_id: int) -> None:
        """Delete the workspace account: every table with `account_id` references `accounts` with
        `ON DELETE CASCADE`, directly or through a parent that does (the client row included), so
        one statement removes the workspace and all its records."""
        owned = select(_c.account_id).where(_c.account_id == client_id, _c.partner_id == partner_id)
        forget(self._conn)  # their webhooks go with them (ON DELETE CASCADE)
        self._conn.execute(delete(accounts).where(accounts.c.id.in_(owned)))
