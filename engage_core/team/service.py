"""Team members: list, add (with an invitation e-mail), read, change, delete, and check a password.

Passwords are hashed before a transaction opens (argon2id takes tens of milliseconds, which must
not be spent holding the workspace's write lock), and invitations are sent after the member is
committed, outside any transaction. See `engage_core.team` for the rules.
"""

from __future__ import annotations

import hmac
import logging
import threading
from collections.abc import Callable
from datetime import datetime

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Forbidden, NotFound, Unauthenticated, Unavailable, ValidationFailed
from engage_core.kernel.mail import Mailer, MailUndelivered
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, one_of, required_text
from engage_core.messaging.handling_service import unassign_member as unassign_conversations
from engage_core.plans.entitlements import Entitlements, PlanLimits
from engage_core.plans.model import TEAM_MEMBERS, Plan
from engage_core.support.ticket_service import unassign_member as unassign_tickets
from engage_core.team.model import (
    MEMBER_STATUSES,
    NAME_MAX,
    ROLES,
    MemberDraft,
    TeamMember,
    check_password,
    invitation,
    required_email,
)
from engage_core.team.ports import PasswordHasher
from engage_core.team.sign_in import SignedIn, password_stamp
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

log = logging.getLogger("engage.team")

WRONG_CREDENTIALS = "The e-mail address or password is incorrect."


@attrs.frozen
class MemberInput:
    """Fields of `POST /team`."""

    name: str
    email: str
    role: str
    password: str = attrs.field(repr=False)
    status: str = "active"


@attrs.frozen
class MemberPatch:
    """Fields of `PUT /team/{id}`: any subset; `UNSET` leaves a field alone."""

    name: str | Unset = UNSET
    email: str | Unset = UNSET
    role: str | Unset = UNSET
    status: str | Unset = UNSET
    password: str | Unset = attrs.field(default=UNSET, repr=False)


@attrs.frozen
class NewMember:
    """The answer to `POST /team`: the member, and whether the invitation was handed to the mail
    server; when not, `invitation_error` says why (a failure is logged and leaves the member in place;
    `send_invitation` retries)."""

    member: TeamMember
    invitation_sent: bool
    invitation_error: str | None = None


