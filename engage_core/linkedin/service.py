"""LinkedIn sourcing (SPEC 4 LinkedIn): the overview, the people search, and launching a campaign to
the people found. Every operation needs the `linkedin_access` feature (403 `linkedin_upgrade_required`
otherwise) and the connected LinkedIn channel for what goes through the gateway.

Launching turns the members' ids into contacts (a LinkedIn contact per member, its handle the id;
one that exists already is reused), and creates and starts a campaign on the `linkedin` channel with
them as its audience and the LinkedIn plan beside it (`model`): from then on it is a campaign like
any other (`GET /campaigns/{id}`, its recipients, pause, resume, cancel), and the campaign sender
sends its invitations or its sequence.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from datetime import datetime, timedelta

import attrs

from engage_core.campaigns.model import MESSAGE_MAX, Audience, Campaign, CampaignDraft, CampaignFilter
from engage_core.campaigns.quotas import Quotas, first_counted_day, week_usage
from engage_core.campaigns.service import start_campaign
from engage_core.campaigns.template import check_template
from engage_core.contacts.model import ContactDraft
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import FeatureUnavailable, Unavailable, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.kernel.validation import ErrorCollector, one_of, required_text
from engage_core.linkedin.model import (
    CAMPAIGN_TYPES,
    PROVIDER_IDS_MAX,
    SEARCH_LIMIT_MAX,
    STEPS_MAX,
    WAIT_DAYS_MAX,
    InvitationQuota,
    LinkedInPlan,
    SequenceStep,
    check_note,
)
from engage_core.linkedin.steps import invitation_text
from engage_core.messaging.gateway import GatewayRejected, GatewayUnavailable
from engage_core.messaging.people import SEARCH_FIELDS, LinkedInStanding, PeoplePage, PeopleQuery
from engage_core.messaging.ports import ChannelGateway
from engage_core.plans.entitlements import PlanLimits
from engage_core.plans.features import LINKEDIN_ACCESS, linkedin_refused
from engage_core.plans.model import CONTACTS, Plan
from engage_core.plans.ports import FeatureGate
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

CHANNEL = "linkedin"
CAMPAIGNS_FEATURE = "campaigns"
NAME_MAX = 255
PROVIDER_ID_MAX = 255
SOURCE = "linkedin_sourcing"
"""The `source` of contacts a launch creates."""


@attrs.frozen
class Connection:
    """The LinkedIn channel as the overview shows it."""

    connected: bool
    status: str | None
    username: str | None


@attrs.frozen
class Overview:
    """`GET /linkedin/overview`."""

    connection: Connection
    conversations: int
    unread_messages: int
    active_campaigns: tuple[Campaign, ...]
    inmail_balance: int | None
    recruiter_contract: bool
    invitations: InvitationQuota


@attrs.frozen
class LaunchInput:
    """Fields of `POST /linkedin/sourcing/launch-campaign`."""

    name: str
    campaign_type: str
    provider_ids: tuple[str, ...]
    invite_note: str | None = None
    sequence_messages: tuple[SequenceStep, ...] = ()


@attrs.frozen
class Launched:
    """A launched LinkedIn campaign: the campaign, its plan, the contacts created for it, and the
    week's invitation quota as it stands."""

    campaign: Campaign
    plan: LinkedInPlan
    contacts_created: int
    invitations: InvitationQuota


