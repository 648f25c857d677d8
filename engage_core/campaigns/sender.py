"""The send job (`campaign.send`): a running campaign's messages, sent by the worker through the
channel gateway at the campaign's rate and within the channel's quotas.

The recipients go in batches, each in three steps, the gateway call never inside a transaction:

1. claim: up to a batch of pending recipients become `sending` in one statement (as many as the
   rate sends in `BATCH_SECONDS`, at most `BATCH`, at most what the quotas and the plan's
   `messages_per_month` leave room for), their contacts are read and their texts rendered, and
   the batch is counted against the quotas;
2. for each claim, in order: `handed_at` is written in a commit of its own (one statement), then
   the gateway call, then the wait for the rate;
3. settle, in one transaction for the whole batch: each message stored `sent` (`message.sent`) or
   `failed`, each recipient `sent` or `failed` (`rejected`), the counters moved once. A provider
   outage (`GatewayUnavailable`: nothing was sent) gives the claim back instead, and the job waits
   `UNAVAILABLE_WAIT` before trying again (the third outage in a row for one recipient fails it,
   `unavailable`).

Step 3 of one batch and step 1 of the next share a transaction. What the claims share (the
channel, the campaign's LinkedIn plan, the room the quotas and the plan's monthly messages leave)
is read once per `BATCH` claims and counted down.

No contact gets the same campaign twice. A recipient is claimed only from `pending`, so two runs
(a worker that stalled past its lease and the one that took over) never claim the same one, and
the hand-off only from an unhanded claim, so a pause or cancel that took the claim back (to
`pending` or `skipped`, in its own transaction) and the sender never both win. A claim without
`handed_at` certainly did not go: when the sender stops, is paused, meets an outage or dies, such
claims go back to `pending`. A worker that dies after a hand-off and before the settle leaves its
recipient `sending` with `handed_at`: whether the network got the message is unknown, and the
gateway takes no idempotency key to ask, so the next run does not send again but marks it
`failed` with reason `unknown_outcome` once it is older than `stale_after` (the job lease: by then
the dead worker's lease has ended). At most once, never twice, and never `unknown_outcome` for a
recipient the gateway was not handed: a crash leaves at most the sends of one batch (about
`BATCH_SECONDS` of sending) unknown, and the owner sees exactly which recipients to check.

Between two sends the job waits for the rate (`send_rate` per minute); it keeps the worker for at
most `slice_seconds` at a time and then defers itself (`RetryLater`), so crawls and other
campaigns get their turn. A quota or the plan's monthly limit defers it until there is room (the
recipients stay `pending`: a wait, not a failure). A pause or cancel is seen at the next hand-off.

When no recipient is pending and none is in flight, the campaign ends: `completed` when at least
one message went, `failed` when none could be sent. It ends `failed` too when its channel is not
connected any more (the pending recipients are `skipped`, `campaign_failed`), and is `paused` with
an error when the workspace's plan lost the `campaigns` feature.

LinkedIn sequences' later steps (follow-ups) go one at a time: each is claimed with its message
stored `pending` and handed to the gateway at once (`engage_core.linkedin.steps`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import attrs

from engage_core.campaigns.model import (
    BLACKLISTED,
    CAMPAIGN_FAILED,
    CONTACT_DELETED,
    NO_ADDRESS,
    OTHER_CHANNEL,
    REJECTED,
    UNAVAILABLE,
    UNKNOWN_OUTCOME,
    Campaign,
    Counters,
    Recipient,
    counter_deltas,
)
from engage_core.campaigns.quotas import Quotas, first_counted_day
from engage_core.campaigns.service import give_back_claims, move, skip_pending, take_snapshot
from engage_core.campaigns.template import render
from engage_core.contacts.model import Contact
from engage_core.jobs.model import RetryLater
from engage_core.jobs.runner import JobContext, JobLost
from engage_core.kernel.clock import Clock
from engage_core.kernel.events import DomainEvent
from engage_core.linkedin import steps
from engage_core.linkedin.model import LinkedInPlan
from engage_core.messaging.gateway import GatewayError, GatewayUnavailable, SentMessage
from engage_core.messaging.message_service import PHONE_ADDRESSED, touch_contact
from engage_core.messaging.messages import MessageDraft, mark_failed, mark_sent
from engage_core.messaging.ports import ChannelGateway
from engage_core.plans.entitlements import Entitlements, PlanLimits
from engage_core.plans.model import MESSAGES_PER_MONTH, Plan, month_of
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

logger = logging.getLogger("engage.campaigns.sender")

UNAVAILABLE_WAIT = 30.0
"""Seconds the job waits after the provider was unavailable."""
MAX_UNAVAILABLE = 3
"""Outages in a row one recipient may meet before it fails (`unavailable`)."""
DEFAULT_SLICE_SECONDS = 5.0
BATCH = 100
"""Claims between two reads of the channel, the campaign's LinkedIn plan, the quotas and the plan's
monthly messages, and the most one batch claims and settles at once."""
BATCH_SECONDS = 0.2
"""A batch holds what the campaign's rate sends in this long (at least one recipient): the longest
a sent message waits to be recorded, and what a crash may leave `unknown_outcome`."""
CAMPAIGNS_FEATURE = "campaigns"


@attrs.frozen
class _Claim:
    """A recipient claimed for a send: where and what to send."""

    recipient_id: int
    contact_id: int
    channel: str
    provider_account_id: str
    address: str
    text: str
    """What the gateway gets: the message, or the invitation's note (empty for none)."""
    content: str
    """The message stored for it."""
    attempts: int = 0
    """Hand-offs of the recipient before this one."""
    invite: bool = False
    """A LinkedIn invitation rather than a message."""
    follow_up_id: int | None = None
    """A later step of a LinkedIn sequence rather than the recipient's own send."""
    message_id: int | None = None
    """A follow-up's message, stored `pending` at its claim."""
    next_step: tuple[int, int] | None = None
    """The sequence step that follows once this one went: its number and its wait in days."""


