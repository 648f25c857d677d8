"""Campaigns and their recipients: the entities, the states they move through, and the counters.

Campaign statuses and the moves between them (SPEC 3 leaves the source states of the operations
open; these are ours)::

    draft     --start-->  running | scheduled   (scheduled while `starts_at` is in the future)
    scheduled --(starts_at reached, by the sender)-->  running
    scheduled --cancel--> cancelled
    running   --pause-->  paused
    running   --cancel--> cancelled
    running   --(nothing pending, by the sender)--> completed | failed
    running   --(channel gone, by the sender)--> failed
    paused    --resume--> running
    paused    --cancel--> cancelled
    completed, cancelled, failed: final

Only a draft is edited (PUT); a draft or a cancelled campaign is deleted (SPEC 3). Every move into
`running`, `paused`, `cancelled`, `completed` or `failed` emits the matching `campaign.*` event
(`campaign.started` for every move into `running`: the first start, a scheduled start and a
resume alike; the catalogue has no `resumed`).

Recipient statuses, ranked; a recipient only moves up the rank (receipts included)::

    pending -> sending -> sent -> delivered -> read
    pending | sending -> skipped            (blacklisted, not on the channel, cancelled, ...)
    pending | sending -> failed             (the provider refused, or the outcome is unknown)

`sending` is the sender's claim, written for a batch of recipients before any of them is sent;
`handed_at` is then written for each one, in a commit of its own, just before the gateway gets it.
A claim not yet handed is certainly unsent, so it may go back: to `pending` when the campaign is
paused, the provider was unavailable (`GatewayUnavailable`: nothing was sent) or the sender
stopped; to `skipped` when the campaign is cancelled or fails. A handed recipient only moves
forward: `sent`, or `failed` when the provider refused or the outcome is unknown (the sender died
before it recorded the answer).

Counters are kept on the campaign row in the transaction of every recipient move, through
`counter_deltas`: `sent` counts recipients whose message went (sent, delivered or read),
`delivered` those delivered or read, `read` those read; `failed` and `skipped` their statuses;
`total` every recipient. What is neither sent, failed nor skipped is pending (or in flight).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, get_args

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageLimits

CampaignStatus = Literal["draft", "scheduled", "running", "paused", "completed", "cancelled", "failed"]
CAMPAIGN_STATUSES: tuple[str, ...] = get_args(CampaignStatus)
RecipientStatus = Literal["pending", "sending", "sent", "delivered", "read", "failed", "skipped"]
RECIPIENT_STATUSES: tuple[str, ...] = get_args(RecipientStatus)
CampaignChannel = Literal["whatsapp", "telegram", "instagram", "linkedin"]
CAMPAIGN_CHANNELS: tuple[str, ...] = get_args(CampaignChannel)

ACTIVE = frozenset({"running", "paused"})
"""Statuses that hold the campaign's channel (SPEC 3: a WhatsApp disconnect is then a 422)."""
FINAL = frozenset({"completed", "cancelled", "failed"})
EDITABLE = frozenset({"draft"})
DELETABLE = frozenset({"draft", "cancelled"})

SOURCES: Mapping[str, frozenset[str]] = {
    "start": frozenset({"draft"}),
    "pause": frozenset({"running"}),
    "resume": frozenset({"paused"}),
    "cancel": frozenset({"scheduled", "running", "paused"}),
}
"""The statuses each operation accepts; any other is a 422."""

EVENTS: Mapping[str, str] = {
    "running": "campaign.started",
    "paused": "campaign.paused",
    "cancelled": "campaign.cancelled",
    "completed": "campaign.completed",
    "failed": "campaign.failed",
}
"""The event every move into a status emits."""

NAME_MAX = 255
MESSAGE_MAX = 4096
ERROR_MAX = 1000
AUDIENCE_IDS_MAX = 1000
"""Ids of one kind (contacts, lists or segments) one audience may name."""
SEND_RATE_MIN = 1
SEND_RATE_MAX = 60_000
"""Messages per minute: from one a minute to a thousand a second (the gateway's pace decides beyond)."""
DEFAULT_SEND_RATE = 60

