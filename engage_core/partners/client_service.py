"""Partner clients: provision, list, read, change, suspend, reactivate, delete, usage, impersonate.

The rules are in `engage_core.partners` and `engage_core.plans`. Creating a client takes three
short transactions, so that no password hash or e-mail is ever made while a write lock is held:

1. partner unit of work: lock the partner's seats, check seats (403) and the admin's address
   (409), store the workspace account and the client in `pending_setup`;
2. workspace unit of work: store the admin team member (its password is random and never shown:
   the admin chooses one through the reset link);
3. partner unit of work: record the admin on the client, make it `active`, emit
   `partner.client.created`.

Then the invitation is sent, unless `skip_invite`. A crash between 1 and 3 leaves the client in
`pending_setup` (visible, counting its seat, deletable), never a workspace nobody owns.

Every partner event goes through the partner unit of work's outbox, in the transaction of its
change. Every lookup names the partner: another partner's client is 404.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import attrs

from engage_core.accounts import keys as api_keys
from engage_core.accounts.model import suspended_refusal
from engage_core.bookings.working_hours import parse_timezone
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Conflict, Forbidden, NotFound, Unauthenticated, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.mail import Mailer, MailUndelivered
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.kernel.phones import to_e164
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, one_of, optional_text, required_text
from engage_core.partners.model import (
    CLIENT_STATUSES,
    COMPANY_MAX,
    NAME_MAX,
    REASON_MAX,
    Client,
    ClientDraft,
    ClientFilter,
    Impersonation,
    Partner,
    PrimaryUser,
    client_invitation,
    dashboard_url,
    impersonation_expiry,
    impersonation_refusal,
    impersonation_url,
    slugify,
)
from engage_core.plans.model import PLAN_SLUGS, format_period, month_of, parse_period
from engage_core.plans.plan_service import check_plan_slug
from engage_core.plans.usage import UsageCounts, WorkspaceUsage
from engage_core.team.model import MemberDraft, required_email
from engage_core.team.ports import PasswordHasher
from engage_core.unit_of_work import PartnerUnitOfWork, UnitOfWorkFactory

log = logging.getLogger("engage.partners")

SEATS_EXHAUSTED = "client_seats_exhausted"
CHANNEL_EVENTS = {
    "channel.connected": "partner.client.channel.connected",
    "channel.disconnected": "partner.client.channel.disconnected",
}
"""Workspace channel events a client's partner hears about, and the partner event for each."""


@attrs.frozen
class AdminInput:
    """The client workspace's first team member (its admin), invited when the client is created."""

    first_name: str
    last_name: str
    email: str
    phone: str | None = None


@attrs.frozen
class ClientInput:
    """Fields of `POST /partner/clients`."""

    company_name: str
    plan: str
    admin: AdminInput
    timezone: str = "UTC"
    country_id: int | None = None
    skip_invite: bool = False


@attrs.frozen
class ClientPatch:
    """Fields of `PATCH /partner/clients/{id}`: any subset. A plan change applies at the next
    billing-cycle boundary unless `immediate`."""

    company_name: str | Unset = UNSET
    plan: str | Unset = UNSET
    timezone: str | Unset = UNSET
    immediate: bool = False


@attrs.frozen
class NewClient:
    """The answer to a create: the client, its dashboard, and whether the invitation went (when it did
    not, `invitation_error` says why; None as well when the invitation was skipped on request)."""

    client: Client
    dashboard_url: str
    invitation_sent: bool
    invitation_error: str | None = None


@attrs.frozen
class ClientUsage:
    """What a client workspace used in `period` (`GET /partner/clients/{id}/usage`)."""

    client_id: int
    period: str
    usage: WorkspaceUsage


@attrs.frozen
class UsageLine:
    """One client in `GET /partner/usage`."""

    client_id: int
    company_name: str
    plan: str
    messages_sent: int
    contacts: int
    ai_agent_sessions: int


