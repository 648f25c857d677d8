"""Messaging in SQL: channel settings, handles, messages, the conversation summaries kept beside them,
and who answers each conversation."""

from __future__ import annotations

from engage_sql.messaging.channels import SqlChannelAccountRepository, SqlChannelDirectory
from engage_sql.messaging.handles import SqlContactHandleRepository
from engage_sql.messaging.handling import SqlConversationHandlingRepository
from engage_sql.messaging.messages import SqlMessageRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "channels": lambda s: SqlChannelAccountRepository(s.connection, s.account_id, lock_reads=s.writes),
        "messages": lambda s: SqlMessageRepository(s.connection, s.account_id, lock_reads=s.writes),
        "handles": lambda s: SqlContactHandleRepository(s.connection, s.account_id),
        "conversation_handling": lambda s: SqlConversationHandlingRepository(
            s.connection, s.account_id, lock_reads=s.writes
        ),
    },
    admin={
        "channel_directory": lambda s: SqlChannelDirectory(s.connection),
    },
)
