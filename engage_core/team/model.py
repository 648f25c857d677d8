"""Team members: the people who sign in to a workspace (SPEC 2, 4 Team; SPEC 8 password length).

- E-mail addresses are unique per workspace regardless of case (`email_key`: `Ada@Example.com`
  and `ada@example.com` are one address); the SQL adapter keeps the key in a column under a
  unique index on `(account_id, email_key)`. The address is stored as written.
- `role` is `admin` (settings, team management, every conversation) or `agent` (assigned
  conversations, contacts, bookings); `status` is `active` or `inactive`.
- A password has `PASSWORD_MIN` to `PASSWORD_MAX` characters, spaces included and never trimmed.
  Only its hash is stored, through the `PasswordHasher` port (argon2id in production), and it is
  kept out of `TeamMember`, so no response or event can carry it.
- Adding a member sends an invitation through the `Mailer` port (`invitation`): which workspace,
  which role, the address to sign in with, and the sign-in link under the configured application
  URL. Never the password: whoever added the member tells it to them, or they reset it.
- Deleting a member keeps everything they worked on; whatever was assigned to them is unassigned
  (`TeamService.delete`).
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlencode

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.mail import MailMessage
from engage_core.kernel.pagination import PageLimits
from engage_core.kernel.validation import optional_email

ROLES: tuple[str, ...] = ("admin", "agent")
MEMBER_STATUSES: tuple[str, ...] = ("active", "inactive")
NAME_MAX = 255
PASSWORD_MIN = 8
PASSWORD_MAX = 1024
"""Long enough for any passphrase, short enough that hashing it costs nothing extra."""

TEAM = PageLimits(default=15)
"""`GET /team`: SPEC 8 names no default; 15 and at most 100, like contacts."""

DEFAULT_APP_URL = "http://127.0.0.1:8000"
"""Where `engage serve` listens by default; invitations link under it unless told otherwise."""


@attrs.frozen
class TeamMember:
    id: int
    name: str
    email: str
    role: str
    status: str
    created_at: datetime
    updated_at: datetime

    @property
    def is_active(self) -> bool:
        return self.status == "active"


@attrs.frozen
class MemberDraft:
    name: str
    email: str
    role: str
    status: str = "active"


def email_key(email: str) -> str:
    """The uniqueness key of an address."""
    return email.strip().casefold()


def required_email(field: str, value: str) -> str:
    """A trimmed, well-formed address; ValidationFailed on `field`."""
    cleaned = optional_email(field, value)
    if cleaned is None:
        raise ValidationFailed.on(field, f"The {field} field is required.")
    return cleaned


def check_password(password: str) -> str:
    """The password as given, if its length is allowed; ValidationFailed on `password`."""
    if len(password) < PASSWORD_MIN:
        raise ValidationFailed.on("password", f"The password must be at least {PASSWORD_MIN} characters.")
    if len(password) > PASSWORD_MAX:
        raise ValidationFailed.on("password", f"The password may not be greater than {PASSWORD_MAX} characters.")
    return password


def login_link(app_url: str, email: str) -> str:
    """The sign-in page under `app_url`, with the address filled in."""
    return f"{app_url.rstrip('/')}/login?{urlencode({'email': email})}"


def invitation(member: TeamMember, workspace: str, app_url: str) -> MailMessage:
    """The e-mail that tells a new member they were added to `workspace`."""
    return MailMessage(
        to=member.email,
        subject=f"You have been added to {workspace}",
        text=(
            f"Hello {member.name},\n\n"
            f"You have been added to the {workspace} workspace as an {member.role}.\n\n"
            f"Sign in with this e-mail address ({member.email}) at:\n"
            f"{login_link(app_url, member.email)}\n\n"
            "Your password was set by the person who added you: ask them for it, or reset it "
            "from the sign-in page.\n"
        ),
    )
