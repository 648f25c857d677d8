"""The LinkedIn side of the campaign sender (`engage_core.campaigns.sender`): which campaigns invite,
which run a sequence, and how a sequence's follow-ups are settled. The sender claims and sends them
in its own transactions, so pause, resume, cancel, the quotas and the crash rules are the campaign's."""

from __future__ import annotations

from datetime import datetime

from engage_core.campaigns.model import REJECTED, UNKNOWN_OUTCOME, Campaign
from engage_core.linkedin.model import REPLIED, FollowUp, LinkedInPlan
from engage_core.messaging.messages import Message, mark_failed
from engage_core.unit_of_work import WorkspaceUnitOfWork

INVITATION_WITHOUT_NOTE = "(LinkedIn invitation without a note)"
"""What the conversation shows for an invitation sent without a note."""


def plan_of(uow: WorkspaceUnitOfWork, campaign: Campaign) -> LinkedInPlan | None:
    """The campaign's LinkedIn plan, if it was launched from LinkedIn sourcing."""
    if campaign.channel != "linkedin":
        return None
    return uow.linkedin_campaigns.plan_of(campaign.id)


def replied(uow: WorkspaceUnitOfWork, contact_id: int, since: datetime) -> str | None:
    """`replied` when the contact wrote to the workspace since `since` (the sequence stops for it)."""
    return REPLIED if uow.linkedin_campaigns.replied_since(contact_id, since) else None


def invitation_text(plan: LinkedInPlan) -> str:
    """How an invitation reads in the contact's conversation: its note."""
    return plan.invite_note or INVITATION_WITHOUT_NOTE


def following(plan: LinkedInPlan, step: int) -> tuple[int, int] | None:
    """The step after `step` (0: the first message) with its wait in days, if the sequence has one."""
    if plan.invites or step + 1 >= len(plan.steps):
        return None
    return step + 1, plan.steps[step + 1].wait_days


def settle_failure(
    uow: WorkspaceUnitOfWork, follow_up_id: int, channel: str, status: str, error: str, now: datetime
) -> None:
    """A follow-up the gateway did not send: back to `pending` when the provider was unavailable
    (its quota count given back; the job waits and tries again), `failed` when it refused."""
    if status == "unavailable":
        if uow.linkedin_campaigns.move(follow_up_id, "pending", now, error=error) is not None:
            uow.campaign_send_counts.add(channel, now.date(), -1)
        return
    uow.linkedin_campaigns.move(follow_up_id, "failed", now, reason=REJECTED, error=error)


def give_back(uow: WorkspaceUnitOfWork, follow_up_id: int, channel: str, now: datetime) -> None:
    """A follow-up claimed but never handed to the gateway (the worker stopped first): `pending`
    again, its quota count given back; its `pending` message waits for the next claim."""
    if uow.linkedin_campaigns.move(follow_up_id, "pending", now) is not None:
        uow.campaign_send_counts.add(channel, now.date(), -1)


def unsent_message(uow: WorkspaceUnitOfWork, follow_up: FollowUp) -> Message | None:
    """The `pending` message an earlier claim of the follow-up stored and never sent, if any."""
    message = None if follow_up.message_id is None else uow.messages.get(follow_up.message_id)
    return message if message is not None and message.status == "pending" else None


def settle_unknown(uow: WorkspaceUnitOfWork, follow_up: FollowUp, now: datetime) -> None:
    """A follow-up a dead worker left `sending`: not sent again, failed with an unknown outcome."""
    error = "The sender stopped between handing the message to the gateway and recording the answer; not sent again."
    message = None if follow_up.message_id is None else uow.messages.get(follow_up.message_id)
    if message is not None and message.status == "pending":
        uow.messages.update(mark_failed(message, error, now))
    uow.linkedin_campaigns.move(follow_up.id, "failed", now, reason=UNKNOWN_OUTCOME, error=error)
