"""Campaigns (SPEC 4 Campaigns): create, read, edit and delete drafts, start, pause, resume and
cancel, and the recipients with their delivery status.

Starting resolves the audience once into the recipients snapshot (`RecipientRepository.snapshot`)
and queues the campaign's send job (`sender.CampaignSendJob`), which the worker runs: the request
never talks to the network. A campaign with a `starts_at` still to come is `scheduled` instead;
its job runs at that moment and takes the snapshot then, so contacts added to its lists meanwhile
are in it.

`starts_at` is read in the workspace's timezone when it carries no offset (the timezone of its
booking setup, `UTC` until set), and as given when it does; it is stored and shown in UTC.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import attrs

from engage_core.bookings.working_hours import DEFAULT_HOURS
from engage_core.campaigns.model import (
    AUDIENCE_IDS_MAX,
    CAMPAIGN_CHANNELS,
    CANCELLED,
    DEFAULT_SEND_RATE,
    DELETABLE,
    EDITABLE,
    EVENTS,
    MESSAGE_MAX,
    NAME_MAX,
    REASONS,
    RECIPIENT_STATUSES,
    SEND_RATE_MAX,
    SEND_RATE_MIN,
    Audience,
    Campaign,
    CampaignDraft,
    CampaignFilter,
    Counters,
    RecipientFilter,
    RecipientView,
    check_operation,
    counter_deltas,
    moved,
)
from engage_core.campaigns.template import check_template
from engage_core.jobs.model import JobRequest
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset, pick
from engage_core.kernel.validation import ErrorCollector, one_of, required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

SEND_JOB = "campaign.send"
SEND_JOB_ATTEMPTS = 10
"""Failed runs (not deferrals) a send job may have before its campaign is given up as `failed`."""


def send_key(campaign_id: int) -> str:
    """The send job's key: one unfinished send job per campaign."""
    return str(campaign_id)


@attrs.frozen
class CampaignInput:
    """Fields of `POST /campaigns`. `starts_at`: ISO 8601, without an offset in the workspace's timezone."""

    name: str
    channel: str
    message: str
    contact_ids: tuple[int, ...] = ()
    list_ids: tuple[int, ...] = ()
    segment_ids: tuple[int, ...] = ()
    starts_at: str | None = None
    send_rate: int = DEFAULT_SEND_RATE


@attrs.frozen
class CampaignPatch:
    """Fields of `PUT /campaigns/{id}`: those left out keep their value."""

    name: str | Unset = UNSET
    channel: str | Unset = UNSET
    message: str | Unset = UNSET
    contact_ids: tuple[int, ...] | Unset = UNSET
    list_ids: tuple[int, ...] | Unset = UNSET
    segment_ids: tuple[int, ...] | Unset = UNSET
    starts_at: str | Unset | None = UNSET
    send_rate: int | Unset = UNSET


