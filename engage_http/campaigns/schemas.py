"""Request and response bodies of the campaign endpoints (SPEC 4 Campaigns leaves them "not shown";
these are ours, documented in docs/campaigns.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import attrs

from engage_core.campaigns import model as domain
from engage_core.campaigns.model import CampaignChannel, CampaignStatus, RecipientReason, RecipientStatus
from engage_core.campaigns.service import CampaignInput, CampaignPatch
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import Doc, Integer, Items, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Id, Name

Message = Annotated[
    str,
    Text(max_length=domain.MESSAGE_MAX, blank=False),
    Doc(
        description="The text, with contact placeholders: `{{name}}`, `{{first_name}}`, `{{company}}`, `{{email}}`, "
        "`{{phone}}`, `{{address}}`; `{{field|fallback}}` reads the fallback where the contact lacks the field. "
        "An unknown placeholder is a 422.",
        example="Hi {{first_name|there}}, our spring sale starts today.",
    ),
]
AudienceIds = Annotated[tuple[Id, ...], Items(max_items=domain.AUDIENCE_IDS_MAX)]
StartsAt = Annotated[
    str,
    Text(max_length=64),
    Doc(
        description="When to start, ISO 8601. Without an offset it is read in the workspace's timezone (its booking "
        "setup's, UTC until set); with one, as given. Left out or null: at once when started.",
        example="2026-03-01T09:00:00",
    ),
]
SendRate = Annotated[
    int,
    Integer(minimum=domain.SEND_RATE_MIN, maximum=domain.SEND_RATE_MAX),
    Doc(description="Messages per minute.", example=60),
]


@structures_into(CampaignInput)
@attrs.frozen
class CampaignCreate:
    """A new campaign, created as a `draft`. The audience is contacts by id, lists, segments or any mix (at
    least one id in all); it is resolved when the campaign starts."""

    name: Name
    channel: CampaignChannel
    message: Message
    contact_ids: AudienceIds = ()
    list_ids: AudienceIds = ()
    segment_ids: AudienceIds = ()
    starts_at: StartsAt | None = None
    send_rate: SendRate = domain.DEFAULT_SEND_RATE


@structures_into(CampaignPatch)
@attrs.frozen
class CampaignUpdate:
    """Any subset of a draft's fields; those left out keep their value."""

    name: Name | Unset = UNSET
    channel: CampaignChannel | Unset = UNSET
    message: Message | Unset = UNSET
    contact_ids: AudienceIds | Unset = UNSET
    list_ids: AudienceIds | Unset = UNSET
    segment_ids: AudienceIds | Unset = UNSET
    starts_at: StartsAt | Unset | None = UNSET
    send_rate: SendRate | Unset = UNSET


@structures_into(domain.CampaignFilter)
@attrs.frozen
class CampaignFilters:
    """Query filters of `GET /campaigns`."""

    status: CampaignStatus | None = None
    channel: CampaignChannel | None = None


@structures_into(domain.RecipientFilter)
@attrs.frozen
class RecipientFilters:
    """Query filters of `GET /campaigns/{id}/contacts`."""

    status: RecipientStatus | None = None
    reason: RecipientReason | None = attrs.field(
        default=None, metadata={"description": "A skip or failure reason: " + ", ".join(domain.REASONS) + "."}
    )


@attrs.frozen
class Audience:
    """Who the campaign is for."""

    contact_ids: tuple[int, ...]
    list_ids: tuple[int, ...]
    segment_ids: tuple[int, ...]


@attrs.frozen
class CampaignStats:
    """The recipients by outcome: `sent` counts every message that went (delivered and read ones
    too), `delivered` those delivered or read; `pending` those not settled yet (in flight included)."""

    pending: int
    sent: int
    delivered: int
    read: int
    failed: int
    skipped: int


@attrs.frozen
class Campaign:
    """A campaign. `total_contacts`, `success_count` and `failed_count` are its `campaign.*` event fields."""

    id: int
    name: str
    channel: CampaignChannel
    message: str
    audience: Audience
    starts_at: datetime | None
    send_rate: int
    status: CampaignStatus
    total_contacts: int
    success_count: int
    failed_count: int
    stats: CampaignStats
    error: str | None = attrs.field(metadata={"description": "Why the campaign failed or was paused by the system."})
    started_at: datetime | None
    completed_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, c: domain.Campaign) -> Campaign:
        n = c.counters
        return cls(
            id=c.id,
            name=c.name,
            channel=c.channel,  # type: ignore[arg-type]
            message=c.message,
            audience=Audience(c.audience.contact_ids, c.audience.list_ids, c.audience.segment_ids),
            starts_at=c.starts_at,
            send_rate=c.send_rate,
            status=c.status,  # type: ignore[arg-type]
            total_contacts=n.total,
            success_count=n.sent,
            failed_count=n.failed,
            stats=CampaignStats(n.pending, n.sent, n.delivered, n.read, n.failed, n.skipped),
            error=c.error,
            started_at=c.started_at,
            completed_at=c.completed_at,
            created_at=c.created_at,
            updated_at=c.updated_at,
        )


@renders(domain.RecipientView)
@attrs.frozen
class CampaignContact:
    """One recipient of a campaign: its contact (name and phone null once the contact is deleted), its
    delivery status, and for a skipped or failed one why (`reason`, and the provider's `error`)."""

    id: int
    contact_id: int
    name: str | None
    phone: str | None
    status: RecipientStatus
    reason: str | None
    error: str | None
    message_id: int | None = attrs.field(metadata={"description": "The message sent (or being sent)."})
    attempts: int
    sent_at: datetime | None
    updated_at: datetime
