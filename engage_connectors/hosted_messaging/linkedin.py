"""The provider's LinkedIn-only API: people search, invitations and the InMail balance, and how
their answers read into the core's values (`engage_core.messaging.people`).

    POST /linkedin/search?account_id=&limit=&cursor=   {"api": "classic", "category": "people",
                                                        "keywords": ..., "advanced_keywords": {...}}
         -> {"object": "LinkedinSearch", "items": [{"type": "PEOPLE", "id", "name", "headline",
             "location", "profile_url", "current_positions": [{"company"}]}], "cursor"}
    POST /users/invite       {"provider_id", "account_id", "message"?} -> {"invitation_id"}
    GET  /linkedin/inmail_balance?account_id=   -> {"premium", "recruiter", "sales_navigator"}

The classic search takes locations and industries as LinkedIn's own ids, which engage does not
hold, so their words join `keywords`; title and company go as advanced keywords.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engage_connectors.hosted_messaging.errors import ProviderProtocolError
from engage_connectors.hosted_messaging.readers import require_text
from engage_core.messaging.people import LinkedInStanding, PeoplePage, PeopleQuery, Profile


def search_body(query: PeopleQuery) -> dict[str, Any]:
    """The classic people search's body for `query`."""
    words = " ".join(w for w in (query.keywords, query.industry, query.location) if w)
    body: dict[str, Any] = {"api": "classic", "category": "people"}
    if words:
        body["keywords"] = words
    advanced = {key: value for key, value in (("title", query.title), ("company", query.company)) if value}
    if advanced:
        body["advanced_keywords"] = advanced
    return body


def read_people_page(answer: Mapping[str, Any]) -> PeoplePage:
    """The search's answer: its people (other result types left out) and cursor."""
    items = answer.get("items")
    if not isinstance(items, list):
        raise ProviderProtocolError("The messaging provider's search answer has no items.")
    people = tuple(
        _profile(item) for item in items if isinstance(item, dict) and item.get("type", "PEOPLE") == "PEOPLE"
    )
    cursor = answer.get("cursor")
    return PeoplePage(people, cursor if isinstance(cursor, str) and cursor else None)


def read_standing(answer: Mapping[str, Any]) -> LinkedInStanding:
    """The InMail credits of every contract the account holds, summed; a Recruiter contract when it has one."""
    credits = [answer.get(key) for key in ("premium", "recruiter", "sales_navigator")]
    counted = [n for n in credits if isinstance(n, int) and not isinstance(n, bool)]
    recruiter = answer.get("recruiter")
    return LinkedInStanding(
        sum(counted) if counted else None, isinstance(recruiter, int) and not isinstance(recruiter, bool)
    )


def _profile(item: Mapping[str, Any]) -> Profile:
    positions = item.get("current_positions")
    company = ""
    if isinstance(positions, list) and positions and isinstance(positions[0], dict):
        company = str(positions[0].get("company") or "")
    return Profile(
        provider_id=require_text(item, "id"),
        name=str(item.get("name") or ""),
        headline=str(item.get("headline") or ""),
        location=str(item.get("location") or ""),
        company=company,
        profile_url=str(item.get("profile_url") or ""),
    )
