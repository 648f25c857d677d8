"""Partners (resellers) and their client workspaces (SPEC 2 Partner, client; SPEC 3 Partner client).

- A partner has a company, an e-mail, a partner plan (`agency`, `enterprise`) that sets its
  default number of client seats (`PARTNER_SEATS`; `client_seats_max` is stored per partner, so an
  operator can give one partner more), and a status. Only an `active` partner's key is accepted.
- A partner key has the layout of a workspace key with its own prefix (`api_keys.PARTNER_PREFIX`,
  `enp_`), so neither can pass for the other, even before any look-up; only its digest is stored.
- A client is a workspace the partner owns (`Client.id` is the workspace's account id). States::

      (none) --create--> pending_setup --admin stored--> active
      active --suspend--> suspended --reactivate--> active
      any --delete--> removed (with every record of the workspace)

  `pending_setup` is the short step between storing the workspace and storing its admin (two
  transactions; a crash in between leaves the client visible in `pending_setup`, counting a seat,
  deletable). Every client counts a seat, whatever its status, until deleted.
- While a client is suspended every API call with its workspace key and every sign-in is refused
  with 403, code `workspace_suspended` (`suspended_refusal`); its data is kept.
- The client's plan is a `plans.ScheduledPlan` anchored at its creation (see `engage_core.plans`
  for the cycle and how a deferred change takes effect).
- The primary user's address is unique across every client of every partner (`email_key`);
  another client with it is a 409.
- Impersonation tokens: 32 random bytes (URL-safe), valid `IMPERSONATION_TTL` (five minutes),
  single use, only their SHA-256 stored, never logged (`Impersonation` has no token field).
- A partner's `key_generation` advances when its key is rotated and when it is suspended. A login
  link and the dashboard session it opens carry the generation that minted them, and are valid
  only while the partner is active on that generation and the client is still the partner's and
  not suspended (`impersonation_refusal`): rotating the key or suspending the partner ends every
  impersonation at once, and activating the partner again does not revive them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import attrs

from engage_core.accounts.model import suspended_refusal
from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import EngageError, Forbidden, Unauthenticated
from engage_core.kernel.mail import MailMessage
from engage_core.kernel.pagination import PageLimits
from engage_core.plans.model import ScheduledPlan
from engage_core.team.model import login_link

PARTNER_SEATS: Mapping[str, int] = {"agency": 25, "enterprise": 250}
"""Partner plans and the client seats each gives by default (SPEC 8: `client_seats.max` per plan)."""
PARTNER_PLANS: tuple[str, ...] = tuple(PARTNER_SEATS)
PARTNER_STATUSES: tuple[str, ...] = ("active", "suspended", "pending")
CLIENT_STATUSES: tuple[str, ...] = ("active", "suspended", "pending_setup")
COMPANY_MAX = 255
NAME_MAX = 100
SLUG_MAX = 60
REASON_MAX = 1000

CLIENTS = PageLimits(default=15, maximum=100)
"""`GET /partner/clients` (SPEC 8)."""
USAGE = PageLimits(default=50, maximum=200)
"""`GET /partner/usage` (SPEC 8)."""

IMPERSONATION_TTL = timedelta(minutes=5)
SESSION_ENDED = "This login link or session is no longer valid. Ask the partner for a new link."


@attrs.frozen
class Branding:
    logo_url: str | None = None
    primary_color: str | None = None
    custom_domain: str | None = None


@attrs.frozen
class Partner:
    id: int
    company_name: str
    slug: str
    email: str
    plan: str
    status: str
    client_seats_max: int
    key_hint: str
    created_at: datetime
    updated_at: datetime
    branding: Branding = Branding()
    key_generation: int = 1
    """Advanced by every key rotation and suspension: what an earlier generation granted is void."""

    @property
    def is_active(self) -> bool:
        return self.status == "active"


@attrs.frozen
class PartnerDraft:
    company_name: str
    slug: str
    email: str
    plan: str
    client_seats_max: int


@attrs.frozen
class PrimaryUser:
    """The client's admin: the team member created with the workspace (`id` None in `pending_setup`)."""

    id: int | None
    first_name: str
    last_name: str
    email: str
    phone: str | None

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"


