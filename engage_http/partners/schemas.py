"""Request and response bodies of the partner API (SPEC 2 Partner, client, plan; SPEC 4 Partner API).

Fields beyond those SPEC lists are additions, marked in their descriptions: `timezone`,
`country_id`, `pending_plan` and `pending_plan_from` on a client (the plan-change cycle), and
`invitation_sent` on a created client.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.kernel.unset import UNSET, Unset
from engage_core.partners import model as domain
from engage_core.partners.client_service import (
    AdminInput,
    ClientInput,
    ClientPatch,
    ClientUsage,
    ImpersonationLink,
    NewClient,
    UsageLine,
    UsageSummary,
)
from engage_core.plans import model as plan_domain
from engage_core.plans.usage import WorkspaceUsage
from engage_http.bookings.setup_schemas import Timezone
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import CountryId, Email, LongText, Phone

PlanSlug = Literal["starter", "pro", "business"]
ClientStatus = Literal["active", "suspended", "pending_setup"]
CompanyName = Annotated[
    str, Text(max_length=domain.COMPANY_MAX, blank=False), Doc(example="Acme Dental", description="The company.")
]
PersonName = Annotated[str, Text(max_length=domain.NAME_MAX, blank=False), Doc(example="Ada")]
Period = Annotated[
    str,
    Text(pattern="^(current|[0-9]{4}-(0[1-9]|1[0-2]))$", message="The {field} must be current or a month as YYYY-MM."),
    Doc(description="`current` (the calendar month now, UTC) or a month as `YYYY-MM`.", example="2026-03"),
]


# -- the partner --------------------------------------------------------------------------------------


@attrs.frozen
class ClientSeats:
    used: int = attrs.field(metadata={"description": "Clients of the partner, whatever their status."})
    max: int


@attrs.frozen
class Branding:
    logo_url: str | None
    primary_color: str | None
    custom_domain: str | None


@attrs.frozen
class PartnerProfile:
    """The partner whose key made the request, with its branding."""

    id: int
    company_name: str
    slug: str
    email: str
    plan: Literal["agency", "enterprise"]
    status: Literal["active", "suspended", "pending"]
    client_seats: ClientSeats
    created_at: datetime
    branding: Branding

    # By hand: the seats used are counted apart from the partner; the wire nests them with its maximum.
    @classmethod
    def from_domain(cls, partner: domain.Partner, seats_used: int) -> PartnerProfile:
        return cls(
            id=partner.id,
            company_name=partner.company_name,
            slug=partner.slug,
            email=partner.email,
            plan=partner.plan,  # type: ignore[arg-type]
            status=partner.status,  # type: ignore[arg-type]
            client_seats=ClientSeats(used=seats_used, max=partner.client_seats_max),
            created_at=partner.created_at,
            branding=Branding(
                logo_url=partner.branding.logo_url,
                primary_color=partner.branding.primary_color,
                custom_domain=partner.branding.custom_domain,
            ),
        )


# -- plans ----------------------------------------------------------------------------------------------


@attrs.frozen
class PlanLimits:
    contacts: int
    messages_per_month: int
    team_members: int
    channels: int
    media_files: int = attrs.field(metadata={"description": "Addition: files in the media library (SPEC 8)."})


@attrs.frozen
class PlanFeatures:
    webhooks: bool
    api_access: bool
    booking: bool
    ai_agents: bool
    campaigns: bool
    linkedin_access: bool = attrs.field(metadata={"description": "Addition: LinkedIn routes (SPEC 5 item 7)."})
    voice_cloning_enabled: bool = attrs.field(metadata={"description": "Addition: voice cloning."})


@attrs.frozen
class Plan:
    """A plan a client workspace runs on: its limits and features."""

    id: int
    name: str
    slug: PlanSlug
    limits: PlanLimits
    features: PlanFeatures

    # By hand: the core keeps limits and features as lookups by name, the wire as objects of fields.
    @classmethod
    def from_domain(cls, plan: plan_domain.Plan) -> Plan:
        return cls(
            id=plan.id,
            name=plan.name,
            slug=plan.slug,  # type: ignore[arg-type]
            limits=PlanLimits(**{name: plan.limit(name) for name in attrs.fields_dict(PlanLimits)}),
            features=PlanFeatures(**{name: plan.has(name) for name in attrs.fields_dict(PlanFeatures)}),
        )


# -- clients --------------------------------------------------------------------------------------------


@attrs.frozen
class PrimaryUser:
    id: int | None = attrs.field(metadata={"description": "The admin team member (null in `pending_setup`)."})
    first_name: str
    last_name: str
    email: str
    phone: str | None


@attrs.frozen
class ClientUsageCounts:
    contacts: int
    messages_this_month: int
    team_members: int

    # By hand: the wire names the usage counts its own way (`contacts` is `contacts_total`).
    @classmethod
    def from_domain(cls, usage: WorkspaceUsage) -> ClientUsageCounts:
        return cls(
            contacts=usage.contacts_total, messages_this_month=usage.messages_sent, team_members=usage.team_members
        )


def _primary_user(user: domain.PrimaryUser) -> PrimaryUser:
    return PrimaryUser(
        id=user.id, first_name=user.first_name, last_name=user.last_name, email=user.email, phone=user.phone
    )


@attrs.frozen
class ClientSummary:
    """A client workspace in `GET /partner/clients`."""

    id: int
    partner_id: int
    company_name: str
    slug: str
    plan: PlanSlug = attrs.field(metadata={"description": "The plan in force now."})
    status: ClientStatus
    primary_user: PrimaryUser
    usage: ClientUsageCounts
    created_at: datetime
    suspended_at: datetime | None

    # By hand: the usage is read apart from the client, and the plan in force depends on `now`.
    @classmethod
    def from_domain(cls, client: domain.Client, usage: WorkspaceUsage, now: datetime) -> ClientSummary:
        return cls(
            id=client.id,
            partner_id=client.partner_id,
            company_name=client.company_name,
            slug=client.slug,
            plan=client.plan_at(now),  # type: ignore[arg-type]
            status=client.status,  # type: ignore[arg-type]
            primary_user=_primary_user(client.primary_user),
            usage=ClientUsageCounts.from_domain(usage),
            created_at=client.created_at,
            suspended_at=client.suspended_at,
        )


@attrs.frozen
class ClientDetail(ClientSummary):
    """One client workspace (`GET /partner/clients/{id}`, and the answer of a change)."""

    branding_inherited: bool = attrs.field(metadata={"description": "Always true: clients show the partner's."})
    pending_plan: PlanSlug | None = attrs.field(
        metadata={"description": "Addition: the plan a non-immediate change moves to at `pending_plan_from`."}
    )
    pending_plan_from: datetime | None = attrs.field(
        metadata={"description": "Addition: the billing-cycle boundary at which `pending_plan` takes effect."}
    )
    timezone: str = attrs.field(metadata={"description": "Addition: the workspace's IANA timezone."})
    country_id: int | None = attrs.field(metadata={"description": "Addition."})

    # By hand: a `ClientSummary` (see there) with the plan schedule settled at `now`.
    @classmethod
    def from_domain(cls, client: domain.Client, usage: WorkspaceUsage, now: datetime) -> ClientDetail:
        summary = ClientSummary.from_domain(client, usage, now)
        schedule = client.schedule.settled(now)
        return cls(
            **attrs.asdict(summary, recurse=False),
            branding_inherited=True,
            pending_plan=schedule.pending_plan,  # type: ignore[arg-type]
            pending_plan_from=schedule.pending_from,
            timezone=client.timezone,
            country_id=client.country_id,
        )


@structures_into(AdminInput)
@attrs.frozen
class AdminCreate:
    """The client's admin: a team member with role admin, invited by e-mail unless `skip_invite`."""

    first_name: PersonName
    last_name: PersonName
    email: Email = attrs.field(metadata={"description": "Unique across every client: one already in use is 409."})
    phone: Phone | None = None


