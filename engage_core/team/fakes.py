"""In-memory fakes of the team area's ports: members, and a fast password hasher."""

from __future__ import annotations

import hashlib
import hmac
import uuid
from datetime import datetime

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.team.model import MemberDraft, TeamMember, email_key


@attrs.define
class TeamTables(Tables):
    """The team area's rows, by table."""

    team_members: dict[int, tuple[int, TeamMember]] = attrs.Factory(dict)
    member_passwords: dict[int, str] = attrs.Factory(dict)  # member id -> password hash


class _Repo(Repo):
    @property
    def _t(self) -> TeamTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(TeamTables)


class InMemoryTeamMemberRepository(_Repo):
    """The in-memory :class:`.TeamMemberRepository`."""

    def _mine(self) -> list[TeamMember]:
        return sorted((m for (a, m) in self._t.team_members.values() if a == self._account), key=lambda m: m.id)

    def _taken(self, email: str, other_than: int | None = None) -> None:
        found = self.by_email(email)
        if found is not None and found.id != other_than:
            raise ValidationFailed.on("email", "The email has already been taken.")

    def add(self, draft: MemberDraft, password_hash: str, now: datetime) -> TeamMember:
        """In memory, as :meth:`.TeamMemberRepository.add`."""
        self._taken(draft.email)
        member = TeamMember(self._store.next_id(), draft.name, draft.email, draft.role, draft.status, now, now)
        self._t.team_members[member.id] = (self._account, member)
        self._t.member_passwords[member.id] = password_hash
        return member

    def get(self, member_id: int) -> TeamMember | None:
        """In memory, as :meth:`.TeamMemberRepository.get`."""
        row = self._t.team_members.get(member_id)
        return None if row is None or row[0] != self._account else row[1]

    def by_email(self, email: str) -> TeamMember | None:
        """In memory, as :meth:`.TeamMemberRepository.by_email`."""
        key = email_key(email)
        return next((m for m in self._mine() if email_key(m.email) == key), None)

    def find(self, role: str | None, page: PageRequest) -> Page[TeamMember]:
        """In memory, as :meth:`.TeamMemberRepository.find`."""
        return paginate([m for m in self._mine() if role is None or m.role == role], page)

    def update(self, member: TeamMember) -> None:
        """In memory, as :meth:`.TeamMemberRepository.update`."""
        current = self.get(member.id)
        if current is not None:
            self._taken(member.email, other_than=member.id)
            self._t.team_members[member.id] = (
                self._account,
                attrs.evolve(
                    current,
                    name=member.name,
                    email=member.email,
                    role=member.role,
                    status=member.status,
                    updated_at=member.updated_at,
                ),
            )

    def password_hash(self, member_id: int) -> str | None:
        """In memory, as :meth:`.TeamMemberRepository.password_hash`."""
        return self._t.member_passwords.get(member_id) if self.get(member_id) is not None else None

    def set_password_hash(self, member_id: int, password_hash: str, now: datetime) -> None:
        """In memory, as :meth:`.TeamMemberRepository.set_password_hash`."""
        member = self.get(member_id)
        if member is not None:
            self._t.member_passwords[member_id] = password_hash
            self._t.team_members[member_id] = (self._account, attrs.evolve(member, updated_at=now))

    def delete(self, member_id: int) -> None:
        """In memory, as :meth:`.TeamMemberRepository.delete`."""
        if self.get(member_id) is not None:
            del self._t.team_members[member_id]
            del self._t.member_passwords[member_id]


class FakePasswordHasher:
    """A fast stand-in for argon2id: a salted SHA-256, visibly not the password, in the same
    self-describing shape (`fake$<salt>$<digest>`), so hashing twice gives two hashes."""

    def hash(self, password: str) -> str:
        """In memory, as :meth:`.PasswordHasher.hash`."""
        salt = uuid.uuid4().hex[:16]
        return f"fake${salt}${hashlib.sha256((salt + password).encode()).hexdigest()}"

    def verify(self, password_hash: str, password: str) -> bool:
        """In memory, as :meth:`.PasswordHasher.verify`."""
        parts = password_hash.split("$")
        if len(parts) != 3 or parts[0] != "fake":
            return False
        expected = hashlib.sha256((parts[1] + password).encode()).hexdigest()
        return hmac.compare_digest(parts[2], expected)


class InMemoryMemberDirectory(_Repo):
    """The in-memory :class:`.MemberDirectory`."""

    def workspaces_of(self, email: str) -> list[int]:
        """In memory, as :meth:`.MemberDirectory.workspaces_of`."""
        key = email_key(email)
        return sorted({a for (a, m) in self._t.team_members.values() if email_key(m.email) == key})


AREA = FakeArea(
    TeamTables,
    workspace={
        "team": InMemoryTeamMemberRepository,
    },
    admin={"team_directory": InMemoryMemberDirectory},
)
