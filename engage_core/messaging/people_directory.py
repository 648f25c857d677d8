"""The sandbox's offline directory of LinkedIn members: a fixed, generated population the sandbox
gateway's people search answers from, so sourcing runs end to end without a network account.

`DIRECTORY_SIZE` members, each built from its index alone (names, titles, industries, companies and
cities cycle at co-prime strides), so every run and every machine sees the same people under the
same ids (`sbx-li-00001`, ...). A search keeps the members every given criterion matches (a
case-insensitive part of the field; each word of `keywords` matches name, headline, company, industry or location) in id
order; the cursor is the index to go on from.
"""

from __future__ import annotations

from functools import cache

from engage_core.messaging.people import PeoplePage, PeopleQuery, Profile

DIRECTORY_SIZE = 2000

_FIRST = (
    "Ada", "Omar", "Lina", "Karim", "Sara", "Yousef", "Maya", "Hassan", "Nora", "Ali", "Leila", "Samir",
    "Grace", "Tariq", "Huda", "Rami", "Emma", "Faisal", "Dana", "Khalid", "Mona", "Ziad", "Rania",
)  # fmt: skip
_LAST = (
    "Lovelace", "Haddad", "Nasser", "Saleh", "Khoury", "Farah", "Mansour", "Aziz", "Rahman", "Hopper",
    "Qasim", "Darwish", "Yamani", "Turing", "Othman", "Sabbagh", "Hariri", "Bakr", "Jaber",
)  # fmt: skip
_TITLES = (
    "Software Engineer", "Head of Sales", "Marketing Manager", "Chief Technology Officer", "Recruiter",
    "Product Manager", "Data Scientist", "Operations Director", "Founder", "Customer Success Lead", "CFO",
)  # fmt: skip
_INDUSTRIES = (
    "Software", "Retail", "Financial Services", "Healthcare", "Logistics", "Education", "Real Estate",
)  # fmt: skip
_COMPANIES = (
    "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Soylent",
    "Tyrell", "Cyberdyne", "Wonka", "Vandelay", "Aperture",
)  # fmt: skip
_LOCATIONS = (
    "Riyadh, Saudi Arabia", "Dubai, United Arab Emirates", "Cairo, Egypt", "London, United Kingdom",
    "Berlin, Germany", "Amman, Jordan", "New York, United States", "Doha, Qatar", "Jeddah, Saudi Arabia",
)  # fmt: skip


def member(index: int) -> Profile:
    """The directory's member at `index` (0-based)."""
    first, last = _FIRST[index % len(_FIRST)], _LAST[(index * 7) % len(_LAST)]
    title, company = _TITLES[(index * 3) % len(_TITLES)], _COMPANIES[(index * 5) % len(_COMPANIES)]
    slug = f"{first}-{last}-{index + 1}".lower()
    return Profile(
        provider_id=f"sbx-li-{index + 1:05d}",
        name=f"{first} {last}",
        headline=f"{title} at {company}",
        location=_LOCATIONS[(index * 2) % len(_LOCATIONS)],
        company=company,
        profile_url=f"https://www.linkedin.com/in/{slug}",
        industry=_INDUSTRIES[(index * 11) % len(_INDUSTRIES)],
    )


@cache
def members() -> tuple[Profile, ...]:
    return tuple(member(i) for i in range(DIRECTORY_SIZE))


def by_provider_id(provider_id: str) -> Profile | None:
    """The member with this id, if the directory has it."""
    prefix, _, number = provider_id.rpartition("-")
    if prefix != "sbx-li" or not number.isdigit() or not 1 <= int(number) <= DIRECTORY_SIZE:
        return None
    return members()[int(number) - 1]


def search(query: PeopleQuery) -> PeoplePage:
    """One page of the members `query` matches. Raises ValueError for a cursor not of this directory."""
    start = 0
    if query.cursor is not None:
        if not query.cursor.isdigit():
            raise ValueError("The cursor is not one this search gave.")
        start = int(query.cursor)
    found: list[Profile] = []
    index = start
    people = members()
    while index < len(people) and len(found) < query.limit:
        if _matches(people[index], query):
            found.append(people[index])
        index += 1
    more = any(_matches(p, query) for p in people[index:])
    return PeoplePage(tuple(found), str(index) if more else None)


def _matches(profile: Profile, query: PeopleQuery) -> bool:
    checks = (
        (query.title, (profile.headline,)),
        (query.industry, (profile.industry,)),
        (query.location, (profile.location,)),
        (query.company, (profile.company,)),
    )
    everything = (profile.name, profile.headline, profile.company, profile.industry, profile.location)
    words = tuple((word, everything) for word in (query.keywords or "").split())
    for wanted, fields in (*checks, *words):
        if wanted is not None and not any(wanted.casefold() in field.casefold() for field in fields):
            return False
    return True
