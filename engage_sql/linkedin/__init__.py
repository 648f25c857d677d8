"""LinkedIn campaigns in SQL."""

from __future__ import annotations

from engage_sql.linkedin.campaigns import SqlLinkedInCampaignRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "linkedin_campaigns": lambda s: SqlLinkedInCampaignRepository(s.connection, s.account_id, lock_reads=s.writes),
    },
)
