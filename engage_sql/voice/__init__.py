"""Voice in SQL."""

from __future__ import annotations

from engage_sql.registry import SqlArea
from engage_sql.voice.repository import SqlSpeechCacheRepository, SqlVoiceSettingsRepository

AREA = SqlArea(
    workspace={
        "voice_settings": lambda s: SqlVoiceSettingsRepository(s.connection, s.account_id),
        "speech_cache": lambda s: SqlSpeechCacheRepository(s.connection, s.account_id),
    },
)
