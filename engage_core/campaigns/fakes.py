"""In-memory fakes of the campaigns area's ports (campaigns, recipients, send counts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime

import attrs

from engage_core.campaigns.model import (
    BLACKLISTED,
    NO_ADDRESS,
    OTHER_CHANNEL,
    Campaign,
    CampaignDraft,
    CampaignFilter,
    Counters,
    Recipient,
    RecipientFilter,
    RecipientView,
    can_move,
)
from engage_core.contacts.fakes import ContactsTables, InMemorySegmentRepository
from engage_core.contacts.model import Contact
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.messaging.fakes import MessagingTables
from engage_core.messaging.message_service import PHONE_ADDRESSED


@attrs.define
class CampaignsTables(Tables):
    """Campaigns and recipients by id (with their account), each campaign's recipient ids in
    snapshot order, and the send counts by (account, channel, day)."""

    MUTABLE_ROWS = frozenset({"campaign_recipient_ids"})

    campaigns: dict[int, tuple[int, Campaign]] = attrs.Factory(dict)
    campaign_recipients: dict[int, tuple[int, Recipient]] = attrs.Factory(dict)
    campaign_recipient_ids: dict[int, list[int]] = attrs.Factory(dict)
    campaign_send_counts: dict[tuple[int, str, date], int] = attrs.Factory(dict)


class _Repo(Repo):
    @property
    def _t(self) -> CampaignsTables:
        """This area's tables, as the transaction sees them."""
        return self._state.of(CampaignsTables)

    def _campaign(self, campaign_id: int) -> Campaign | None:
        row = self._t.campaigns.get(campaign_id)
        return None if row is None or row[0] != self._account else row[1]


class InMemoryCampaignRepository(_Repo):
    """The in-memory :class:`.CampaignRepository`."""

    def add(self, draft: CampaignDraft, now: datetime) -> Campaign:
        """In memory, as :meth:`.CampaignRepository.add`."""
        campaign = Campaign(
            id=self._store.next_id(),
            name=draft.name,
            channel=draft.channel,
            message=draft.message,
            audience=draft.audience,
            starts_at=draft.starts_at,
            send_rate=draft.send_rate,
            status="draft",
            counters=Counters(),
            error=None,
            started_at=None,
            completed_at=None,
            created_at=now,
            updated_at=now,
        )
        self._t.campaigns[campaign.id] = (self._account, campaign)
        self._t.campaign_recipient_ids[campaign.id] = []
        return campaign

    def get(self, campaign_id: int) -> Campaign | None:
        """In memory, as :meth:`.CampaignRepository.get`."""
        return self._campaign(campaign_id)

    def find(self, filters: CampaignFilter, page: PageRequest) -> Page[Campaign]:
        """In memory, as :meth:`.CampaignRepository.find`."""
        mine = [
            c
            for (a, c) in self._t.campaigns.values()
            if a == self._account
            and (filters.status is None or c.status == filters.status)
            and (filters.channel is None or c.channel == filters.channel)
        ]
        return paginate(sorted(mine, key=lambda c: (c.created_at, c.id), reverse=True), page)

    def update(self, campaign: Campaign) -> None:
        """In memory, as :meth:`.CampaignRepository.update`."""
        current = self._campaign(campaign.id)
        if current is not None:
            kept = attrs.evolve(campaign, counters=current.counters, created_at=current.created_at)
            self._t.campaigns[campaign.id] = (self._account, kept)

    def adjust(self, campaign_id: int, deltas: Counters) -> None:
        """In memory, as :meth:`.CampaignRepository.adjust`."""
        current = self._campaign(campaign_id)
        if current is not None:
            self._t.campaigns[campaign_id] = (
                self._account,
                attrs.evolve(current, counters=current.counters.plus(deltas)),
            )

    def delete(self, campaign_id: int) -> None:
        """In memory, as :meth:`.CampaignRepository.delete`."""
        if self._campaign(campaign_id) is None:
            return
        del self._t.campaigns[campaign_id]
        for recipient_id in self._t.campaign_recipient_ids.pop(campaign_id, []):
            self._t.campaign_recipients.pop(recipient_id, None)

    def active_on(self, channel: str) -> bool:
        """In memory, as :meth:`.CampaignRepository.active_on`."""
        return any(a == self._account and c.channel == channel and c.active for (a, c) in self._t.campaigns.values())