class CampaignService:
    """Campaigns of a workspace, their moves, and their recipients."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- drafts -------------------------------------------------------------------------------

    def create(self, account_id: int, data: CampaignInput) -> Campaign:
        """`POST /campaigns`: a new `draft`.

        Raises :class:`.ValidationFailed` for a blank or too long name or message, an unknown
        placeholder, an unknown channel, an empty audience, a list or segment not in the account, a
        send rate out of range or an unreadable `starts_at`."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            draft = _draft(uow, data, now)
            campaign = uow.campaigns.add(draft, now)
            uow.commit()
        return campaign

    def get(self, account_id: int, campaign_id: int) -> Campaign:
        """`GET /campaigns/{id}`.

        Raises :class:`.NotFound` when the campaign is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _campaign(uow, campaign_id)

    def list(self, account_id: int, filters: CampaignFilter, page: PageRequest) -> Page[Campaign]:
        """`GET /campaigns`: newest first, by `status` and `channel` when given.

        Raises :class:`.ValidationFailed` for an unknown status or channel filter."""
        if filters.channel is not None:
            one_of("channel", filters.channel, CAMPAIGN_CHANNELS)
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.campaigns.find(filters, page)

    def update(self, account_id: int, campaign_id: int, patch: CampaignPatch) -> Campaign:
        """`PUT /campaigns/{id}`: a draft's fields; those left out keep their value.

        Raises :class:`.NotFound`; :class:`.ValidationFailed` when the campaign is not a draft, or
        for the values `create` refuses."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _campaign(uow, campaign_id)
            if current.status not in EDITABLE:
                raise ValidationFailed.on(
                    "status", f"Only a draft campaign can be edited; this one is {current.status}."
                )
            merged = _merged(current, patch)
            draft = _draft(uow, merged, now, starts_at=current.starts_at if patch.starts_at is UNSET else UNSET)
            campaign = attrs.evolve(
                current,
                name=draft.name,
                channel=draft.channel,
                message=draft.message,
                audience=draft.audience,
                starts_at=draft.starts_at,
                send_rate=draft.send_rate,
                updated_at=now,
            )
            uow.campaigns.update(campaign)
            uow.commit()
        return campaign

    def delete(self, account_id: int, campaign_id: int) -> None:
        """`DELETE /campaigns/{id}`: a draft or cancelled campaign, with its recipients (the messages
        sent stay in the conversations).

        Raises :class:`.NotFound`; :class:`.ValidationFailed` for a campaign in another status."""
        with self._uow.workspace(account_id) as uow:
            campaign = _campaign(uow, campaign_id)
            if campaign.status not in DELETABLE:
                raise ValidationFailed.on(
                    "status", f"Only a draft or cancelled campaign can be deleted; this one is {campaign.status}."
                )
            uow.campaigns.delete(campaign_id)
            uow.commit()

    # -- moves --------------------------------------------------------------------------------

    def start(self, account_id: int, campaign_id: int) -> Campaign:
        """`POST /campaigns/{id}/start`: a draft becomes `running` (its recipients snapshot taken,
        `campaign.started`) or, with `starts_at` to come, `scheduled`; its send job is queued.

        Raises :class:`.NotFound`; :class:`.ValidationFailed` for a campaign that is not a draft,
        whose channel is not connected, or whose audience resolves to nobody (it stays a draft)."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            campaign = start_campaign(uow, _campaign(uow, campaign_id), now)
            uow.commit()
        return campaign

    def pause(self, account_id: int, campaign_id: int) -> Campaign:
        """`POST /campaigns/{id}/pause`: a running campaign stops sending after the message in
        flight (`campaign.paused`); its pending recipients wait.

        Raises :class:`.NotFound`; :class:`.ValidationFailed` for a campaign that is not running."""
        return self._move(account_id, campaign_id, "pause", "paused")

    def resume(self, account_id: int, campaign_id: int) -> Campaign:
        """`POST /campaigns/{id}/resume`: a paused campaign runs again (`campaign.started`) from its
        first pending recipient; nobody already sent to is sent to again.

        Raises :class:`.NotFound`; :class:`.ValidationFailed` for a campaign that is not paused."""
        return self._move(account_id, campaign_id, "resume", "running")

    def cancel(self, account_id: int, campaign_id: int) -> Campaign:
        """`POST /campaigns/{id}/cancel`: a scheduled, running or paused campaign ends; its pending
        recipients are `skipped` (`cancelled`), the one in flight is still recorded as it ends
        (`campaign.cancelled`). A cancelled campaign may be deleted.

        Raises :class:`.NotFound`; :class:`.ValidationFailed` for a draft or an ended campaign."""
        return self._move(account_id, campaign_id, "cancel", "cancelled")

    def _move(self, account_id: int, campaign_id: int, operation: str, status: str) -> Campaign:
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            campaign = _campaign(uow, campaign_id)
            check_operation(campaign, operation)
            if status == "cancelled":
                skip_pending(uow, campaign.id, CANCELLED, now)
            campaign = move(uow, campaign, status, now)
            if status == "running":
                request = JobRequest(SEND_JOB, {"campaign_id": campaign.id}, key=send_key(campaign.id))
                uow.jobs.cancel(SEND_JOB, send_key(campaign.id), now)  # a job still ending its run is not reused
                uow.jobs.enqueue(attrs.evolve(request, max_attempts=SEND_JOB_ATTEMPTS), now)
            else:
                uow.jobs.cancel(SEND_JOB, send_key(campaign.id), now)
            uow.commit()
        return campaign

    # -- recipients ---------------------------------------------------------------------------

    def recipients(
        self, account_id: int, campaign_id: int, filters: RecipientFilter, page: PageRequest
    ) -> Page[RecipientView]:
        """`GET /campaigns/{id}/contacts`: the recipients in snapshot order, with their status and,
        for a skipped or failed one, why; by `status` and `reason` when given. Empty before the start.

        Raises :class:`.NotFound`; :class:`.ValidationFailed` for an unknown status or reason."""
        if filters.status is not None:
            one_of("status", filters.status, RECIPIENT_STATUSES)
        if filters.reason is not None:
            one_of("reason", filters.reason, REASONS)
        with self._uow.workspace(account_id, readonly=True) as uow:
            _campaign(uow, campaign_id)
            return uow.campaign_recipients.find(campaign_id, filters, page)


# -- shared with the sender -------------------------------------------------------------------


def start_campaign(uow: WorkspaceUnitOfWork, campaign: Campaign, now: datetime) -> Campaign:
    """Start a draft in `uow` (as `CampaignService.start` says; the caller commits)."""
    check_operation(campaign, "start")
    channel = uow.channels.by_type(campaign.channel)
    if channel is None or not channel.is_connected:
        raise ValidationFailed.on(
            "channel", f"No connected {campaign.channel} account to send from. Connect the channel first."
        )
    request = JobRequest(SEND_JOB, {"campaign_id": campaign.id}, key=send_key(campaign.id))
    if campaign.starts_at is not None and campaign.starts_at > now:
        campaign = attrs.evolve(campaign, status="scheduled", updated_at=now)
        uow.campaigns.update(campaign)
        uow.jobs.enqueue(attrs.evolve(request, run_at=campaign.starts_at, max_attempts=SEND_JOB_ATTEMPTS), now)
        return campaign
    counted = take_snapshot(uow, campaign, now)
    if counted.total == 0:
        raise ValidationFailed.on("audience", "The audience has no contacts: nobody would get the campaign.")
    campaign = move(uow, campaign, "running", now)
    uow.jobs.enqueue(attrs.evolve(request, max_attempts=SEND_JOB_ATTEMPTS), now)
    return campaign


def take_snapshot(uow: WorkspaceUnitOfWork, campaign: Campaign, now: datetime) -> Counters:
    """Resolve the campaign's audience into its recipients and count them on the campaign."""
    counted = uow.campaign_recipients.snapshot(campaign, now)
    uow.campaigns.adjust(campaign.id, counted)
    return counted


