"""What campaigns need from storage: the campaigns, their recipients, and the per-channel send
counts the quotas are checked against."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Protocol

from engage_core.campaigns.model import (
    Campaign,
    CampaignDraft,
    CampaignFilter,
    Counters,
    Recipient,
    RecipientFilter,
    RecipientView,
)
from engage_core.kernel.pagination import Page, PageRequest


class CampaignRepository(Protocol):
    """Campaigns of one account. A campaign's counters change only through `adjust`, in the
    transaction of the recipient moves they count."""

    def add(self, draft: CampaignDraft, now: datetime) -> Campaign:
        """Store a new `draft` campaign with zero counters; `created_at` = `updated_at` = `now`."""

    def get(self, campaign_id: int) -> Campaign | None:
        """The campaign, or None. In a write unit of work the row stays locked until the transaction
        ends (PostgreSQL `FOR UPDATE`; SQLite's writer lock), so moves of one campaign run one after
        the other."""

    def find(self, filters: CampaignFilter, page: PageRequest) -> Page[Campaign]:
        """The campaigns passing `filters`, newest first (`created_at`, then `id`, descending)."""

    def update(self, campaign: Campaign) -> None:
        """Store every field but `id`, `counters` and `created_at`."""

    def adjust(self, campaign_id: int, deltas: Counters) -> None:
        """Add `deltas` to the campaign's counters (an atomic increment, never a read-modify-write)."""

    def delete(self, campaign_id: int) -> None:
        """Delete the campaign with its recipients (their messages stay: they belong to the contacts)."""

    def active_on(self, channel: str) -> bool:
        """Whether a campaign on this channel is running or paused."""


class RecipientRepository(Protocol):
    """The recipients of the account's campaigns: each contact at most once per campaign (unique
    on `(campaign_id, contact_id)`). Every move is conditional on the status it starts from, so two
    writers never both make the same move; a method that moves recipients returns what moved, for
    the caller to adjust the counters in the same transaction."""

    def snapshot(self, campaign: Campaign, now: datetime) -> Counters:
        """Resolve the campaign's audience once into its recipients, in one set operation over the
        database (never a statement per contact): every contact named, in a list or in a segment
        (as its membership reads at `now`), once. A blacklisted contact is `skipped` (`blacklisted`),
        one of another channel too (`other_channel`), one of the channel without a phone (WhatsApp,
        Telegram) or handle (Instagram, LinkedIn) too (`no_address`); the others are `pending`.
        Ordered by contact id. The counters of what was stored (nothing, when the campaign has
        recipients already)."""

    def claim(self, campaign_id: int, limit: int, now: datetime) -> Sequence[Recipient]:
        """Move up to `limit` of the campaign's pending recipients, lowest ids first, to `sending`
        (claimed, not yet handed: `handed_at` None), in one statement: the recipients as claimed.
        A recipient another transaction is claiming is passed over (PostgreSQL `SKIP LOCKED`), so
        two senders never claim the same one."""

    def hand(self, recipient_id: int, now: datetime) -> bool:
        """Record that the claimed recipient is being handed to the gateway (`handed_at`, one more
        attempt), if it is still claimed and not yet handed: whether it may be sent. False when a
        pause, a cancel or another sender took the claim back. Its unit of work does nothing else
        and commits at once (the hand-off must be durable before the send): an adapter may commit
        it by itself."""

    def release(
        self,
        campaign_id: int,
        to: str,
        now: datetime,
        *,
        recipient_ids: Sequence[int] | None = None,
        reason: str | None = None,
    ) -> int:
        """Move the campaign's claims not yet handed (`sending` with no `handed_at`; all of them, or
        those of `recipient_ids`) to `to` (`pending` or `skipped`), with `reason` when given, in one
        statement: how many moved."""

    def move(
        self,
        recipient_id: int,
        to: str,
        now: datetime,
        *,
        reason: str | None = None,
        error: str | None = None,
        message_id: int | None = None,
        sent_at: datetime | None = None,
    ) -> str | None:
        """Move the recipient to `to` if its status allows it (`model.MOVES`): the status it had, or
        None when it did not move. `reason`, `error`, `message_id` and `sent_at` are stored when
        given; a move to `sending` counts an attempt."""

    def mark_sent(self, sent: Sequence[tuple[int, int, datetime]], now: datetime) -> Sequence[int]:
        """Move each recipient of `sent` (`(recipient_id, message_id, sent_at)`) from `sending` to
        `sent` with its message and time, in one round trip: the ids that moved (one a run that
        took over settled meanwhile is left)."""

    def move_all(self, campaign_id: int, old: str, to: str, now: datetime, *, reason: str) -> Sequence[Recipient]:
        """Move every recipient of the campaign in status `old` to `to` with `reason`, in one
        statement: the recipients as they were before."""

    def stale_sending(self, campaign_id: int, claimed_before: datetime) -> Sequence[Recipient]:
        """The campaign's recipients left in `sending` since before `claimed_before` (`updated_at`)."""

    def by_message(self, message_id: int) -> Recipient | None:
        """The recipient the message was sent to, if it was a campaign's."""

    def get(self, recipient_id: int) -> Recipient | None:
        """The recipient, or None."""

    def find(self, campaign_id: int, filters: RecipientFilter, page: PageRequest) -> Page[RecipientView]:
        """The campaign's recipients passing `filters`, in snapshot order (id ascending), with their
        contacts' name and phone."""

    def statuses(self, campaign_id: int) -> Mapping[str, int]:
        """How many recipients of the campaign are in each status (those with none left out)."""


class SendCountRepository(Protocol):
    """Campaign messages handed to the gateway, per channel and UTC day: what the quotas count."""

    def add(self, channel: str, day: date, amount: int) -> None:
        """Count `amount` more sends (negative: give back) on the channel on `day`."""

    def since(self, channel: str, first_day: date) -> Mapping[date, int]:
        """The counts of the channel's days from `first_day` on."""


class CampaignsRepositories(Protocol):
    """The campaigns area's repositories, as a workspace unit of work hands them out."""

    @property
    def campaigns(self) -> CampaignRepository:
        """The campaigns."""

    @property
    def campaign_recipients(self) -> RecipientRepository:
        """The campaigns' recipients."""

    @property
    def campaign_send_counts(self) -> SendCountRepository:
        """The campaign sends per channel and day."""
