"""What a workspace used in a period, counted from its records (`GET /partner/clients/{id}/usage`).

Periods are calendar months, UTC (`plans.month_of`, `plans.parse_period`): `current` or `YYYY-MM`.
"In the period" counts records created in `[start, end)`; totals (`contacts.total`,
`bookings.total`, `team_members`, `channels_connected`) are as they stand now. Campaigns:
`total` and `paused` are the campaigns as they stand (every status; the paused ones), `sent` the
campaign messages sent in the period (outbound, not failed, naming a campaign). AI agent sessions
are counted once that area stores records; until then they are zero.

`UsageCounts` is the part of a report the partner usage summary lists for each client
(`ClientRepository.usage`), counted for all of a partner's clients at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen
class WorkspaceUsage:
    contacts_total: int = 0
    contacts_created: int = 0
    contacts_blacklisted: int = 0
    messages_sent: int = 0
    messages_received: int = 0
    messages_failed: int = 0
    campaigns_total: int = 0
    campaigns_sent: int = 0
    campaigns_paused: int = 0
    bookings_total: int = 0
    bookings_completed: int = 0
    bookings_cancelled: int = 0
    ai_agent_sessions: int = 0
    team_members: int = 0
    channels_connected: tuple[str, ...] = ()

    def document(self, client_id: int, period: str) -> Mapping[str, Any]:
        """The `data` object of SPEC 4 `GET /partner/clients/{id}/usage`."""
        return {
            "client_id": client_id,
            "period": period,
            "contacts": {
                "total": self.contacts_total,
                "created_this_period": self.contacts_created,
                "blacklisted": self.contacts_blacklisted,
            },
            "messages": {
                "sent": self.messages_sent,
                "received": self.messages_received,
                "failed": self.messages_failed,
            },
            "campaigns": {"total": self.campaigns_total, "sent": self.campaigns_sent, "paused": self.campaigns_paused},
            "bookings": {
                "total": self.bookings_total,
                "completed": self.bookings_completed,
                "cancelled": self.bookings_cancelled,
            },
            "ai_agent_sessions": self.ai_agent_sessions,
            "team_members": self.team_members,
            "channels_connected": list(self.channels_connected),
        }


@attrs.frozen
class UsageCounts:
    """One client's line of `GET /partner/usage`: the fields of the same name of its `WorkspaceUsage`."""

    messages_sent: int = 0
    contacts_total: int = 0
    ai_agent_sessions: int = 0
