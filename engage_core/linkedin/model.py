"""LinkedIn campaigns: what `POST /linkedin/sourcing/launch-campaign` adds to a campaign, and the
follow-up steps of a message sequence.

A LinkedIn campaign is a campaign on the `linkedin` channel (`engage_core.campaigns`: its
recipients snapshot, counters, pause, resume, cancel, quotas and crash rules all hold) with a
`LinkedInPlan` beside it:

- `invite`: each recipient gets a connection invitation (with the note, at most 200 characters)
  instead of a message. Invitations count against the channel's quotas, whose LinkedIn weekly
  default (100) is the network's own invitation cap.
- `sequence`: each recipient gets the first message of the sequence as the campaign's send, then
  every later message `wait_days` after the one before it went (`FollowUp` rows, one per recipient
  and step, scheduled when the previous step is sent). A recipient who has written back since the
  campaign started gets nothing more: its pending step is `skipped` with reason `replied`.

Follow-up statuses move like a recipient's, forward only::

    pending -> sending -> sent
    pending -> skipped                 (replied, cancelled, campaign_failed, contact_deleted)
    pending | sending -> failed        (rejected, unknown_outcome)
    sending -> pending                 (the provider was unavailable: nothing was sent)

The campaign stays `running` while a follow-up is pending, and ends as campaigns do once none is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, get_args

import attrs

from engage_core.campaigns.model import REPLIED as REPLIED
from engage_core.kernel.errors import ValidationFailed

CampaignType = Literal["invite", "sequence"]
CAMPAIGN_TYPES: tuple[str, ...] = get_args(CampaignType)

INVITE_NOTE_MAX = 200
"""SPEC 8: a LinkedIn invitation note is at most 200 characters."""
PROVIDER_IDS_MAX = 1000
"""Members one launch may name (the weekly invitation cap spreads them over weeks anyway)."""
STEPS_MAX = 10
WAIT_DAYS_MAX = 90
SEARCH_LIMIT_DEFAULT = 25
SEARCH_LIMIT_MAX = 100
QUOTA_WARNING_SHARE = 0.8
"""The share of a weekly quota used from which the overview and launches warn."""


FOLLOW_UP_MOVES: Mapping[str, frozenset[str]] = {
    "pending": frozenset({"sending", "skipped", "failed"}),
    "sending": frozenset({"sent", "failed", "pending"}),
    "sent": frozenset(),
    "failed": frozenset(),
    "skipped": frozenset(),
}
FOLLOW_UP_STATUSES: tuple[str, ...] = tuple(FOLLOW_UP_MOVES)


@attrs.frozen
class SequenceStep:
    """One message of a sequence: its text (contact placeholders allowed) and the days to wait
    after the previous step went (for the first: after the launch)."""

    text: str
    wait_days: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "wait_days": self.wait_days}


@attrs.frozen
class LinkedInPlan:
    """What a LinkedIn campaign does besides its campaign: invite, or a message sequence."""

    campaign_type: str
    invite_note: str | None = None
    steps: tuple[SequenceStep, ...] = ()

    @property
    def invites(self) -> bool:
        return self.campaign_type == "invite"

    def steps_json(self) -> list[dict[str, Any]]:
        return [step.to_json() for step in self.steps]

    @staticmethod
    def steps_from_json(data: Sequence[Mapping[str, Any]]) -> tuple[SequenceStep, ...]:
        return tuple(SequenceStep(str(s["text"]), int(s["wait_days"])) for s in data)


@attrs.frozen
class FollowUp:
    """A later step of a sequence for one recipient (step 1 is the second message)."""

    id: int
    campaign_id: int
    recipient_id: int
    contact_id: int
    step: int
    status: str
    reason: str | None
    error: str | None
    message_id: int | None
    due_at: datetime
    updated_at: datetime


def can_move_follow_up(old: str, new: str) -> bool:
    return new in FOLLOW_UP_MOVES[old]


@attrs.frozen
class InvitationQuota:
    """The week's campaign sends on LinkedIn against the weekly quota (`cap` None: no quota)."""

    used: int
    cap: int | None

    @property
    def warning(self) -> bool:
        """At least `QUOTA_WARNING_SHARE` of the cap is used."""
        return self.cap is not None and self.used >= self.cap * QUOTA_WARNING_SHARE

    @property
    def left(self) -> int | None:
        return None if self.cap is None else max(0, self.cap - self.used)

    def to_json(self) -> dict[str, Any]:
        return {"used": self.used, "weekly_cap": self.cap, "left": self.left, "warning": self.warning}


def check_note(note: str | None) -> str | None:
    """The invitation note, trimmed (None when blank). Raises ValidationFailed beyond 200 characters."""
    if note is None or not note.strip():
        return None
    if len(note.strip()) > INVITE_NOTE_MAX:
        raise ValidationFailed.on("invite_note", f"The invite note may be at most {INVITE_NOTE_MAX} characters.")
    return note.strip()
