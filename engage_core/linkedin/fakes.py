"""In-memory fakes of the LinkedIn area's ports (campaign plans, follow-ups)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import attrs

from engage_core.campaigns.fakes import CampaignsTables
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.linkedin.model import FollowUp, LinkedInPlan, can_move_follow_up
from engage_core.messaging.fakes import MessagingTables


@attrs.define
class LinkedInTables(Tables):
    """Plans by campaign id and follow-ups by id (each with its account)."""

    linkedin_plans: dict[int, tuple[int, LinkedInPlan]] = attrs.Factory(dict)
    linkedin_follow_ups: dict[int, tuple[int, FollowUp]] = attrs.Factory(dict)


class InMemoryLinkedInCampaignRepository(Repo):
    """The in-memory :class:`.LinkedInCampaignRepository`."""

    @property
    def _t(self) -> LinkedInTables:
        return self._state.of(LinkedInTables)

    def _campaign_exists(self, campaign_id: int) -> bool:
        row = self._state.of(CampaignsTables).campaigns.get(campaign_id)
        return row is not None and row[0] == self._account

    def _mine(self, campaign_id: int) -> list[FollowUp]:
        if not self._campaign_exists(campaign_id):  # gone with its campaign
            return []
        return [
            f for (a, f) in self._t.linkedin_follow_ups.values() if a == self._account and f.campaign_id == campaign_id
        ]

    def add_plan(self, campaign_id: int, plan: LinkedInPlan) -> None:
        """In memory, as :meth:`.LinkedInCampaignRepository.add_plan`."""
        self._t.linkedin_plans[campaign_id] = (self._account, plan)

    def plan_of(self, campaign_id: int) -> LinkedInPlan | None:
        """In memory, as :meth:`.LinkedInCampaignRepository.plan_of`."""
        row = self._t.linkedin_plans.get(campaign_id)
        if row is None or row[0] != self._account or not self._campaign_exists(campaign_id):
            return None
        return row[1]

    def schedule(
        self, campaign_id: int, recipient_id: int, contact_id: int, step: int, due_at: datetime, now: datetime
    ) -> bool:
        """In memory, as :meth:`.LinkedInCampaignRepository.schedule`."""
        if any(f.recipient_id == recipient_id and f.step == step for f in self._mine(campaign_id)):
            return False
        follow_up = FollowUp(
            self._store.next_id(), campaign_id, recipient_id, contact_id, step, "pending", None, None, None, due_at, now
        )
        self._t.linkedin_follow_ups[follow_up.id] = (self._account, follow_up)
        return True

    def next_due(self, campaign_id: int, now: datetime) -> FollowUp | None:
        """In memory, as :meth:`.LinkedInCampaignRepository.next_due`."""
        due = [f for f in self._mine(campaign_id) if f.status == "pending" and f.due_at <= now]
        return min(due, key=lambda f: (f.due_at, f.id), default=None)

    def next_due_at(self, campaign_id: int) -> datetime | None:
        """In memory, as :meth:`.LinkedInCampaignRepository.next_due_at`."""
        return min((f.due_at for f in self._mine(campaign_id) if f.status == "pending"), default=None)

    def move(
        self,
        follow_up_id: int,
        to: str,
        now: datetime,
        *,
        reason: str | None = None,
        error: str | None = None,
        message_id: int | None = None,
    ) -> str | None:
        """In memory, as :meth:`.LinkedInCampaignRepository.move`."""
        current = self.get(follow_up_id)
        if current is None or not can_move_follow_up(current.status, to):
            return None
        changed = attrs.evolve(
            current,
            status=to,
            reason=current.reason if reason is None else reason,
            error=current.error if error is None else error[:1000],
            message_id=current.message_id if message_id is None else message_id,
            updated_at=now,
        )
        self._t.linkedin_follow_ups[follow_up_id] = (self._account, changed)
        return current.status

    def skip_pending(self, campaign_id: int, reason: str, now: datetime) -> int:
        """In memory, as :meth:`.LinkedInCampaignRepository.skip_pending`."""
        pending = [f for f in self._mine(campaign_id) if f.status == "pending"]
        for follow_up in pending:
            self.move(follow_up.id, "skipped", now, reason=reason)
        return len(pending)

    def stale_sending(self, campaign_id: int, claimed_before: datetime) -> list[FollowUp]:
        """In memory, as :meth:`.LinkedInCampaignRepository.stale_sending`."""
        found = [f for f in self._mine(campaign_id) if f.status == "sending" and f.updated_at < claimed_before]
        return sorted(found, key=lambda f: f.id)

    def get(self, follow_up_id: int) -> FollowUp | None:
        """In memory, as :meth:`.LinkedInCampaignRepository.get`."""
        row = self._t.linkedin_follow_ups.get(follow_up_id)
        if row is None or row[0] != self._account or not self._campaign_exists(row[1].campaign_id):
            return None
        return row[1]

    def of_campaign(self, campaign_id: int) -> list[FollowUp]:
        """In memory, as :meth:`.LinkedInCampaignRepository.of_campaign`."""
        return sorted(self._mine(campaign_id), key=lambda f: (f.recipient_id, f.step))

    def statuses(self, campaign_id: int) -> Mapping[str, int]:
        """In memory, as :meth:`.LinkedInCampaignRepository.statuses`."""
        counted: dict[str, int] = {}
        for follow_up in self._mine(campaign_id):
            counted[follow_up.status] = counted.get(follow_up.status, 0) + 1
        return counted

    def inbox_stats(self) -> tuple[int, int]:
        """In memory, as :meth:`.LinkedInCampaignRepository.inbox_stats`."""
        mine = [m for (a, m) in self._state.of(MessagingTables).messages.values() if a == self._account]
        linkedin = [m for m in mine if m.channel == "linkedin"]
        return len({m.contact_id for m in linkedin}), sum(1 for m in linkedin if m.is_unread)

    def replied_since(self, contact_id: int, since: datetime) -> bool:
        """In memory, as :meth:`.LinkedInCampaignRepository.replied_since`."""
        return any(
            a == self._account and m.contact_id == contact_id and m.direction == "inbound" and m.created_at >= since
            for (a, m) in self._state.of(MessagingTables).messages.values()
        )


AREA = FakeArea(LinkedInTables, workspace={"linkedin_campaigns": InMemoryLinkedInCampaignRepository})
