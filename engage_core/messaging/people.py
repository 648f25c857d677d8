"""What LinkedIn sourcing asks of a channel gateway: a people search, invitations, and the
account's own standing (InMail balance, Recruiter contract). Plain values every gateway builds the
same way (`engage_core.messaging.ports.ChannelGateway`)."""

from __future__ import annotations

import attrs

SEARCH_FIELDS: tuple[str, ...] = ("keywords", "title", "industry", "location", "company")
"""The criteria of a people search; at least one is given."""


@attrs.frozen
class PeopleQuery:
    """A people search: every criterion given must match (case-insensitive, a part of the field);
    `cursor` continues a previous page (the gateway's own opaque text)."""

    keywords: str | None = None
    title: str | None = None
    industry: str | None = None
    location: str | None = None
    company: str | None = None
    limit: int = 25
    cursor: str | None = None


@attrs.frozen
class Profile:
    """One person a search found (SPEC 4 LinkedIn search item). `provider_id` is the network's member
    id: what invitations and messages address, and the handle of a LinkedIn contact."""

    provider_id: str
    name: str
    headline: str
    location: str
    company: str
    profile_url: str
    industry: str = ""


@attrs.frozen
class PeoplePage:
    """A page of search results; `next_cursor` None on the last."""

    items: tuple[Profile, ...]
    next_cursor: str | None = None


@attrs.frozen
class LinkedInStanding:
    """The LinkedIn account's own standing: its InMail credits left (None when the network does not
    say) and whether it holds a Recruiter contract."""

    inmail_balance: int | None
    recruiter: bool