@structures_into(ClientInput)
@attrs.frozen
class ClientCreate:
    """A new client workspace, with its admin."""

    company_name: CompanyName
    plan: PlanSlug
    admin: AdminCreate
    timezone: Timezone = "UTC"
    country_id: CountryId | None = None
    skip_invite: bool = attrs.field(default=False, metadata={"description": "Do not e-mail the admin."})


@attrs.frozen
class CreatedUser:
    id: int | None
    email: str


@attrs.frozen
class CreatedClient:
    """The answer to `POST /partner/clients`."""

    id: int
    company_name: str
    slug: str
    plan: PlanSlug
    status: ClientStatus
    primary_user: CreatedUser
    dashboard_url: str
    created_at: datetime
    invitation_sent: bool = attrs.field(metadata={"description": "Addition: whether the admin was e-mailed."})
    invitation_error: str | None = attrs.field(
        default=None,
        metadata={"description": "Addition: why the admin was not e-mailed (no mail server, a refusal); else null."},
    )

    # By hand: the wire lays the client's fields beside the dashboard, and the plan depends on `now`.
    @classmethod
    def from_domain(cls, created: NewClient, now: datetime) -> CreatedClient:
        client = created.client
        return cls(
            id=client.id,
            company_name=client.company_name,
            slug=client.slug,
            plan=client.plan_at(now),  # type: ignore[arg-type]
            status=client.status,  # type: ignore[arg-type]
            primary_user=CreatedUser(id=client.primary_user.id, email=client.primary_user.email),
            dashboard_url=created.dashboard_url,
            created_at=client.created_at,
            invitation_sent=created.invitation_sent,
            invitation_error=created.invitation_error,
        )


