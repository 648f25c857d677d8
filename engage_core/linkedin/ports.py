"""What LinkedIn campaigns need from storage: each campaign's plan and its sequence follow-ups."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from engage_core.linkedin.model import FollowUp, LinkedInPlan


class LinkedInCampaignRepository(Protocol):
    """The LinkedIn plans of one account's campaigns, and their follow-ups (each recipient at most
    once per step: unique on `(recipient_id, step)`). Every follow-up move is conditional on the
    status it starts from (`model.FOLLOW_UP_MOVES`), like a recipient's."""

    def add_plan(self, campaign_id: int, plan: LinkedInPlan) -> None:
        """Store the campaign's plan (deleted with the campaign)."""

    def plan_of(self, campaign_id: int) -> LinkedInPlan | None:
        """The campaign's plan, or None for a campaign not launched from LinkedIn sourcing."""

    def schedule(
        self, campaign_id: int, recipient_id: int, contact_id: int, step: int, due_at: datetime, now: datetime
    ) -> bool:
        """Add the recipient's `pending` follow-up `step`, due at `due_at`: whether it was added (a
        step scheduled already is left as it is)."""

    def next_due(self, campaign_id: int, now: datetime) -> FollowUp | None:
        """The campaign's pending follow-up due by `now` that is due first (then lowest id). On
        PostgreSQL a row another transaction holds is passed over and the one returned stays locked."""

    def next_due_at(self, campaign_id: int) -> datetime | None:
        """When the campaign's earliest pending follow-up is due, if one is pending."""

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
        """Move the follow-up to `to` if its status allows it: the status it had, or None."""

    def skip_pending(self, campaign_id: int, reason: str, now: datetime) -> int:
        """Skip every pending follow-up of the campaign with `reason`: how many."""

    def stale_sending(self, campaign_id: int, claimed_before: datetime) -> list[FollowUp]:
        """The campaign's follow-ups left in `sending` since before `claimed_before`."""

    def get(self, follow_up_id: int) -> FollowUp | None:
        """The follow-up, or None."""

    def of_campaign(self, campaign_id: int) -> list[FollowUp]:
        """The campaign's follow-ups, by recipient then step."""

    def statuses(self, campaign_id: int) -> Mapping[str, int]:
        """How many follow-ups of the campaign are in each status (those with none left out)."""

    def inbox_stats(self) -> tuple[int, int]:
        """The LinkedIn inbox: how many contacts have LinkedIn messages, and how many inbound
        LinkedIn messages are unread."""

    def replied_since(self, contact_id: int, since: datetime) -> bool:
        """Whether the contact sent the workspace a message at or after `since`."""


class LinkedInRepositories(Protocol):
    """The LinkedIn area's repositories, as a workspace unit of work hands them out."""

    @property
    def linkedin_campaigns(self) -> LinkedInCampaignRepository:
        """The LinkedIn plans and follow-ups of the campaigns."""