class LinkedInService:
    """LinkedIn sourcing of a workspace."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        gateway: ChannelGateway,
        features: FeatureGate,
        quotas: Quotas,
        limits: PlanLimits,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._gateway = gateway
        self._features = features
        self._quotas = quotas
        self._limits = limits

    def overview(self, account_id: int) -> Overview:
        """`GET /linkedin/overview`: the connection, the LinkedIn inbox (conversations, unread
        messages), the running, paused and scheduled LinkedIn campaigns, the InMail balance and
        Recruiter flag (asked of the network; None and false while not connected or unreachable),
        and the week's invitations against the weekly quota (`warning` from 80 %).

        Raises :class:`.Forbidden` (`linkedin_upgrade_required`)."""
        self._require(account_id)
        now = self._clock.now()
        with self._uow.workspace(account_id, readonly=True) as uow:
            channel = uow.channels.by_type(CHANNEL)
            conversations, unread = uow.linkedin_campaigns.inbox_stats()
            active = tuple(
                c
                for status in ("running", "paused", "scheduled")
                for c in uow.campaigns.find(CampaignFilter(status=status, channel=CHANNEL), PageRequest(1, 100)).items
            )
            quota = self._quota(uow, now)
        connected = channel is not None and channel.is_connected and channel.provider_account_id is not None
        standing = LinkedInStanding(None, False)
        if connected and channel is not None and channel.provider_account_id is not None:
            # the overview still answers when the network does not: the balance is unknown for now
            # (RuntimeError: services built without a gateway, as some embedders do)
            with contextlib.suppress(GatewayUnavailable, GatewayRejected, RuntimeError):
                standing = self._gateway.linkedin_standing(channel.provider_account_id)
        return Overview(
            Connection(
                connected,
                None if channel is None else channel.sync_status,
                None if channel is None else channel.username,
            ),
            conversations,
            unread,
            active,
            standing.inmail_balance,
            standing.recruiter,
            quota,
        )

    def search(self, account_id: int, query: PeopleQuery) -> PeoplePage:
        """`POST /linkedin/sourcing/search`: one page of the people the connected account's search
        finds; `next_cursor` continues it.

        Raises :class:`.Forbidden` (`linkedin_upgrade_required`); :class:`.ValidationFailed` without
        any criterion, for a limit out of range, an unknown cursor or no connected LinkedIn account;
        :class:`.Unavailable` when the provider cannot be reached."""
        self._require(account_id)
        criteria: dict[str, str | None] = {f: (getattr(query, f) or "").strip() or None for f in SEARCH_FIELDS}
        if not any(criteria.values()):
            raise ValidationFailed.on(
                "keywords", "Give at least one of keywords, title, industry, location or company."
            )
        if not 1 <= query.limit <= SEARCH_LIMIT_MAX:
            raise ValidationFailed.on("limit", f"The limit must be between 1 and {SEARCH_LIMIT_MAX}.")
        cleaned = attrs.evolve(query, **criteria)  # type: ignore[arg-type]
        provider_account_id = self._connected(account_id)
        try:
            return self._gateway.search_people(provider_account_id, cleaned)
        except GatewayUnavailable as exc:
            raise Unavailable(exc.message) from exc
        except GatewayRejected as exc:
            raise ValidationFailed.on("cursor" if query.cursor else "keywords", exc.message) from exc

    def launch(self, account_id: int, data: LaunchInput) -> Launched:
        """`POST /linkedin/sourcing/launch-campaign`: contacts for the members, and a campaign to
        them started at once (`campaign.started`), or scheduled when the sequence's first step
        waits days.

        Raises :class:`.Forbidden` (`linkedin_upgrade_required`, or `feature_not_in_plan` without
        `campaigns`); :class:`.ValidationFailed` for a blank name, an unknown type, no or too many
        members, a note over 200 characters, a sequence without messages (or messages on an
        invitation campaign), an unknown placeholder, or no connected LinkedIn account;
        :class:`.PlanLimitReached` when the new contacts do not fit the plan."""
        self._require(account_id)
        if not self._features.allows(account_id, CAMPAIGNS_FEATURE):
            raise FeatureUnavailable(CAMPAIGNS_FEATURE)
        plan, ids = _validated(data)
        now = self._clock.now()
        limits_plan = self._limits.plan_of(account_id)
        with self._uow.workspace(account_id) as uow:
            contact_ids, created = self._contacts(uow, ids, limits_plan, now)
            first = plan.steps[0] if plan.steps else None
            message = invitation_text(plan) if plan.invites or first is None else first.text
            starts_at = now + timedelta(days=first.wait_days) if first is not None and first.wait_days else None
            draft = CampaignDraft(data.name.strip(), CHANNEL, message, Audience(contact_ids=contact_ids), starts_at)
            campaign = uow.campaigns.add(draft, now)
            uow.linkedin_campaigns.add_plan(campaign.id, plan)
            campaign = start_campaign(uow, campaign, now)
            campaign = uow.campaigns.get(campaign.id) or campaign
            quota = self._quota(uow, now)
            uow.commit()
        return Launched(campaign, plan, created, quota)

    # -- helpers ------------------------------------------------------------------------------

    def _require(self, account_id: int) -> None:
        if not self._features.allows(account_id, LINKEDIN_ACCESS):
            raise linkedin_refused()

    def _connected(self, account_id: int) -> str:
        with self._uow.workspace(account_id, readonly=True) as uow:
            channel = uow.channels.by_type(CHANNEL)
        if channel is None or not channel.is_connected or channel.provider_account_id is None:
            raise ValidationFailed.on("channel", "No connected LinkedIn account. Connect LinkedIn first.")
        return channel.provider_account_id

    def _quota(self, uow: WorkspaceUnitOfWork, now: datetime) -> InvitationQuota:
        counts = uow.campaign_send_counts.since(CHANNEL, first_counted_day(now))
        cap = self._quotas.weekly.get(CHANNEL, 0)
        return InvitationQuota(week_usage(counts, now), cap or None)

    def _contacts(
        self, uow: WorkspaceUnitOfWork, ids: Sequence[str], plan: Plan | None, now: datetime
    ) -> tuple[tuple[int, ...], int]:
        """The contact of each member, created where missing: their ids in order, and how many were new."""
        found: list[int] = []
        missing: list[str] = []
        for provider_id in ids:
            contact_id = uow.handles.contact_for(CHANNEL, provider_id)
            if contact_id is not None and uow.contacts.get(contact_id) is not None:
                found.append(contact_id)
            else:
                missing.append(provider_id)
        if missing:
            self._limits.reserve(uow, plan, CONTACTS, now, len(missing))
        for provider_id in missing:
            contact = uow.contacts.add(ContactDraft(name=provider_id, type=CHANNEL, source=SOURCE), now)
            uow.handles.link(contact.id, CHANNEL, provider_id)
            uow.emit(DomainEvent("contact.created", contact.event_payload(), now))
            found.append(contact.id)
        return tuple(dict.fromkeys(found)), len(missing)


def _validated(data: LaunchInput) -> tuple[LinkedInPlan, tuple[str, ...]]:
    """The plan and the members' ids (trimmed, once each), or ValidationFailed with every problem."""
    errors = ErrorCollector()
    errors.run(lambda: required_text("name", data.name, max_length=NAME_MAX))
    kind = errors.run(lambda: one_of("campaign_type", data.campaign_type, CAMPAIGN_TYPES))
    ids = tuple(dict.fromkeys(p.strip() for p in data.provider_ids if p.strip()))
    if not ids:
        errors.errors.setdefault("provider_ids", []).append("Name at least one member (provider_ids).")
    elif len(ids) > PROVIDER_IDS_MAX:
        errors.errors.setdefault("provider_ids", []).append(f"At most {PROVIDER_IDS_MAX} members.")
    if any(len(p) > PROVIDER_ID_MAX for p in ids):
        errors.errors.setdefault("provider_ids", []).append(f"A member id is at most {PROVIDER_ID_MAX} characters.")
    note = errors.run(lambda: check_note(data.invite_note))
    steps = data.sequence_messages
    if kind == "invite" and steps:
        errors.errors.setdefault("sequence_messages", []).append("Only a sequence campaign takes messages.")
    if kind == "sequence":
        if note is not None:
            errors.errors.setdefault("invite_note", []).append("Only an invite campaign takes a note.")
        if not steps:
            errors.errors.setdefault("sequence_messages", []).append("A sequence needs at least one message.")
        if len(steps) > STEPS_MAX:
            errors.errors.setdefault("sequence_messages", []).append(f"At most {STEPS_MAX} messages.")
        for index, step in enumerate(steps[:STEPS_MAX]):
            field = f"sequence_messages.{index}"
            errors.run(functools.partial(_check_step_text, f"{field}.text", step.text))
            if not 0 <= step.wait_days <= WAIT_DAYS_MAX:
                errors.errors.setdefault(f"{field}.wait_days", []).append(
                    f"The wait must be between 0 and {WAIT_DAYS_MAX} days."
                )
    errors.raise_if_any()
    assert kind is not None
    cleaned = tuple(SequenceStep(s.text.strip(), s.wait_days) for s in steps) if kind == "sequence" else ()
    return LinkedInPlan(kind, note if kind == "invite" else None, cleaned), ids


def _check_step_text(field: str, text: str) -> str:
    return check_template(field, required_text(field, text, max_length=MESSAGE_MAX))