CAMPAIGNS = PageLimits(default=25)
"""`GET /campaigns`: SPEC 8 gives no numbers; like the other work lists (tickets, knowledge base)."""
RECIPIENTS = PageLimits(default=25)
"""`GET /campaigns/{id}/contacts`."""

# Why a recipient was skipped or failed (`Recipient.reason`).
BLACKLISTED = "blacklisted"
OTHER_CHANNEL = "other_channel"
NO_ADDRESS = "no_address"
CONTACT_DELETED = "contact_deleted"
CANCELLED = "cancelled"
CAMPAIGN_FAILED = "campaign_failed"
REJECTED = "rejected"
UNAVAILABLE = "unavailable"
UNKNOWN_OUTCOME = "unknown_outcome"
REPLIED = "replied"
"""A LinkedIn sequence's recipient who wrote back before its message went (`engage_core.linkedin`)."""
REASONS: tuple[str, ...] = (
    BLACKLISTED,
    OTHER_CHANNEL,
    NO_ADDRESS,
    CONTACT_DELETED,
    CANCELLED,
    CAMPAIGN_FAILED,
    REJECTED,
    UNAVAILABLE,
    UNKNOWN_OUTCOME,
    REPLIED,
)

RecipientReason = Literal[
    "blacklisted",
    "other_channel",
    "no_address",
    "contact_deleted",
    "cancelled",
    "campaign_failed",
    "rejected",
    "unavailable",
    "unknown_outcome",
    "replied",
]
"""`REASONS` as a type: what the recipients list filters on."""
assert get_args(RecipientReason) == REASONS

RANK: Mapping[str, int] = {"pending": 0, "sending": 1, "sent": 2, "delivered": 3, "read": 4, "failed": 5, "skipped": 5}
MOVES: Mapping[str, frozenset[str]] = {
    "pending": frozenset({"sending", "skipped", "failed"}),
    # `pending`: a claim given back unsent (a pause, an outage); `skipped`: one cancelled unsent.
    "sending": frozenset({"sent", "failed", "pending", "skipped"}),
    "sent": frozenset({"delivered", "read"}),
    "delivered": frozenset({"read"}),
    "read": frozenset(),
    "failed": frozenset(),
    "skipped": frozenset(),
}
"""Every recipient status's outgoing moves."""

COUNTERS: tuple[str, ...] = ("total", "sent", "delivered", "read", "failed", "skipped")


@attrs.frozen
class Audience:
    """Who a campaign is for: contacts by id, the members of lists and of segments, any mix (at
    least one id in all). Resolved once, at the start, into the recipients (deduplicated)."""

    contact_ids: tuple[int, ...] = ()
    list_ids: tuple[int, ...] = ()
    segment_ids: tuple[int, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.contact_ids or self.list_ids or self.segment_ids)

    def to_json(self) -> dict[str, list[int]]:
        return {
            "contact_ids": list(self.contact_ids),
            "list_ids": list(self.list_ids),
            "segment_ids": list(self.segment_ids),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Sequence[int]]) -> Audience:
        return cls(
            tuple(data.get("contact_ids", ())), tuple(data.get("list_ids", ())), tuple(data.get("segment_ids", ()))
        )


@attrs.frozen
class Counters:
    """A campaign's tallies of its recipients (see the module notes)."""

    total: int = 0
    sent: int = 0
    delivered: int = 0
    read: int = 0
    failed: int = 0
    skipped: int = 0

    @property
    def pending(self) -> int:
        """Recipients not yet settled: pending, or in flight (`sending`)."""
        return self.total - self.sent - self.failed - self.skipped

    def plus(self, other: Counters) -> Counters:
        return Counters(*(getattr(self, name) + getattr(other, name) for name in COUNTERS))

    @classmethod
    def of(cls, statuses: Mapping[str, int]) -> Counters:
        """The counters of recipients counted by status."""
        n = {status: statuses.get(status, 0) for status in RECIPIENT_STATUSES}
        return cls(
            total=sum(n.values()),
            sent=n["sent"] + n["delivered"] + n["read"],
            delivered=n["delivered"] + n["read"],
            read=n["read"],
            failed=n["failed"],
            skipped=n["skipped"],
        )