def skip_pending(uow: WorkspaceUnitOfWork, campaign_id: int, reason: str, now: datetime) -> int:
    """Skip every pending recipient (and sequence follow-up) of the campaign with `reason`, and the
    claims not yet handed to the gateway, counting them: how many recipients."""
    uow.linkedin_campaigns.skip_pending(campaign_id, reason, now)  # a LinkedIn sequence's later steps
    skipped = len(uow.campaign_recipients.move_all(campaign_id, "pending", "skipped", now, reason=reason))
    skipped += give_back_claims(uow, campaign_id, "skipped", now, reason=reason)
    if skipped:
        deltas = counter_deltas("pending", "skipped")
        uow.campaigns.adjust(campaign_id, Counters(*(n * skipped for n in attrs.astuple(deltas))))
    return skipped


def give_back_claims(
    uow: WorkspaceUnitOfWork,
    campaign_id: int,
    to: str,
    now: datetime,
    *,
    recipient_ids: Sequence[int] | None = None,
    reason: str | None = None,
) -> int:
    """Move the campaign's claims not yet handed to the gateway (all, or those of `recipient_ids`)
    to `to`, and take them off the channel's send count they were counted in at the claim: how
    many. The caller counts a move to `skipped` on the campaign."""
    released = uow.campaign_recipients.release(campaign_id, to, now, recipient_ids=recipient_ids, reason=reason)
    campaign = uow.campaigns.get(campaign_id) if released else None
    if campaign is not None:
        uow.campaign_send_counts.add(campaign.channel, now.date(), -released)
    return released


def move(
    uow: WorkspaceUnitOfWork, campaign: Campaign, status: str, now: datetime, *, error: str | None = None
) -> Campaign:
    """Store the campaign's move into `status` and emit its event; the campaign as stored."""
    if status == "paused":  # what a sender claimed and has not handed yet waits with the pending
        give_back_claims(uow, campaign.id, "pending", now)
    stored = uow.campaigns.get(campaign.id) or campaign  # with the counters as this transaction left them
    changed = moved(stored, status, now, error=error)
    uow.campaigns.update(changed)
    event = EVENTS.get(status)
    if event is not None:
        uow.emit(DomainEvent(event, changed.event_payload(), now))
    return changed


