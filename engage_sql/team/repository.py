"""Team members of one account, with their password hashes.

Addresses are unique per account by `email_key` (a unique index), whatever the case they were
written in; a duplicate is a ValidationFailed on `email`, also when two adds race past the
service's own check. The hash sits in the member's row but is read only by `password_hash`: no
query that builds a `TeamMember` selects it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, Connection, delete, func, select, update
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.team.model import MemberDraft, TeamMember, email_key
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore, is_unique_violation
from engage_sql.team.tables import team_members
from engage_sql.types import AnyRow

COLUMNS = (
    team_members.c.id,
    team_members.c.name,
    team_members.c.email,
    team_members.c.role,
    team_members.c.status,
    team_members.c.created_at,
    team_members.c.updated_at,
)


def member_from_row(row: AnyRow) -> TeamMember:
    return TeamMember(
        id=row.id,
        name=row.name,
        email=row.email,
        role=row.role,
        status=row.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _email_taken() -> ValidationFailed:
    return ValidationFailed.on("email", "The email has already been taken.")


class SqlTeamMemberRepository(WorkspaceRepository):
    def add(self, draft: MemberDraft, password_hash: str, now: datetime) -> TeamMember:
        # ON CONFLICT instead of catching the error: the transaction stays usable on PostgreSQL.
        row = self._conn.execute(
            insert_or_ignore(self._conn, team_members, ("account_id", "email_key"))
            .values(
                account_id=self._account_id,
                name=draft.name,
                email=draft.email,
                email_key=email_key(draft.email),
                role=draft.role,
                status=draft.status,
                password_hash=password_hash,
                created_at=now,
                updated_at=now,
            )
            .returning(*COLUMNS)
        ).one_or_none()
        if row is None:
            raise _email_taken()
        return member_from_row(row)

    def get(self, member_id: int) -> TeamMember | None:
        return self._one(team_members.c.id == member_id)

    def by_email(self, email: str) -> TeamMember | None:
        return self._one(team_members.c.email_key == email_key(email))

    def find(self, role: str | None, page: PageRequest) -> Page[TeamMember]:
        """Ascending id; only members of `role` when it is given."""
        where = [self.owned(team_members)]
        if role is not None:
            where.append(team_members.c.role == role)
        total = self._conn.execute(select(func.count()).select_from(team_members).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*COLUMNS).where(*where).order_by(team_members.c.id).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[member_from_row(row) for row in rows], request=page, total=total)

    def update(self, member: TeamMember) -> None:
        try:
            with self._conn.begin_nested():  # keeps a PostgreSQL transaction usable after a collision
                self._conn.execute(
                    update(team_members)
                    .where(self.owned(team_members), team_members.c.id == member.id)
                    .values(
                        name=member.name,
                        email=member.email,
                        email_key=email_key(member.email),
                        role=member.role,
                        status=member.status,
                        updated_at=member.updated_at,
                    )
                )
        except IntegrityError as exc:
            if is_unique_violation(exc):
                raise _email_taken() from exc
            raise

    def password_hash(self, member_id: int) -> str | None:
        found: str | None = self._conn.execute(
            select(team_members.c.password_hash).where(self.owned(team_members), team_members.c.id == member_id)
        ).scalar()
        return found

    def set_password_hash(self, member_id: int, password_hash: str, now: datetime) -> None:
        self._conn.execute(
            update(team_members)
            .where(self.owned(team_members), team_members.c.id == member_id)
            .values(password_hash=password_hash, updated_at=now)
        )

    def delete(self, member_id: int) -> None:
        """The member's tickets must be unassigned first (the service does): their foreign key refuses otherwise."""
        self._conn.execute(delete(team_members).where(self.owned(team_members), team_members.c.id == member_id))

    def _one(self, *where: ColumnElement[bool]) -> TeamMember | None:
        row = self._conn.execute(select(*COLUMNS).where(self.owned(team_members), *where)).one_or_none()
        return None if row is None else member_from_row(row)


class SqlMemberDirectory:
    """Across accounts: which workspaces an address belongs to (read by the sign-in page)."""

    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def workspaces_of(self, email: str) -> list[int]:
        found = self._conn.execute(
            select(team_members.c.account_id)
            .where(team_members.c.email_key == email_key(email))
            .order_by(team_members.c.account_id)
        )
        return [int(account_id) for account_id in found.scalars()]