@attrs.frozen
class UsageSummary:
    """`GET /partner/usage`: totals over every client of the partner, and one page of lines."""

    period: str
    total_clients: int
    active_clients: int
    total_messages_sent: int
    total_contacts: int
    total_ai_sessions: int
    clients: Page[UsageLine]


@attrs.frozen
class ImpersonationLink:
    """The single-use login link; `login_url` carries the token and is shown once."""

    login_url: str = attrs.field(repr=False)
    expires_at: datetime


class ObjectOwner(Protocol):
    """An area keeping a workspace's objects outside the database (voice audio in the blob store)."""

    def stored_objects(self, account_id: int) -> Sequence[str]:
        """The keys of every object the workspace's rows refer to."""

    def remove_objects(self, keys: Sequence[str]) -> None:
        """Remove these objects (their rows are gone); best effort."""


class PartnerClientService:
    """A partner's client workspaces: provisioning, plan changes, suspension, deletion, usage and
    impersonation. Lifecycle changes emit partner events (`partner.client.created`, `.updated`,
    `.suspended`, `.reactivated`, `.deleted`) to the partner's webhooks.

    Methods that name a client raise :class:`.NotFound` when it is not the partner's."""

    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, hasher: PasswordHasher, mailer: Mailer, app_url: str
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._hasher = hasher
        self._mailer = mailer
        self._app_url = app_url
        self.object_owners: list[ObjectOwner] = []
        """Areas that keep objects outside the database (in the blob store) for a workspace: their
        objects are removed once its deletion is committed (registered by their wiring)."""

    # -- reading ------------------------------------------------------------------------------------

    def find(self, partner_id: int, filters: ClientFilter, page: PageRequest) -> Page[Client]:
        """`GET /partner/clients`, newest first."""
        if filters.status is not None:
            one_of("status", filters.status, CLIENT_STATUSES)
        if filters.plan is not None:
            one_of("plan", filters.plan, PLAN_SLUGS)
        with self._uow.partners(readonly=True) as uow:
            return uow.clients.find(partner_id, filters, page, self._clock.now())

    def get(self, partner_id: int, client_id: int) -> Client:
        """The client `client_id` of the partner.

        Raises :class:`.NotFound` when it is not the partner's."""
        with self._uow.partners(readonly=True) as uow:
            return _client(uow, partner_id, client_id)

    def seats_used(self, partner_id: int) -> int:
        """`client_seats.used` of the partner profile."""
        with self._uow.partners(readonly=True) as uow:
            return uow.clients.count(partner_id)

    def dashboard_url(self, client: Client) -> str:
        """The address of the client's dashboard under the service's `app_url`."""
        return dashboard_url(self._app_url, client.slug)

    def now(self) -> datetime:
        """The service's clock reading: the instant at which callers show the plan in force."""
        return self._clock.now()

    # -- provisioning -------------------------------------------------------------------------------

    def create(self, partner_id: int, data: ClientInput) -> NewClient:
        """`POST /partner/clients`: 403 (`client_seats_exhausted`) at the partner's seat limit,
        409 when a client's admin already has the address."""
        draft = _validated(data)
        now = self._clock.now()
        with self._uow.partners() as uow:
            partner = _partner(uow, partner_id)
            uow.clients.lock_partner(partner_id)
            if uow.clients.count(partner_id) >= partner.client_seats_max:
                raise Forbidden(
                    f"All {partner.client_seats_max} client seats of your plan are in use.", code=SEATS_EXHAUSTED
                )
            key = api_keys.generate_key()  # the workspace's key; its admin regenerates it to see one
            account = uow.accounts.add(draft.company_name, key.digest, key.hint, now)
            client = None
            while client is None:  # None: another partner's client took the slug or the address meanwhile
                if uow.clients.email_in_use(draft.primary_user.email):
                    raise Conflict("The admin e-mail address is already in use.")
                free = attrs.evolve(draft, slug=_free_slug(uow, draft.slug))
                client = uow.clients.add(partner_id, account.id, free, now)
            uow.commit()
        password_hash = self._hasher.hash(secrets.token_urlsafe(32))
        user = draft.primary_user
        with self._uow.workspace(client.id) as workspace:
            member = workspace.team.add(MemberDraft(user.name, user.email, "admin"), password_hash, self._clock.now())
            workspace.commit()
        with self._uow.partners() as uow:
            client = attrs.evolve(
                _client(uow, partner_id, client.id),
                status="active",
                primary_user=attrs.evolve(user, id=member.id),
                updated_at=self._clock.now(),
            )
            uow.clients.update(client)
            self._emit(uow, client, "partner.client.created")
            uow.commit()
        error = None if data.skip_invite else self._invite(client, partner)
        sent = not data.skip_invite and error is None
        return NewClient(client, self.dashboard_url(client), sent, error)

    def update(self, partner_id: int, client_id: int, patch: ClientPatch) -> Client:
        """`PATCH /partner/clients/{id}`. Emits `partner.client.updated` when anything changed."""
        errors = ErrorCollector()
        company = None
        if patch.company_name is not UNSET:
            company = errors.run(lambda: required_text("company_name", str(patch.company_name), max_length=COMPANY_MAX))
        plan = None if patch.plan is UNSET else errors.run(lambda: check_plan_slug("plan", str(patch.plan)))
        timezone = None
        if patch.timezone is not UNSET:
            timezone = errors.run(lambda: parse_timezone("timezone", str(patch.timezone)))
        errors.raise_if_any()
        now = self._clock.now()
        with self._uow.partners() as uow:
            current = _client(uow, partner_id, client_id)
            schedule = current.schedule.settled(now)
            if plan is not None:
                schedule = schedule.change(plan, patch.immediate, now)
            client = attrs.evolve(
                current,
                company_name=company or current.company_name,
                timezone=timezone or current.timezone,
                schedule=schedule,
            )
            if client != current:
                client = attrs.evolve(client, updated_at=now)
                uow.clients.update(client)
                self._emit(uow, client, "partner.client.updated")
                uow.commit()
        return client

    def suspend(self, partner_id: int, client_id: int, reason: str | None = None) -> Client:
        """`POST .../suspend`: active -> suspended (409 from any other state). Data is kept."""
        note = optional_text("reason", reason, max_length=REASON_MAX)
        now = self._clock.now()
        with self._uow.partners() as uow:
            current = _client(uow, partner_id, client_id)
            if current.status != "active":
                raise Conflict(f"Only an active client can be suspended; this one is {current.status}.")
            client = attrs.evolve(current, status="suspended", suspended_at=now, suspension_reason=note, updated_at=now)
            uow.clients.update(client)
            self._emit(uow, client, "partner.client.suspended")
            uow.commit()
        return client

    def reactivate(self, partner_id: int, client_id: int) -> Client:
        """`POST .../reactivate`: suspended -> active (409 from any other state)."""
        now = self._clock.now()
        with self._uow.partners() as uow:
            current = _client(uow, partner_id, client_id)
            if current.status != "suspended":
                raise Conflict(f"Only a suspended client can be reactivated; this one is {current.status}.")
            client = attrs.evolve(current, status="active", suspended_at=None, suspension_reason=None, updated_at=now)
            uow.clients.update(client)
            self._emit(uow, client, "partner.client.reactivated")
            uow.commit()
        return client

    def delete(self, partner_id: int, client_id: int) -> None:
        """`DELETE /partner/clients/{id}`: the workspace and all its records, permanently, then the
        objects its areas kept outside the database (best effort: a failure is logged)."""
        self.get(partner_id, client_id)  # 404 before another partner's workspace is read
        owned = [(owner, owner.stored_objects(client_id)) for owner in self.object_owners]
        with self._uow.partners() as uow:
            client = _client(uow, partner_id, client_id)
            uow.clients.delete(partner_id, client_id)
            self._emit(uow, client, "partner.client.deleted")
            uow.commit()
        for owner, keys in owned:
            owner.remove_objects(keys)

    # -- usage --------------------------------------------------------------------------------------

    def usage(self, partner_id: int, client_id: int, period: str | None = None) -> ClientUsage:
        """`GET /partner/clients/{id}/usage` for `current` (the default) or a `YYYY-MM` month."""
        start, end = self._period(period)
        self.get(partner_id, client_id)
        with self._uow.workspace(client_id, readonly=True) as workspace:
            report = workspace.usage.report(start, end)
        return ClientUsage(client_id, format_period(start), report)

    def usage_summary(self, partner_id: int, period: str | None, page: PageRequest) -> UsageSummary:
        """`GET /partner/usage`: totals over every client, lines for one page (ascending id). One
        read of the clients and one of their counts, however many clients the partner has."""
        start, end = self._period(period)
        now = self._clock.now()
        with self._uow.partners(readonly=True) as uow:
            clients = uow.clients.list(partner_id)
            counts = uow.clients.usage(partner_id, start, end)
        lines: list[UsageLine] = []
        active = 0
        for client in clients:
            used = counts.get(client.id, UsageCounts())  # a client added between the two reads used nothing
            active += client.status == "active"
            lines.append(
                UsageLine(
                    client.id,
                    client.company_name,
                    client.plan_at(now),
                    used.messages_sent,
                    used.contacts_total,
                    used.ai_agent_sessions,
                )
            )
        return UsageSummary(
            period=format_period(start),
            total_clients=len(clients),
            active_clients=active,
            total_messages_sent=sum(line.messages_sent for line in lines),
            total_contacts=sum(line.contacts for line in lines),
            total_ai_sessions=sum(line.ai_agent_sessions for line in lines),
            clients=paginate(lines, page),
        )

    def _period(self, period: str | None) -> tuple[datetime, datetime]:
        if period is None or period == "current":
            return month_of(self._clock.now())
        try:
            return parse_period(period)
        except ValueError as exc:
            raise ValidationFailed.on("period", "The period must be current or a month as YYYY-MM.") from exc

    # -- impersonation and access -------------------------------------------------------------------

    def impersonate(self, partner_id: int, client_id: int) -> ImpersonationLink:
        """`POST .../impersonate`: a login link for the client's dashboard, single use, valid five
        minutes, minted under the partner's current key generation. Only the token's digest is
        stored; the token itself is in the returned link only."""
        now = self._clock.now()
        token = secrets.token_urlsafe(32)
        expires_at = impersonation_expiry(now)
        with self._uow.partners() as uow:
            partner = _partner(uow, partner_id)
            grant = Impersonation(partner_id, client_id, partner.key_generation)
            refusal = impersonation_refusal(grant, partner, _client(uow, partner_id, client_id))
            if refusal is not None:
                raise refusal
            uow.impersonations.add(_digest(token), grant, expires_at, now)
            uow.commit()
        return ImpersonationLink(impersonation_url(self._app_url, token), expires_at)

    def redeem(self, token: str) -> Impersonation:
        """Exchange a login link's token for the grant it carries (the route then sets a session
        holding it). A used, expired or unknown token is Unauthenticated; so is one minted under
        an earlier key generation; a partner or client suspended since is Forbidden
        (`impersonation_refusal`). The token is used up either way."""
        now = self._clock.now()
        with self._uow.partners() as uow:
            grant = uow.impersonations.redeem(_digest(token), now)
            uow.commit()
        if grant is None:
            raise Unauthenticated("This login link is invalid, used or expired.")
        self.admit(grant)
        return grant

    def admit(self, grant: Impersonation) -> Client:
        """The client a dashboard session of `grant` shows, checked on every page view: refused
        unless the partner is active on the key generation that minted the grant and the client is
        still the partner's and not suspended (`impersonation_refusal`)."""
        with self._uow.partners(readonly=True) as uow:
            partner = uow.partners.get(grant.partner_id)
            client = uow.clients.get(grant.partner_id, grant.account_id)
        refusal = impersonation_refusal(grant, partner, client)
        if refusal is not None:
            raise refusal
        assert client is not None
        return client

    def ensure_not_suspended(self, account_id: int) -> None:
        """Raise the 403 of a suspended workspace (code `workspace_suspended`). Sign-ins call it after
        the password is accepted (API requests read the suspension with their key: `AccountService.admit`)."""
        with self._uow.partners(readonly=True) as uow:
            client = uow.clients.of_account(account_id)
        if client is not None and client.is_suspended:
            raise suspended_refusal()

    def relay_channel_event(self, account_id: int, event: DomainEvent) -> None:
        """Tell a client's partner that its channel connected or went offline
        (`partner.client.channel.*`, with the channel event's data and the client's id). Nothing
        for other events or for a workspace without a partner."""
        name = CHANNEL_EVENTS.get(event.name)
        if name is None:
            return
        with self._uow.partners() as uow:
            client = uow.clients.of_account(account_id)
            if client is None:
                return
            payload = {"client_id": client.id, "company_name": client.company_name, **event.payload}
            uow.emit(client.partner_id, DomainEvent(name, payload, event.occurred_at))
            uow.commit()

    # -- helpers ------------------------------------------------------------------------------------

    def _emit(self, uow: PartnerUnitOfWork, client: Client, name: str) -> None:
        now = self._clock.now()
        uow.emit(client.partner_id, DomainEvent(name, client.event_payload(now), now))

    def _invite(self, client: Client, partner: Partner) -> str | None:
        """None once the invitation is handed to the mail server; otherwise why it was not."""
        message = client_invitation(client.primary_user, client.company_name, partner.company_name, self._app_url)
        try:
            self._mailer.send(message)
        except MailUndelivered as exc:
            log.warning("Invitation of client %s not sent: %s", client.id, exc.message)
            return exc.message
        return None