class InMemoryRecipientRepository(_Repo):
    """The in-memory :class:`.RecipientRepository`."""

    def _mine(self, campaign_id: int) -> list[Recipient]:
        if self._campaign(campaign_id) is None:
            return []
        return [self._t.campaign_recipients[r][1] for r in self._t.campaign_recipient_ids.get(campaign_id, [])]

    def snapshot(self, campaign: Campaign, now: datetime) -> Counters:
        """In memory, as :meth:`.RecipientRepository.snapshot`."""
        if self._campaign(campaign.id) is None or self._t.campaign_recipient_ids.get(campaign.id):
            return Counters()
        contacts = self._state.of(ContactsTables)
        mine = {cid for cid, (a, _) in contacts.contacts.items() if a == self._account}
        chosen = set(campaign.audience.contact_ids) & mine
        for list_id in campaign.audience.list_ids:
            row = contacts.lists.get(list_id)
            if row is not None and row[0] == self._account:
                chosen.update(contacts.list_members.get(list_id, []))
        segments = InMemorySegmentRepository(self._store, self._state, self._account)
        for segment_id in campaign.audience.segment_ids:
            found = contacts.segments.get(segment_id)
            if found is not None and found[0] == self._account:
                chosen.update(segments._member_ids(found[1], now))
        statuses: dict[str, int] = {}
        ids = self._t.campaign_recipient_ids.setdefault(campaign.id, [])
        for contact_id in sorted(chosen):
            contact = contacts.contacts[contact_id][1]
            reason = self._reason(contact, campaign.channel)
            status = "pending" if reason is None else "skipped"
            recipient = Recipient(
                self._store.next_id(), campaign.id, contact_id, status, reason, None, None, 0, None, now
            )
            self._t.campaign_recipients[recipient.id] = (self._account, recipient)
            ids.append(recipient.id)
            statuses[status] = statuses.get(status, 0) + 1
        return Counters.of(statuses)

    def _reason(self, contact: Contact, channel: str) -> str | None:
        if contact.blacklisted:
            return BLACKLISTED
        if contact.type != channel:
            return OTHER_CHANNEL
        if channel in PHONE_ADDRESSED:
            return None if contact.phone else NO_ADDRESS
        handles = self._state.of(MessagingTables).handles
        linked = any(a == self._account and c == channel and cid == contact.id for (a, c, _), cid in handles.items())
        return None if linked else NO_ADDRESS

    def claim(self, campaign_id: int, limit: int, now: datetime) -> Sequence[Recipient]:
        """In memory, as :meth:`.RecipientRepository.claim`."""
        claimed: list[Recipient] = []
        for recipient in self._mine(campaign_id):
            if len(claimed) >= limit:
                break
            if recipient.status == "pending":
                moved = attrs.evolve(recipient, status="sending", handed_at=None, updated_at=now)
                self._t.campaign_recipients[recipient.id] = (self._account, moved)
                claimed.append(moved)
        return claimed

    def hand(self, recipient_id: int, now: datetime) -> bool:
        """In memory, as :meth:`.RecipientRepository.hand`."""
        current = self.get(recipient_id)
        if current is None or current.status != "sending" or current.handed_at is not None:
            return False
        handed = attrs.evolve(current, handed_at=now, attempts=current.attempts + 1, updated_at=now)
        self._t.campaign_recipients[recipient_id] = (self._account, handed)
        return True

    def release(
        self,
        campaign_id: int,
        to: str,
        now: datetime,
        *,
        recipient_ids: Sequence[int] | None = None,
        reason: str | None = None,
    ) -> int:
        """In memory, as :meth:`.RecipientRepository.release`."""
        chosen = None if recipient_ids is None else set(recipient_ids)
        released = 0
        for recipient in self._mine(campaign_id):
            if recipient.status != "sending" or recipient.handed_at is not None:
                continue
            if chosen is not None and recipient.id not in chosen:
                continue
            moved = attrs.evolve(
                recipient,
                status=to,
                reason=recipient.reason if reason is None else reason,
                updated_at=now,
            )
            self._t.campaign_recipients[recipient.id] = (self._account, moved)
            released += 1
        return released

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
        """In memory, as :meth:`.RecipientRepository.move`."""
        current = self.get(recipient_id)
        if current is None or not can_move(current.status, to):
            return None
        moved = attrs.evolve(
            current,
            status=to,
            reason=current.reason if reason is None else reason,
            error=current.error if error is None else error,
            message_id=current.message_id if message_id is None else message_id,
            sent_at=current.sent_at if sent_at is None else sent_at,
            attempts=current.attempts + (1 if to == "sending" else 0),
            updated_at=now,
        )
        self._t.campaign_recipients[recipient_id] = (self._account, moved)
        return current.status

    def mark_sent(self, sent: Sequence[tuple[int, int, datetime]], now: datetime) -> Sequence[int]:
        """In memory, as :meth:`.RecipientRepository.mark_sent`."""
        return [
            recipient_id
            for recipient_id, message_id, sent_at in sent
            if self.move(recipient_id, "sent", now, message_id=message_id, sent_at=sent_at) == "sending"
        ]

    def move_all(self, campaign_id: int, old: str, to: str, now: datetime, *, reason: str) -> Sequence[Recipient]:
        """In memory, as :meth:`.RecipientRepository.move_all`."""
        found = [r for r in self._mine(campaign_id) if r.status == old and can_move(old, to)]
        for recipient in found:
            moved = attrs.evolve(recipient, status=to, reason=reason, updated_at=now)
            self._t.campaign_recipients[recipient.id] = (self._account, moved)
        return found

    def stale_sending(self, campaign_id: int, claimed_before: datetime) -> Sequence[Recipient]:
        """In memory, as :meth:`.RecipientRepository.stale_sending`."""
        return [r for r in self._mine(campaign_id) if r.status == "sending" and r.updated_at < claimed_before]

    def by_message(self, message_id: int) -> Recipient | None:
        """In memory, as :meth:`.RecipientRepository.by_message`."""
        return next(
            (r for (a, r) in self._t.campaign_recipients.values() if a == self._account and r.message_id == message_id),
            None,
        )

    def get(self, recipient_id: int) -> Recipient | None:
        """In memory, as :meth:`.RecipientRepository.get`."""
        row = self._t.campaign_recipients.get(recipient_id)
        return None if row is None or row[0] != self._account else row[1]

    def find(self, campaign_id: int, filters: RecipientFilter, page: PageRequest) -> Page[RecipientView]:
        """In memory, as :meth:`.RecipientRepository.find`."""
        contacts = self._state.of(ContactsTables).contacts
        chosen = [
            r
            for r in self._mine(campaign_id)
            if (filters.status is None or r.status == filters.status)
            and (filters.reason is None or r.reason == filters.reason)
        ]

        def view(recipient: Recipient) -> RecipientView:
            row = contacts.get(recipient.contact_id)
            contact = None if row is None or row[0] != self._account else row[1]
            return RecipientView.of(
                recipient, None if contact is None else contact.name, None if contact is None else contact.phone
            )

        return paginate(chosen, page).map(view)

    def statuses(self, campaign_id: int) -> Mapping[str, int]:
        """In memory, as :meth:`.RecipientRepository.statuses`."""
        counted: dict[str, int] = {}
        for recipient in self._mine(campaign_id):
            counted[recipient.status] = counted.get(recipient.status, 0) + 1
        return counted


class InMemorySendCountRepository(_Repo):
    """The in-memory :class:`.SendCountRepository`."""

    def add(self, channel: str, day: date, amount: int) -> None:
        """In memory, as :meth:`.SendCountRepository.add`."""
        key = (self._account, channel, day)
        self._t.campaign_send_counts[key] = self._t.campaign_send_counts.get(key, 0) + amount

    def since(self, channel: str, first_day: date) -> Mapping[date, int]:
        """In memory, as :meth:`.SendCountRepository.since`."""
        return {
            day: n
            for (a, c, day), n in self._t.campaign_send_counts.items()
            if a == self._account and c == channel and day >= first_day
        }


AREA = FakeArea(
    CampaignsTables,
    workspace={
        "campaigns": InMemoryCampaignRepository,
        "campaign_recipients": InMemoryRecipientRepository,
        "campaign_send_counts": InMemorySendCountRepository,
    },
)