@attrs.frozen
class Client:
    """A client workspace of a partner. `id` is the workspace's account id."""

    id: int
    partner_id: int
    company_name: str
    slug: str
    status: str
    schedule: ScheduledPlan
    primary_user: PrimaryUser
    timezone: str
    country_id: int | None
    created_at: datetime
    updated_at: datetime
    suspended_at: datetime | None = None
    suspension_reason: str | None = None

    @property
    def is_suspended(self) -> bool:
        return self.status == "suspended"

    def plan_at(self, now: datetime) -> str:
        return self.schedule.plan_at(now)

    def event_payload(self, now: datetime) -> Mapping[str, Any]:
        """`partner.client.*` data: SPEC 6 names client_id, company_name, plan, primary_email for
        `created`; every client event carries them, with the status and when it was suspended."""
        return {
            "client_id": self.id,
            "company_name": self.company_name,
            "plan": self.plan_at(now),
            "primary_email": self.primary_user.email,
            "status": self.status,
            "suspended_at": format_optional(self.suspended_at),
            "occurred_at": format_timestamp(now),
        }


@attrs.frozen
class ClientDraft:
    """A client as first stored (status `pending_setup`, no primary user id yet)."""

    company_name: str
    slug: str
    plan: str
    primary_user: PrimaryUser
    timezone: str
    country_id: int | None


@attrs.frozen
class ClientFilter:
    """`GET /partner/clients` filters. `search` matches company name, primary e-mail or slug,
    case-insensitively, as a substring; `plan` is the plan in force at `now`."""

    status: str | None = None
    plan: str | None = None
    search: str | None = None

    def matches(self, client: Client, now: datetime) -> bool:
        if self.status is not None and client.status != self.status:
            return False
        if self.plan is not None and client.plan_at(now) != self.plan:
            return False
        if self.search:
            needle = self.search.casefold()
            fields = (client.company_name, client.primary_user.email, client.slug)
            return any(needle in value.casefold() for value in fields)
        return True


@attrs.frozen
class Impersonation:
    """What a redeemed impersonation token grants: the partner's view of one client workspace, for
    as long as the partner's `key_generation` is still the one that minted it."""

    partner_id: int
    account_id: int
    key_generation: int


def impersonation_refusal(grant: Impersonation, partner: Partner | None, client: Client | None) -> EngageError | None:
    """Why a login link or dashboard session of `grant` no longer opens its workspace, or None while
    it does. `partner` and `client` are as stored now (the client looked up under the partner)."""
    if partner is None or client is None:
        return Unauthenticated(SESSION_ENDED)
    if not partner.is_active:
        return partner_refusal()
    if partner.key_generation != grant.key_generation:
        return Unauthenticated(SESSION_ENDED)
    if client.is_suspended:
        return suspended_refusal()
    return None


def email_key(email: str) -> str:
    """The uniqueness key of a primary user's address."""
    return email.strip().casefold()


def slugify(text: str) -> str:
    """`Acme Café & Co` -> `acme-cafe-co`; never empty (`workspace`), at most `SLUG_MAX - 8` long,
    leaving room for a `-<n>` suffix that makes it unique."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[: SLUG_MAX - 8].strip("-")
    return slug or "workspace"


def partner_refusal() -> Forbidden:
    """The 403 of a valid key of a partner that is not active (SPEC 7)."""
    return Forbidden("This partner account is suspended.", code="partner_suspended")


def impersonation_expiry(now: datetime) -> datetime:
    return now + IMPERSONATION_TTL


def client_invitation(user: PrimaryUser, workspace: str, partner: str, app_url: str) -> MailMessage:
    """The e-mail that tells a client's admin their workspace is ready. No password is set for
    them: they choose one from the sign-in page."""
    return MailMessage(
        to=user.email,
        subject=f"Your {workspace} workspace is ready",
        text=(
            f"Hello {user.first_name},\n\n"
            f"{partner} has set up the {workspace} workspace for you, with you as its admin.\n\n"
            f"Sign in with this e-mail address ({user.email}) at:\n"
            f"{login_link(app_url, user.email)}\n\n"
            "Choose your password with the reset link on the sign-in page.\n"
        ),
    )


def dashboard_url(app_url: str, slug: str) -> str:
    return f"{app_url.rstrip('/')}/dashboard/{slug}"


def impersonation_url(app_url: str, token: str) -> str:
    """The single-use login link. The token is in the path: the HTTP layer must keep that path
    out of access logs (it is a credential for five minutes)."""
    return f"{app_url.rstrip('/')}/impersonate/{token}"