def counter_deltas(old: str, new: str) -> Counters:
    """How a recipient's move from `old` to `new` changes its campaign's counters."""
    before, after = Counters.of({old: 1}), Counters.of({new: 1})
    return Counters(*(getattr(after, name) - getattr(before, name) for name in COUNTERS))


def can_move(old: str, new: str) -> bool:
    return new in MOVES[old]


@attrs.frozen
class CampaignDraft:
    """A validated new campaign, before it has an id (it starts as a `draft`)."""

    name: str
    channel: str
    message: str
    audience: Audience
    starts_at: datetime | None = None
    send_rate: int = DEFAULT_SEND_RATE


@attrs.frozen
class Campaign:
    id: int
    name: str
    channel: str
    message: str
    audience: Audience
    starts_at: datetime | None
    send_rate: int
    status: str
    counters: Counters
    error: str | None
    started_at: datetime | None
    completed_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def event_payload(self) -> Mapping[str, Any]:
        """`campaign.*` data (SPEC 6): the campaign as it is after the move."""
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "total_contacts": self.counters.total,
            "success_count": self.counters.sent,
            "failed_count": self.counters.failed,
            "started_at": format_optional(self.started_at),
            "completed_at": format_optional(self.completed_at),
            "updated_at": format_timestamp(self.updated_at),
        }


def check_operation(campaign: Campaign, operation: str) -> None:
    """Raise ValidationFailed (422) unless the campaign's status accepts `operation`."""
    sources = SOURCES[operation]
    if campaign.status not in sources:
        allowed = ", ".join(sorted(sources))
        raise ValidationFailed.on(
            "status", f"A {campaign.status} campaign cannot be {_PAST[operation]}; only a {allowed} one can."
        )


_PAST = {"start": "started", "pause": "paused", "resume": "resumed", "cancel": "cancelled"}


def moved(campaign: Campaign, status: str, now: datetime, *, error: str | None = None) -> Campaign:
    """The campaign after a move into `status` (timestamps follow: `started_at` on the first run,
    `completed_at` on a final status)."""
    started = campaign.started_at if campaign.started_at is not None or status != "running" else now
    completed = now if status in FINAL else campaign.completed_at
    kept_error = campaign.error if error is None else error[:ERROR_MAX]
    return attrs.evolve(
        campaign, status=status, started_at=started, completed_at=completed, error=kept_error, updated_at=now
    )


@attrs.frozen
class CampaignFilter:
    """Filters of `GET /campaigns`."""

    status: str | None = None
    channel: str | None = None


@attrs.frozen
class Recipient:
    """One contact of a campaign's snapshot. `message_id`: the message sent to it. `handed_at`:
    when a `sending` recipient was handed to the gateway (None while it is only claimed)."""

    id: int
    campaign_id: int
    contact_id: int
    status: str
    reason: str | None
    error: str | None
    message_id: int | None
    attempts: int
    sent_at: datetime | None
    updated_at: datetime
    handed_at: datetime | None = None


@attrs.frozen
class RecipientView:
    """A recipient as `GET /campaigns/{id}/contacts` lists it, with its contact's name and phone
    (None when the contact was deleted since)."""

    id: int
    contact_id: int
    name: str | None
    phone: str | None
    status: str
    reason: str | None
    error: str | None
    message_id: int | None
    attempts: int
    sent_at: datetime | None
    updated_at: datetime

    @classmethod
    def of(cls, recipient: Recipient, name: str | None, phone: str | None) -> RecipientView:
        r = recipient
        return cls(
            r.id,
            r.contact_id,
            name,
            phone,
            r.status,
            r.reason,
            r.error,
            r.message_id,
            r.attempts,
            r.sent_at,
            r.updated_at,
        )


@attrs.frozen
class RecipientFilter:
    """Filters of `GET /campaigns/{id}/contacts`."""

    status: str | None = None
    reason: str | None = None