class TeamService:
    """A workspace's team members: roles, passwords, invitations and sign-in.

    `entitlements` enforces the `team_members` limit (none without it); `sign_in_check` is called with
    the account id once a member's password is right, and may refuse the sign-in (a suspended
    workspace: `PartnerClientService.ensure_not_suspended`). Methods that name a member raise
    :class:`.NotFound` when it is not in the account; invalid input raises :class:`.ValidationFailed`
    naming each bad field."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        hasher: PasswordHasher,
        mailer: Mailer,
        app_url: str,
        entitlements: Entitlements | None = None,
        sign_in_check: Callable[[int], None] | None = None,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._hasher = hasher
        self._mailer = mailer
        self._app_url = app_url
        self._limits = PlanLimits(entitlements)
        self._sign_in_check = sign_in_check
        self._decoy: str | None = None
        self._decoy_lock = threading.Lock()

    # -- reading ------------------------------------------------------------------------------

    def find(self, account_id: int, role: str | None, page: PageRequest) -> Page[TeamMember]:
        """`GET /team`, ascending id; only members of `role` when given."""
        if role is not None:
            one_of("role", role, ROLES)
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.team.find(role, page)

    def get(self, account_id: int, member_id: int) -> TeamMember:
        """The team member `member_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _member(uow, member_id)

    # -- changing -----------------------------------------------------------------------------

    def create(self, account_id: int, data: MemberInput, *, plan: Plan | None = None) -> NewMember:
        """`POST /team`: an address another member of the workspace has (in any case) is a 422 on
        `email`. The invitation is sent once the member is stored. `plan`: the plan in force, when
        the caller has just read it; None reads it."""
        errors = ErrorCollector()
        name = errors.run(lambda: required_text("name", data.name, max_length=NAME_MAX))
        email = errors.run(lambda: required_email("email", data.email))
        role = errors.run(lambda: one_of("role", data.role, ROLES))
        status = errors.run(lambda: one_of("status", data.status, MEMBER_STATUSES))
        password = errors.run(lambda: check_password(data.password))
        errors.raise_if_any()
        assert name is not None and email is not None and role is not None and status is not None
        assert password is not None
        with self._uow.workspace(account_id, readonly=True) as uow:
            _check_email_free(uow, email, None)  # before spending a hash on a duplicate
        password_hash = self._hasher.hash(password)
        plan = self._limits.plan_of(account_id, plan)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _check_email_free(uow, email, None)
            self._limits.reserve(uow, plan, TEAM_MEMBERS, now)
            member = uow.team.add(MemberDraft(name, email, role, status), password_hash, now)
            uow.commit()
        error = self._invite(account_id, member)
        return NewMember(member, error is None, error)

    def update(self, account_id: int, member_id: int, patch: MemberPatch) -> TeamMember:
        """`PUT /team/{id}`. A new password is hashed and replaces the old one."""
        errors = ErrorCollector()
        name = email = role = status = None
        if patch.name is not UNSET:
            name = errors.run(lambda: required_text("name", str(patch.name), max_length=NAME_MAX))
        if patch.email is not UNSET:
            email = errors.run(lambda: required_email("email", str(patch.email)))
        if patch.role is not UNSET:
            role = errors.run(lambda: one_of("role", str(patch.role), ROLES))
        if patch.status is not UNSET:
            status = errors.run(lambda: one_of("status", str(patch.status), MEMBER_STATUSES))
        if patch.password is not UNSET:
            errors.run(lambda: check_password(str(patch.password)))
        errors.raise_if_any()
        password_hash = None if patch.password is UNSET else self._hasher.hash(patch.password)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _member(uow, member_id)
            if email is not None:
                _check_email_free(uow, email, member_id)
            member = attrs.evolve(
                current,
                name=name or current.name,
                email=email or current.email,
                role=role or current.role,
                status=status or current.status,
            )
            if member != current or password_hash is not None:
                member = attrs.evolve(member, updated_at=now)
                uow.team.update(member)
                if password_hash is not None:
                    uow.team.set_password_hash(member_id, password_hash, now)
                uow.commit()
        return member

    def delete(self, account_id: int, member_id: int) -> None:
        """`DELETE /team/{id}`: everything the member worked on stays; what was assigned to them
        is unassigned, in the same transaction."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _member(uow, member_id)
            _unassign(uow, member_id, now)
            uow.team.delete(member_id)
            uow.commit()

    def send_invitation(self, account_id: int, member_id: int) -> None:
        """Send the member's invitation (again); Unavailable when the mail server failed."""
        member = self.get(account_id, member_id)
        try:
            self._mailer.send(invitation(member, self._workspace_name(account_id), self._app_url))
        except MailUndelivered as exc:
            raise Unavailable(f"The invitation could not be sent: {exc.message}") from exc

    # -- signing in ---------------------------------------------------------------------------

    def authenticate(self, account_id: int, email: str, password: str) -> TeamMember:
        """The member signing in with this address and password. A wrong address and a wrong
        password are one error, and take the same time (a decoy hash is checked for an unknown
        address). An inactive member with the right password is Forbidden."""
        return self._verified(account_id, email, password)[0]

    def _verified(self, account_id: int, email: str, password: str) -> tuple[TeamMember, str]:
        """`authenticate`'s member and the password hash the password was checked against."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            member = uow.team.by_email(email)
            stored = None if member is None else uow.team.password_hash(member.id)
        if member is None or stored is None:
            self._hasher.verify(self._decoy_hash(), password)
            raise Unauthenticated(WRONG_CREDENTIALS)
        if not self._hasher.verify(stored, password):
            raise Unauthenticated(WRONG_CREDENTIALS)
        if not member.is_active:
            raise Forbidden("This team member is inactive.", code="member_inactive")
        if self._sign_in_check is not None:
            self._sign_in_check(account_id)
        return member, stored

    def sign_in(self, email: str, password: str) -> list[SignedIn]:
        """Every workspace this address and password open (`engage_core.team.sign_in`), ascending
        account id; more than one when the address is a member of several with that password.
        No workspace: Unauthenticated with one message for a wrong address or password (and the same
        time taken); the right password of inactive members only, or only of suspended workspaces:
        Forbidden."""
        with self._uow.admin(readonly=True) as admin:
            candidates = [
                (account_id, account.name)
                for account_id in admin.team_directory.workspaces_of(email)
                if (account := admin.accounts.get(account_id)) is not None
            ]
        if not candidates:
            self._hasher.verify(self._decoy_hash(), password)
            raise Unauthenticated(WRONG_CREDENTIALS)
        opened: list[SignedIn] = []
        refusal: Forbidden | None = None
        for account_id, workspace in candidates:
            try:
                member, stored = self._verified(account_id, email, password)
            except Unauthenticated:
                continue
            except Forbidden as exc:
                refusal = exc
                continue
            opened.append(SignedIn(account_id, workspace, member, password_stamp(stored)))
        if opened:
            return opened
        raise refusal or Unauthenticated(WRONG_CREDENTIALS)

    def resume(self, account_id: int, member_id: int, stamp: str) -> SignedIn:
        """The member (and workspace) of a session signed in with the password whose
        `password_stamp` is `stamp`, while it still holds: the member active with that password, the
        workspace active and not suspended. Otherwise Unauthenticated (the session has ended)."""
        ended = Unauthenticated("Your session has ended. Sign in again.")
        with self._uow.admin(readonly=True) as admin:
            account = admin.accounts.get(account_id)
        if account is None or not account.is_active:
            raise ended
        with self._uow.workspace(account_id, readonly=True) as uow:
            member = uow.team.get(member_id)
            stored = None if member is None else uow.team.password_hash(member_id)
        if member is None or stored is None or not member.is_active:
            raise ended
        if not hmac.compare_digest(password_stamp(stored), stamp):
            raise ended
        if self._sign_in_check is not None:
            try:
                self._sign_in_check(account_id)
            except Forbidden as exc:
                raise ended from exc
        return SignedIn(account_id, account.name, member, stamp)

    # -- helpers ------------------------------------------------------------------------------

    def _invite(self, account_id: int, member: TeamMember) -> str | None:
        """None once the invitation is handed to the mail server; otherwise why it was not."""
        try:
            self._mailer.send(invitation(member, self._workspace_name(account_id), self._app_url))
        except MailUndelivered as exc:
            log.warning("Invitation to team member %s of account %s not sent: %s", member.id, account_id, exc.message)
            return exc.message
        return None

    def _workspace_name(self, account_id: int) -> str:
        with self._uow.admin(readonly=True) as uow:
            account = uow.accounts.get(account_id)
        if account is None:
            raise NotFound("Account")
        return account.name

    def _decoy_hash(self) -> str:
        with self._decoy_lock:
            if self._decoy is None:
                self._decoy = self._hasher.hash("a password nobody has")
            return self._decoy


def _unassign(uow: WorkspaceUnitOfWork, member_id: int, now: datetime) -> None:
    """Unassign the member from everything that can be assigned: tickets and the conversations they
    took over."""
    unassign_tickets(uow, member_id, now)
    unassign_conversations(uow, member_id, now)


def _member(uow: WorkspaceUnitOfWork, member_id: int) -> TeamMember:
    member = uow.team.get(member_id)
    if member is None:
        raise NotFound("Team member")
    return member


def _check_email_free(uow: WorkspaceUnitOfWork, email: str, member_id: int | None) -> None:
    other = uow.team.by_email(email)
    if other is not None and other.id != member_id:
        raise ValidationFailed.on("email", "The email has already been taken.")
