"""The SQL adapter's registry of areas: importing it puts every area's tables on `metadata`, and
gathers the repositories each area hands to the units of work (`unit_of_work.py`).

A new area adds its package (`tables.py`, its repositories, an `AREA` in its `__init__`) and one
line below.
"""

from __future__ import annotations

from collections.abc import Mapping

from engage_sql import (
    accounts,
    agents,
    bookings,
    campaigns,
    commerce,
    contacts,
    idempotency,
    jobs,
    knowledge,
    linkedin,
    media,
    messaging,
    partners,
    plans,
    support,
    team,
    voice,
    webchat,
    webhooks,
)
from engage_sql.registry import RepositoryFactory, ShortRead, SqlArea
from engage_sql.schema import metadata

AREAS: tuple[SqlArea, ...] = (
    accounts.AREA,
    contacts.AREA,
    messaging.AREA,
    bookings.AREA,
    commerce.AREA,
    knowledge.AREA,
    campaigns.AREA,
    linkedin.AREA,
    media.AREA,
    voice.AREA,
    support.AREA,
    team.AREA,
    agents.AREA,
    webhooks.AREA,
    plans.AREA,
    partners.AREA,
    jobs.AREA,
    idempotency.AREA,
    webchat.AREA,
)


def _merged(kind: str) -> Mapping[str, RepositoryFactory]:
    merged: dict[str, RepositoryFactory] = {}
    for area in AREAS:
        for name, factory in getattr(area, kind).items():
            if name in merged:
                raise ValueError(f"two areas register the {kind} repository {name!r}")
            merged[name] = factory
    return merged


WORKSPACE = _merged("workspace")
"""The repositories of a workspace unit of work, by attribute name."""
ADMIN = _merged("admin")
"""The repositories of the administration unit of work."""
PARTNERS = _merged("partners")
"""The repositories of the partners' unit of work."""
SHORT_READS: Mapping[type, ShortRead] = {kind: test for area in AREAS for kind, test in area.short_reads.items()}
"""The reads that are always short, by the core filter type they take (`Database.short_reads`)."""

__all__ = ["ADMIN", "AREAS", "PARTNERS", "SHORT_READS", "WORKSPACE", "metadata"]