# -- helpers ------------------------------------------------------------------------------------


def _campaign(uow: WorkspaceUnitOfWork, campaign_id: int) -> Campaign:
    campaign = uow.campaigns.get(campaign_id)
    if campaign is None:
        raise NotFound("Campaign")
    return campaign


def _merged(current: Campaign, patch: CampaignPatch) -> CampaignInput:
    audience = current.audience
    return CampaignInput(
        name=pick(patch.name, current.name),
        channel=pick(patch.channel, current.channel),
        message=pick(patch.message, current.message),
        contact_ids=pick(patch.contact_ids, audience.contact_ids),
        list_ids=pick(patch.list_ids, audience.list_ids),
        segment_ids=pick(patch.segment_ids, audience.segment_ids),
        starts_at=None if patch.starts_at is UNSET else patch.starts_at,
        send_rate=pick(patch.send_rate, current.send_rate),
    )


def _draft(
    uow: WorkspaceUnitOfWork, data: CampaignInput, now: datetime, *, starts_at: datetime | Unset | None = UNSET
) -> CampaignDraft:
    """Validate `data` into a draft (every problem at once). `starts_at`: the stored moment to keep
    instead of parsing `data.starts_at` (an update that leaves it out)."""
    errors = ErrorCollector()
    name = errors.run(lambda: required_text("name", data.name, max_length=NAME_MAX))
    channel = errors.run(lambda: one_of("channel", data.channel, CAMPAIGN_CHANNELS))
    message = errors.run(
        lambda: check_template("message", required_text("message", data.message, max_length=MESSAGE_MAX))
    )
    audience = Audience(_unique(data.contact_ids), _unique(data.list_ids), _unique(data.segment_ids))
    if audience.empty:
        errors.errors.setdefault("audience", []).append(
            "Name at least one contact, list or segment (contact_ids, list_ids, segment_ids)."
        )
    for field, ids in (
        ("contact_ids", audience.contact_ids),
        ("list_ids", audience.list_ids),
        ("segment_ids", audience.segment_ids),
    ):
        if len(ids) > AUDIENCE_IDS_MAX:
            errors.errors.setdefault(field, []).append(f"At most {AUDIENCE_IDS_MAX} ids.")
    for index, list_id in enumerate(audience.list_ids[:AUDIENCE_IDS_MAX]):
        if uow.lists.get(list_id) is None:
            errors.errors.setdefault(f"list_ids.{index}", []).append(f"List {list_id} not found.")
    for index, segment_id in enumerate(audience.segment_ids[:AUDIENCE_IDS_MAX]):
        if uow.segments.get(segment_id, now) is None:
            errors.errors.setdefault(f"segment_ids.{index}", []).append(f"Segment {segment_id} not found.")
    if not SEND_RATE_MIN <= data.send_rate <= SEND_RATE_MAX:
        errors.errors.setdefault("send_rate", []).append(
            f"The send rate must be between {SEND_RATE_MIN} and {SEND_RATE_MAX} messages per minute."
        )
    moment = starts_at if starts_at is not UNSET else errors.run(lambda: _starts_at(uow, data.starts_at))
    errors.raise_if_any()
    assert name is not None and channel is not None and message is not None
    return CampaignDraft(name, channel, message, audience, moment, data.send_rate)


def _unique(ids: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(dict.fromkeys(ids))


def _starts_at(uow: WorkspaceUnitOfWork, text: str | None) -> datetime | None:
    """`starts_at` as a UTC moment: with an offset as given, without one in the workspace's timezone."""
    if text is None or not text.strip():
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError as exc:
        raise ValidationFailed.on(
            "starts_at", "The starts at must be an ISO 8601 date and time, such as 2026-03-01T09:00:00."
        ) from exc
    if moment.tzinfo is None:
        hours = uow.working_hours.get() or DEFAULT_HOURS
        moment = moment.replace(tzinfo=ZoneInfo(hours.timezone))
    return moment.astimezone(UTC)
