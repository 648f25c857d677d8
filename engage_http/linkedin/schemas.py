"""Request and response bodies of the LinkedIn endpoints (SPEC 4 LinkedIn; the overview and launch
bodies are "not shown" there: these are ours, documented in docs/linkedin.md)."""

from __future__ import annotations

from typing import Annotated, Literal

import attrs

from engage_core.campaigns import model as campaigns
from engage_core.linkedin import model as domain
from engage_core.linkedin.service import Launched, LaunchInput, Overview
from engage_core.messaging.people import PeopleQuery, Profile
from engage_http.campaigns.schemas import Campaign
from engage_http.constraints import Doc, Integer, Items, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Name

Criterion = Annotated[str, Text(max_length=255)]
ProviderId = Annotated[str, Text(max_length=255, blank=False), Doc(example="sbx-li-00001")]
Note = Annotated[
    str,
    Text(max_length=domain.INVITE_NOTE_MAX),
    Doc(description="The invitation's note (invite campaigns only).", example="Hi, I'd be glad to connect."),
]
StepText = Annotated[
    str,
    Text(max_length=campaigns.MESSAGE_MAX, blank=False),
    Doc(
        description="The message, with contact placeholders (`{{name}}`, `{{first_name|there}}`, ...).",
        example="Hi {{first_name|there}}, thanks for connecting.",
    ),
]
WaitDays = Annotated[
    int,
    Integer(minimum=0, maximum=domain.WAIT_DAYS_MAX),
    Doc(description="Days to wait after the previous step went (for the first: after the launch).", example=3),
]


@structures_into(PeopleQuery)
@attrs.frozen
class SearchRequest:
    """A people search: at least one of `keywords`, `title`, `industry`, `location` and `company`, each a
    case-insensitive part of the field (every word of `keywords` anywhere in the profile)."""

    keywords: Criterion | None = None
    title: Criterion | None = None
    industry: Criterion | None = None
    location: Criterion | None = None
    company: Criterion | None = None
    limit: Annotated[int, Integer(minimum=1, maximum=domain.SEARCH_LIMIT_MAX)] = domain.SEARCH_LIMIT_DEFAULT
    cursor: Annotated[str, Text(max_length=255), Doc(description="`next_cursor` of the page before.")] | None = None


@renders(Profile)
@attrs.frozen
class SearchItem:
    """A person found (SPEC 4 LinkedIn search item). `provider_id` is what a launch names."""

    provider_id: str
    name: str
    headline: str
    location: str
    company: str
    profile_url: str


@attrs.frozen
class SearchPage:
    """One page of results; `next_cursor` null on the last."""

    items: tuple[SearchItem, ...]
    next_cursor: str | None


@structures_into(domain.SequenceStep)
@attrs.frozen
class SequenceMessage:
    """One message of a sequence."""

    text: StepText
    wait_days: WaitDays = 0


@structures_into(LaunchInput)
@attrs.frozen
class LaunchRequest:
    """A campaign to LinkedIn members: `invite` sends each a connection invitation (with `invite_note`);
    `sequence` sends each the messages of `sequence_messages` in turn, each `wait_days` after the one
    before, and stops for a member who writes back."""

    name: Name
    campaign_type: Literal["invite", "sequence"]
    provider_ids: Annotated[tuple[ProviderId, ...], Items(min_items=1, max_items=domain.PROVIDER_IDS_MAX)]
    invite_note: Note | None = None
    sequence_messages: Annotated[tuple[SequenceMessage, ...], Items(max_items=domain.STEPS_MAX)] = ()


@attrs.frozen
class InvitationQuota:
    """The LinkedIn campaign sends (invitations and messages) of the rolling week against the weekly quota
    (`ENGAGE_CAMPAIGN_WEEKLY_QUOTAS`, 100 by default: the network's invitation cap). `warning` is true from
    80 % used; beyond the cap sends wait for room (pending, not failed)."""

    used: int
    weekly_cap: int | None = attrs.field(metadata={"description": "Null when no weekly quota applies."})
    left: int | None
    warning: bool

    @classmethod
    def from_domain(cls, q: domain.InvitationQuota) -> InvitationQuota:
        return cls(q.used, q.cap, q.left, q.warning)


@attrs.frozen
class LaunchedCampaign:
    """The campaign launched (see `GET /campaigns/{id}` for its progress), its LinkedIn plan, how many
    contacts were created for members not known yet, and the week's quota."""

    campaign: Campaign
    campaign_type: Literal["invite", "sequence"]
    invite_note: str | None
    sequence_messages: tuple[SequenceMessage, ...]
    contacts_created: int
    invitations: InvitationQuota

    @classmethod
    def from_domain(cls, launched: Launched) -> LaunchedCampaign:
        plan = launched.plan
        return cls(
            Campaign.from_domain(launched.campaign),
            plan.campaign_type,  # type: ignore[arg-type]
            plan.invite_note,
            tuple(SequenceMessage(s.text, s.wait_days) for s in plan.steps),
            launched.contacts_created,
            InvitationQuota.from_domain(launched.invitations),
        )


@attrs.frozen
class ConnectionStatus:
    """The LinkedIn channel: whether it is connected, its provider status and login."""

    connected: bool
    status: str | None
    username: str | None


@attrs.frozen
class InboxStats:
    """The LinkedIn inbox: contacts with LinkedIn messages, and inbound LinkedIn messages not read."""

    conversations: int
    unread_messages: int


@attrs.frozen
class LinkedInOverview:
    """LinkedIn at a glance. `inmail_balance` is null and `recruiter_contract` false while the account is not
    connected or the network does not answer."""

    connection: ConnectionStatus
    inbox: InboxStats
    active_campaigns: tuple[Campaign, ...] = attrs.field(
        metadata={"description": "The running, paused and scheduled LinkedIn campaigns."}
    )
    inmail_balance: int | None
    recruiter_contract: bool
    invitations: InvitationQuota

    @classmethod
    def from_domain(cls, o: Overview) -> LinkedInOverview:
        return cls(
            ConnectionStatus(o.connection.connected, o.connection.status, o.connection.username),
            InboxStats(o.conversations, o.unread_messages),
            tuple(Campaign.from_domain(c) for c in o.active_campaigns),
            o.inmail_balance,
            o.recruiter_contract,
            InvitationQuota.from_domain(o.invitations),
        )