@structures_into(ClientPatch)
@attrs.frozen
class ClientUpdate:
    """Any subset of the fields. A `plan` change applies at the next billing-cycle boundary unless
    `immediate` (the cycle is monthly from the client's creation)."""

    company_name: CompanyName | Unset = UNSET
    plan: PlanSlug | Unset = UNSET
    timezone: Timezone | Unset = UNSET
    immediate: bool = False


@structures_into(domain.ClientFilter)
@attrs.frozen
class ClientFilters:
    """Query filters of `GET /partner/clients`."""

    status: ClientStatus | None = None
    plan: PlanSlug | None = attrs.field(default=None, metadata={"description": "The plan in force now."})
    search: Annotated[str, Text(max_length=255)] | None = attrs.field(
        default=None, metadata={"description": "A part of the company name, the admin's e-mail or the slug."}
    )


@attrs.frozen
class SuspendRequest:
    reason: LongText | None = attrs.field(default=None, metadata={"description": "An internal note."})


@renders(domain.Client)
@attrs.frozen
class ClientStatusChange:
    """The answer to suspend and reactivate."""

    id: int
    status: ClientStatus
    suspended_at: datetime | None


@renders(ImpersonationLink)
@attrs.frozen
class Impersonation:
    login_url: str = attrs.field(
        metadata={"description": "Opens the client's dashboard; works once, until `expires_at` (five minutes)."}
    )
    expires_at: datetime


# -- usage -----------------------------------------------------------------------------------------------


@attrs.frozen
class PeriodQuery:
    period: Period | None = attrs.field(default=None, metadata={"description": "`current` when left out."})


@attrs.frozen
class ContactUsage:
    total: int
    created_this_period: int
    blacklisted: int


@attrs.frozen
class MessageUsage:
    sent: int
    received: int
    failed: int


@attrs.frozen
class CampaignUsage:
    total: int
    sent: int
    paused: int


@attrs.frozen
class BookingUsage:
    total: int
    completed: int
    cancelled: int


@attrs.frozen
class ClientUsageReport:
    """What a client used in a period, counted from its records."""

    client_id: int
    period: str
    contacts: ContactUsage
    messages: MessageUsage
    campaigns: CampaignUsage
    bookings: BookingUsage
    ai_agent_sessions: int
    team_members: int
    channels_connected: tuple[str, ...]

    # By hand: the wire groups the usage counts by kind, under names of its own.
    @classmethod
    def from_domain(cls, report: ClientUsage) -> ClientUsageReport:
        u = report.usage
        return cls(
            client_id=report.client_id,
            period=report.period,
            contacts=ContactUsage(u.contacts_total, u.contacts_created, u.contacts_blacklisted),
            messages=MessageUsage(u.messages_sent, u.messages_received, u.messages_failed),
            campaigns=CampaignUsage(u.campaigns_total, u.campaigns_sent, u.campaigns_paused),
            bookings=BookingUsage(u.bookings_total, u.bookings_completed, u.bookings_cancelled),
            ai_agent_sessions=u.ai_agent_sessions,
            team_members=u.team_members,
            channels_connected=u.channels_connected,
        )


@attrs.frozen
class UsageTotals:
    total_clients: int
    active_clients: int
    total_messages_sent: int
    total_contacts: int
    total_ai_sessions: int


@attrs.frozen
class ClientUsageLine:
    client_id: int
    company_name: str
    plan: PlanSlug
    messages_sent: int
    contacts: int
    ai_agent_sessions: int

    # By hand: it is only rendered inside `PartnerUsage`, which is built by hand.
    @classmethod
    def from_domain(cls, line: UsageLine) -> ClientUsageLine:
        return cls(
            client_id=line.client_id,
            company_name=line.company_name,
            plan=line.plan,  # type: ignore[arg-type]
            messages_sent=line.messages_sent,
            contacts=line.contacts,
            ai_agent_sessions=line.ai_agent_sessions,
        )


@attrs.frozen
class PartnerUsage:
    """Totals over every client, and one page of clients (`meta` describes that page)."""

    period: str
    summary: UsageTotals
    clients: tuple[ClientUsageLine, ...]

    # By hand: the wire nests the totals, and lists the lines of the summary's page.
    @classmethod
    def from_domain(cls, summary: UsageSummary) -> PartnerUsage:
        return cls(
            period=summary.period,
            summary=UsageTotals(
                total_clients=summary.total_clients,
                active_clients=summary.active_clients,
                total_messages_sent=summary.total_messages_sent,
                total_contacts=summary.total_contacts,
                total_ai_sessions=summary.total_ai_sessions,
            ),
            clients=tuple(ClientUsageLine.from_domain(line) for line in summary.clients.items),
        )