@attrs.define
class _Batch:
    """What the next claims of one run share, read once for up to `BATCH` of them: the channel's
    provider account, the campaign's LinkedIn plan, and the room the quotas and the plan's monthly
    messages leave (counted down per claim, read again at 0)."""

    provider_account_id: str = ""
    sequence: LinkedInPlan | None = None
    room: int = 0


@attrs.frozen
class _Outcome:
    """The gateway's answer to a claim: `sent` (with `sent`), `rejected` or `unavailable` (with `error`)."""

    claim: _Claim
    status: str
    sent: SentMessage | None = None
    error: str | None = None


@attrs.frozen
class _Wait:
    """Nothing to send now: defer the job `seconds`."""

    seconds: float
    reason: str


_STOP = object()
"""The campaign is not running (ended, paused, cancelled or gone): the job ends."""
_AGAIN = object()
"""Every recipient claimed was settled without a send (skipped): claim again at once."""

Step = list[_Claim] | _Wait | object
_STOPPING = "The worker is stopping; the next run goes on from the first pending recipient."


class CampaignSendJob:
    """The handler of `campaign.send` jobs (payload: `campaign_id`)."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        gateway: ChannelGateway,
        *,
        quotas: Quotas | None = None,
        entitlements: Entitlements | None = None,
        stale_after: float = 60.0,
        slice_seconds: float = DEFAULT_SLICE_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """`stale_after`: seconds after which a claim left `sending` is a dead worker's (the job
        lease). `sleep` waits between two sends (tests pass one that moves a fake clock)."""
        self._uow = uow
        self._clock = clock
        self._gateway = gateway
        self._quotas = quotas or Quotas()
        self._limits = PlanLimits(entitlements)
        self._stale = timedelta(seconds=stale_after)
        self._slice = timedelta(seconds=slice_seconds)
        self._sleep = sleep

    def __call__(self, context: JobContext) -> None:
        """Send the campaign's pending messages for one slice, as the module notes say."""
        account_id = context.account_id
        campaign_id = int(str(context.payload["campaign_id"]))
        try:
            self._run(context, account_id, campaign_id)
        except (RetryLater, JobLost):
            raise
        except Exception as exc:
            if context.claim.attempt >= context.claim.max_attempts and not context.lost():
                self._give_up(account_id, campaign_id, exc)
            raise

    def _run(self, context: JobContext, account_id: int, campaign_id: int) -> None:
        campaign = self._begin(account_id, campaign_id)
        if campaign is None:
            return
        plan = self._limits.plan_of(account_id)
        interval = timedelta(minutes=1) / campaign.send_rate
        size = max(1, min(BATCH, int(BATCH_SECONDS / interval.total_seconds())))
        started = self._clock.now()
        due = started
        batch = _Batch()
        done: list[_Outcome] = []
        unsent: list[_Claim] = []
        while True:
            may_claim = not (context.stopping() or context.lost())
            step = self._step(account_id, campaign_id, plan, done, unsent, batch, size if may_claim else 0)
            done, unsent = [], []
            if step is _STOP:
                return
            if step is _AGAIN:
                continue
            if isinstance(step, _Wait):
                context.check()
                raise RetryLater(step.seconds, step.reason)
            if not isinstance(step, list):  # not claimed: the worker stops or lost the job
                context.check()
                raise RetryLater(0, _STOPPING)
            stop: RetryLater | None = None
            for index, claim in enumerate(step):
                if context.stopping() or context.lost():
                    unsent = step[index:]
                    stop = RetryLater(0, _STOPPING)
                    break
                if not self._hand(account_id, claim):  # a pause or cancel took the batch back
                    unsent = step[index + 1 :]
                    break
                outcome = self._send(claim)
                done.append(outcome)
                if outcome.status == "unavailable":
                    unsent = step[index + 1 :]
                    stop = RetryLater(UNAVAILABLE_WAIT, f"The provider is unavailable: {outcome.error}")
                    break
                due += interval
                now = self._clock.now()
                wait = (due - now).total_seconds()
                if now - started >= self._slice or (wait > 0 and now + timedelta(seconds=wait) - started > self._slice):
                    unsent = step[index + 1 :]
                    stop = RetryLater(max(0.0, wait), "The campaign's slice of the worker ended; it goes on shortly.")
                    break
                if wait > 0:
                    self._sleep(wait)
            if stop is not None:
                self._step(account_id, campaign_id, plan, done, unsent, batch, 0)
                context.check()
                raise stop

    # -- the transactions -------------------------------------------------------------------------

    def _begin(self, account_id: int, campaign_id: int) -> Campaign | None:
        """Start a scheduled campaign (its snapshot), and settle claims a dead worker left: the
        campaign if it is running."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            campaign = uow.campaigns.get(campaign_id)
            if campaign is None:
                return None
            if campaign.status == "scheduled":
                counted = take_snapshot(uow, campaign, now)
                if counted.total == 0:
                    move(
                        uow,
                        campaign,
                        "failed",
                        now,
                        error="The audience has no contacts: nobody could get the campaign.",
                    )
                    uow.commit()
                    return None
                campaign = move(uow, campaign, "running", now)
            if campaign.status != "running":
                return None
            left = uow.campaign_recipients.stale_sending(campaign_id, now - self._stale)
            unsent = [recipient.id for recipient in left if recipient.handed_at is None]
            if unsent:
                give_back_claims(uow, campaign_id, "pending", now, recipient_ids=unsent)
            for recipient in left:
                if recipient.handed_at is not None:
                    _settle_unknown(uow, campaign, recipient, now)
            for follow_up in uow.linkedin_campaigns.stale_sending(campaign_id, now - self._stale):
                steps.settle_unknown(uow, follow_up, now)
            uow.commit()
            return uow.campaigns.get(campaign_id) or campaign

    def _step(
        self,
        account_id: int,
        campaign_id: int,
        plan: Plan | None,
        done: list[_Outcome],
        unsent: list[_Claim],
        batch: _Batch,
        size: int,
    ) -> Step:
        """Settle the outcomes `done` and give the claims `unsent` back, then claim up to `size`
        recipients (none when 0), in one transaction."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            if done:
                _settle(uow, campaign_id, done, now)
            given_back = [claim.recipient_id for claim in unsent if claim.follow_up_id is None]
            if given_back:
                give_back_claims(uow, campaign_id, "pending", now, recipient_ids=given_back)
            for claim in unsent:  # a follow-up claimed but never sent waits for the next run
                if claim.follow_up_id is not None:
                    steps.give_back(uow, claim.follow_up_id, claim.channel, now)
            step = self._next(uow, campaign_id, plan, batch, size, now) if size else None
            uow.commit()
        return step

    def _hand(self, account_id: int, claim: _Claim) -> bool:
        """Record that the claim goes to the gateway now, in a commit of its own: whether it may."""
        if claim.follow_up_id is not None:  # claimed and handed at once (see the module notes)
            return True
        with self._uow.workspace(account_id) as uow:
            handed = uow.campaign_recipients.hand(claim.recipient_id, self._clock.now())
            uow.commit()
        return handed

    def _next(
        self, uow: WorkspaceUnitOfWork, campaign_id: int, plan: Plan | None, batch: _Batch, size: int, now: datetime
    ) -> Step:
        campaign = uow.campaigns.get(campaign_id)
        if campaign is None or campaign.status != "running":
            return _STOP
        if batch.room <= 0:
            stop = self._refresh(uow, campaign, plan, batch, now)
            if stop is not None:
                return stop
        sequence = batch.sequence
        recipients = uow.campaign_recipients.claim(campaign_id, min(size, batch.room), now)
        if not recipients:
            if uow.campaign_recipients.statuses(campaign_id).get("sending"):
                return _Wait(self._stale.total_seconds(), "A send is still in flight; waiting for its outcome.")
            if sequence is not None and not sequence.invites:
                return self._next_follow_up(uow, campaign, sequence, batch, now)
            return self._finish(uow, campaign, now)
        inviting = sequence if sequence is not None and sequence.invites else None
        following = None if sequence is None else steps.following(sequence, 0)
        claims = []
        contacts = uow.contacts.get_many([recipient.contact_id for recipient in recipients])
        for recipient in recipients:
            contact = contacts.get(recipient.contact_id)
            skipped, address = _reach(uow, contact, campaign.channel)
            if skipped is None and contact is not None and sequence is not None and not sequence.invites:
                skipped = steps.replied(uow, contact.id, campaign.created_at)  # wrote back since the launch
            if skipped is not None:
                _move(uow, campaign_id, recipient.id, "skipped", now, reason=skipped)
                continue
            assert contact is not None and address is not None
            content = render(campaign.message, contact) if inviting is None else steps.invitation_text(inviting)
            claims.append(
                _Claim(
                    recipient.id,
                    contact.id,
                    campaign.channel,
                    batch.provider_account_id,
                    address,
                    content if inviting is None else (inviting.invite_note or ""),
                    content,
                    attempts=recipient.attempts,
                    invite=inviting is not None,
                    next_step=following,
                )
            )
        if not claims:
            return _AGAIN
        batch.room -= len(claims)
        uow.campaign_send_counts.add(campaign.channel, now.date(), len(claims))
        return claims

    def _next_follow_up(
        self,
        uow: WorkspaceUnitOfWork,
        campaign: Campaign,
        sequence: LinkedInPlan,
        batch: _Batch,
        now: datetime,
    ) -> Step:
        """Every recipient had its first message: claim the sequence's next due step, wait for the
        next one to come due, or end the campaign when none is left."""
        follow_up = uow.linkedin_campaigns.next_due(campaign.id, now)
        if follow_up is None:
            if uow.linkedin_campaigns.statuses(campaign.id).get("sending"):
                return _Wait(self._stale.total_seconds(), "A follow-up is still in flight; waiting for its outcome.")
            due = uow.linkedin_campaigns.next_due_at(campaign.id)
            if due is not None:
                return _Wait(max(1.0, (due - now).total_seconds()), "The sequence's next step is not due yet.")
            return self._finish(uow, campaign, now)
        contact = uow.contacts.get(follow_up.contact_id)
        recipient = uow.campaign_recipients.get(follow_up.recipient_id)
        skipped, address = _reach(uow, contact, campaign.channel)
        if skipped is None and contact is not None:
            since = (recipient.sent_at if recipient is not None else None) or follow_up.updated_at
            skipped = steps.replied(uow, contact.id, since)
        if skipped is not None:
            uow.linkedin_campaigns.move(follow_up.id, "skipped", now, reason=skipped)
            return _AGAIN
        assert contact is not None and address is not None
        batch.room -= 1
        message = steps.unsent_message(uow, follow_up)  # of a claim given back: stored once, sent as stored
        if message is None:
            text = render(sequence.steps[follow_up.step].text, contact)
            draft = MessageDraft(contact.id, "outbound", campaign.channel, text, "pending", campaign_id=campaign.id)
            message = uow.messages.add(draft, now)
        text = message.content
        uow.linkedin_campaigns.move(follow_up.id, "sending", now, message_id=message.id)
        uow.campaign_send_counts.add(campaign.channel, now.date(), 1)
        claim = _Claim(
            follow_up.recipient_id,
            contact.id,
            campaign.channel,
            batch.provider_account_id,
            address,
            text,
            text,
            follow_up_id=follow_up.id,
            message_id=message.id,
            next_step=steps.following(sequence, follow_up.step),
        )
        return [claim]

    def _refresh(
        self, uow: WorkspaceUnitOfWork, campaign: Campaign, plan: Plan | None, batch: _Batch, now: datetime
    ) -> Step | None:
        """Read what the next claims share into `batch` (up to `BATCH` of them): None, or why none
        may be claimed (the campaign stopped, or the wait until the quotas have room)."""
        if plan is not None and not plan.has(CAMPAIGNS_FEATURE):
            move(uow, campaign, "paused", now, error="The workspace's plan no longer includes campaigns.")
            return _STOP
        channel = uow.channels.by_type(campaign.channel)
        if channel is None or not channel.is_connected or channel.provider_account_id is None:
            skip_pending(uow, campaign.id, CAMPAIGN_FAILED, now)
            move(uow, campaign, "failed", now, error=f"The {campaign.channel} channel is not connected any more.")
            return _STOP
        room = self._room(uow, campaign.channel, plan, now)
        if isinstance(room, _Wait):
            return room
        batch.provider_account_id = channel.provider_account_id
        batch.sequence = steps.plan_of(uow, campaign)
        batch.room = room
        return None

    def _room(self, uow: WorkspaceUnitOfWork, channel: str, plan: Plan | None, now: datetime) -> int | _Wait:
        """How many sends the channel's quotas and the plan's monthly messages leave room for (at
        most `BATCH`), or the wait until there is room for one."""
        counts = uow.campaign_send_counts.since(channel, first_counted_day(now))
        room, opens = self._quotas.room(channel, counts, now)
        if room == 0:
            return _Wait(max(1.0, (opens - now).total_seconds()), f"The {channel} quota is reached.")
        amount = BATCH if room is None else min(BATCH, room)
        if plan is not None:
            uow.usage.lock()  # as `entitlements.reserve`: the count is race-free for this transaction
            month_starts, next_month = month_of(now)
            left = plan.limit(MESSAGES_PER_MONTH) - uow.usage.count(MESSAGES_PER_MONTH, month_starts)
            if left <= 0:
                return _Wait(max(1.0, (next_month - now).total_seconds()), "The plan's messages_per_month is reached.")
            amount = min(amount, left)
        return amount

    def _finish(self, uow: WorkspaceUnitOfWork, campaign: Campaign, now: datetime) -> object:
        if campaign.counters.sent > 0:
            move(uow, campaign, "completed", now)
        else:
            move(uow, campaign, "failed", now, error="No message could be sent to any recipient.")
        logger.info(
            "Campaign %d ended with %d sent of %d.", campaign.id, campaign.counters.sent, campaign.counters.total
        )
        return _STOP

    def _send(self, claim: _Claim) -> _Outcome:
        try:
            if claim.invite:
                sent = self._gateway.invite(claim.provider_account_id, claim.address, claim.text or None)
            else:
                sent = self._gateway.send(claim.provider_account_id, claim.address, claim.text)
        except GatewayUnavailable as exc:
            return _Outcome(claim, "unavailable", error=exc.message)
        except GatewayError as exc:
            return _Outcome(claim, "rejected", error=exc.message)
        return _Outcome(claim, "sent", sent=sent)

    def _give_up(self, account_id: int, campaign_id: int, exc: Exception) -> None:
        """End the campaign `failed` after its job's last allowed run raised. That run still holds
        the job, so whatever is in flight is its own: the claims it had not handed are skipped with
        the pending, and those it handed without recording the answer end `unknown_outcome`."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            campaign = uow.campaigns.get(campaign_id)
            if campaign is None or campaign.status != "running":
                return
            skip_pending(uow, campaign_id, CAMPAIGN_FAILED, now)
            every = now + timedelta(seconds=1)  # `stale_sending` takes rows updated before it: all
            for recipient in uow.campaign_recipients.stale_sending(campaign_id, every):
                _settle_unknown(uow, campaign, recipient, now)
            for follow_up in uow.linkedin_campaigns.stale_sending(campaign_id, every):
                steps.settle_unknown(uow, follow_up, now)
            move(uow, campaign, "failed", now, error=f"Sending failed: {type(exc).__name__}: {exc}")
            uow.commit()


# -- settling -----------------------------------------------------------------------------------


def _move(
    uow: WorkspaceUnitOfWork, campaign_id: int, recipient_id: int, to: str, now: datetime, **fields: object
) -> bool:
    """Move a recipient and count the move on its campaign: whether it moved."""
    old = uow.campaign_recipients.move(recipient_id, to, now, **fields)  # type: ignore[arg-type]
    if old is None:
        return False
    deltas = counter_deltas(old, to)
    if deltas != Counters():
        uow.campaigns.adjust(campaign_id, deltas)
    return True


def _settle(uow: WorkspaceUnitOfWork, campaign_id: int, done: list[_Outcome], now: datetime) -> None:
    """Record the gateway's answers to a batch of claims: the others one by one, then the messages
    sent stored together (`add_many`) with their events, their recipients moved in one round trip
    and counted once, their contacts touched in one statement. A claim settled meanwhile, by a run
    that took over, is left."""
    went: list[tuple[_Claim, MessageDraft]] = []
    for outcome in done:
        claim = outcome.claim
        if claim.follow_up_id is not None:
            _settle_follow_up(uow, campaign_id, outcome, now)
        elif outcome.sent is not None:
            draft = MessageDraft(
                claim.contact_id,
                "outbound",
                claim.channel,
                claim.content,
                "sent",
                sent_at=outcome.sent.sent_at,
                provider_message_id=outcome.sent.provider_message_id,
                campaign_id=campaign_id,
            )
            went.append((claim, draft))
        else:
            _settle_failure(uow, campaign_id, outcome, now)
    if not went:
        return
    sent: list[tuple[_Claim, int, datetime]] = []
    for (claim, _), message in zip(went, uow.messages.add_many([draft for _, draft in went], now), strict=True):
        uow.emit(DomainEvent("message.sent", message.event_payload(), now))
        assert message.sent_at is not None
        sent.append((claim, message.id, message.sent_at))
    moved = set(uow.campaign_recipients.mark_sent([(c.recipient_id, m, at) for c, m, at in sent], now))
    if moved:
        uow.campaigns.adjust(campaign_id, Counters(sent=len(moved)))
    uow.contacts.touch([claim.contact_id for claim, _, _ in sent], now)
    for claim, _, sent_at in sent:
        if claim.recipient_id in moved and claim.next_step is not None:
            step, wait_days = claim.next_step
            due = sent_at + timedelta(days=wait_days)
            uow.linkedin_campaigns.schedule(campaign_id, claim.recipient_id, claim.contact_id, step, due, now)


def _settle_failure(uow: WorkspaceUnitOfWork, campaign_id: int, outcome: _Outcome, now: datetime) -> None:
    """A claim the provider refused, or could not take (an outage): given back for a later attempt,
    or failed with its message after the last."""
    claim = outcome.claim
    error = outcome.error or "The message could not be sent."
    if outcome.status == "unavailable" and claim.attempts + 1 < MAX_UNAVAILABLE:
        if _move(uow, campaign_id, claim.recipient_id, "pending", now, error=error):
            uow.campaign_send_counts.add(claim.channel, now.date(), -1)  # not sent: give it back
        return
    draft = MessageDraft(claim.contact_id, "outbound", claim.channel, claim.content, "failed", error=error[:1000])
    message = uow.messages.add(attrs.evolve(draft, campaign_id=campaign_id), now)
    reason = UNAVAILABLE if outcome.status == "unavailable" else REJECTED
    _move(uow, campaign_id, claim.recipient_id, "failed", now, reason=reason, error=error, message_id=message.id)


def _settle_follow_up(uow: WorkspaceUnitOfWork, campaign_id: int, outcome: _Outcome, now: datetime) -> None:
    """Record the gateway's answer to a LinkedIn sequence's later step."""
    claim = outcome.claim
    assert claim.follow_up_id is not None
    message = None if claim.message_id is None else uow.messages.get(claim.message_id)
    if outcome.status == "sent":
        assert outcome.sent is not None
        if message is not None and message.status == "pending":
            settled = mark_sent(message, outcome.sent.provider_message_id, outcome.sent.sent_at, now)
            uow.messages.update(settled)
            touch_contact(uow, settled.contact_id, now)
            uow.emit(DomainEvent("message.sent", settled.event_payload(), now))
        if uow.linkedin_campaigns.move(claim.follow_up_id, "sent", now) is not None and claim.next_step is not None:
            step, wait_days = claim.next_step
            due = outcome.sent.sent_at + timedelta(days=wait_days)
            uow.linkedin_campaigns.schedule(campaign_id, claim.recipient_id, claim.contact_id, step, due, now)
        return
    error = outcome.error or "The message could not be sent."
    if message is not None and message.status == "pending":
        uow.messages.update(mark_failed(message, error, now))
    steps.settle_failure(uow, claim.follow_up_id, claim.channel, outcome.status, error, now)


def _settle_unknown(uow: WorkspaceUnitOfWork, campaign: Campaign, recipient: Recipient, now: datetime) -> None:
    """A recipient a dead worker handed to the gateway without recording the answer: not sent again,
    failed with an unknown outcome, its message stored `failed` with what it said."""
    error = "The sender stopped between handing the message to the gateway and recording the answer; not sent again."
    message_id = recipient.message_id
    if message_id is not None:  # a claim of a sender before hand-offs were recorded stored its message
        message = uow.messages.get(message_id)
        if message is not None and message.status == "pending":
            uow.messages.update(mark_failed(message, error, now))
    else:
        contact = uow.contacts.get(recipient.contact_id)
        if contact is not None:
            content = _content(uow, campaign, contact)
            draft = MessageDraft(contact.id, "outbound", campaign.channel, content, "failed", error=error)
            message_id = uow.messages.add(attrs.evolve(draft, campaign_id=campaign.id), now).id
    fields: dict[str, object] = {"reason": UNKNOWN_OUTCOME, "error": error}
    if message_id is not None:
        fields["message_id"] = message_id
    _move(uow, campaign.id, recipient.id, "failed", now, **fields)


def _content(uow: WorkspaceUnitOfWork, campaign: Campaign, contact: Contact) -> str:
    """The message the campaign sends the contact as its first step."""
    sequence = steps.plan_of(uow, campaign)
    if sequence is not None and sequence.invites:
        return steps.invitation_text(sequence)
    return render(campaign.message, contact)


def _reach(uow: WorkspaceUnitOfWork, contact: Contact | None, channel: str) -> tuple[str | None, str | None]:
    """Why a recipient is skipped at its send (its contact changed since the snapshot), or None; and
    where the channel reaches the contact (None when it is skipped): its handle is read once."""
    if contact is None:
        return CONTACT_DELETED, None
    if contact.blacklisted:
        return BLACKLISTED, None
    address = _address(uow, contact, channel)
    if contact.type != channel:
        return OTHER_CHANNEL, None
    if address is None:
        return NO_ADDRESS, None
    return None, address


def _address(uow: WorkspaceUnitOfWork, contact: Contact, channel: str) -> str | None:
    """Where the channel reaches the contact: its phone (WhatsApp, Telegram) or handle (Instagram, LinkedIn)."""
    if contact.type != channel:
        return None
    if channel in PHONE_ADDRESSED:
        return contact.phone or None
    return uow.handles.handle_of(contact.id, channel)