def _validated(data: ClientInput) -> ClientDraft:
    errors = ErrorCollector()
    company = errors.run(lambda: required_text("company_name", data.company_name, max_length=COMPANY_MAX))
    plan = errors.run(lambda: check_plan_slug("plan", data.plan))
    first = errors.run(lambda: required_text("admin.first_name", data.admin.first_name, max_length=NAME_MAX))
    last = errors.run(lambda: required_text("admin.last_name", data.admin.last_name, max_length=NAME_MAX))
    email = errors.run(lambda: required_email("admin.email", data.admin.email))
    phone = None
    if data.admin.phone is not None and data.admin.phone.strip():
        try:
            phone = to_e164(data.admin.phone)
        except ValueError as exc:
            errors.errors["admin.phone"] = [str(exc)]
    timezone = errors.run(lambda: parse_timezone("timezone", data.timezone))
    if data.country_id is not None and (isinstance(data.country_id, bool) or data.country_id < 1):
        errors.errors["country_id"] = ["The country id must be a positive integer."]
    errors.raise_if_any()
    assert company is not None and plan is not None and first is not None and last is not None
    assert email is not None and timezone is not None
    user = PrimaryUser(None, first, last, email, phone)
    return ClientDraft(company, slugify(company), plan, user, timezone, data.country_id)


def _free_slug(uow: PartnerUnitOfWork, base: str) -> str:
    slug, n = base, 1
    while uow.clients.slug_taken(slug):
        n += 1
        slug = f"{base}-{n}"
    return slug


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _partner(uow: PartnerUnitOfWork, partner_id: int) -> Partner:
    partner = uow.partners.get(partner_id)
    if partner is None:
        raise NotFound("Partner")
    return partner


def _client(uow: PartnerUnitOfWork, partner_id: int, client_id: int) -> Client:
    client = uow.clients.get(partner_id, client_id)
    if client is None:
        raise NotFound("Client")
    return client
