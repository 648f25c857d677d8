"""What the team area needs: storage of members, and password hashing."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.team.model import MemberDraft, TeamMember


class TeamMemberRepository(Protocol):
    """Team members of one account (`engage_core.team`). Addresses are unique per account by
    `team.email_key` (a unique index on `(account_id, email_key)`): `add` and `update` raise
    ValidationFailed on `email` when another member has the key. The password hash is stored
    beside the member, never in `TeamMember`."""

    def add(self, draft: MemberDraft, password_hash: str, now: datetime) -> TeamMember:
        """Store a new member with this password hash."""

    def get(self, member_id: int) -> TeamMember | None:
        """The member `member_id`, or None."""

    def by_email(self, email: str) -> TeamMember | None:
        """Case-insensitive look-up (see `team.email_key`)."""

    def find(self, role: str | None, page: PageRequest) -> Page[TeamMember]:
        """Ascending id; only members of `role` when it is given."""

    def update(self, member: TeamMember) -> None:
        """Store `name`, `email`, `role`, `status` and `updated_at`."""

    def password_hash(self, member_id: int) -> str | None:
        """The member's password hash, or None when there is no such member."""

    def set_password_hash(self, member_id: int, password_hash: str, now: datetime) -> None:
        """Replace the hash and set `updated_at`."""

    def delete(self, member_id: int) -> None:
        """Delete the member and its password hash. What was assigned to it is unassigned first,
        by the service, through each repository that holds assignments."""


class PasswordHasher(Protocol):
    """One-way password hashing (argon2id: `engage_connectors.passwords.Argon2idHasher`)."""

    def hash(self, password: str) -> str:
        """A self-describing hash (algorithm, parameters, salt): hashing twice gives two hashes."""

    def verify(self, password_hash: str, password: str) -> bool:
        """Whether `password` matches. False, never an error, for a mismatch or a malformed hash."""


class MemberDirectory(Protocol):
    """Across accounts: the workspaces an address is a member of (the sign-in page knows only the
    address)."""

    def workspaces_of(self, email: str) -> list[int]:
        """The ids of the accounts with a member of this address (`team.email_key`), ascending."""


class TeamDirectoryRepositories(Protocol):
    """The team area's repositories across accounts, as the administration unit of work hands them out."""

    @property
    def team_directory(self) -> MemberDirectory:
        """Members' addresses across accounts."""


class TeamRepositories(Protocol):
    """The team area's repositories, as a workspace unit of work hands them out."""

    @property
    def team(self) -> TeamMemberRepository:
        """The team members."""
