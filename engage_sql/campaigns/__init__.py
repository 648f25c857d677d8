"""Campaigns in SQL."""

from __future__ import annotations

from engage_sql.campaigns.campaigns import SqlCampaignRepository
from engage_sql.campaigns.recipients import SqlRecipientRepository, SqlSendCountRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "campaigns": lambda s: SqlCampaignRepository(s.connection, s.account_id, lock_reads=s.writes),
        "campaign_recipients": lambda s: SqlRecipientRepository(s.connection, s.account_id, lock_reads=s.writes),
        "campaign_send_counts": lambda s: SqlSendCountRepository(s.connection, s.account_id),
    },
)
