"""The voice settings and synthesised audio of one account."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select

from engage_core.voice.model import ClonedVoice, VoiceSettings
from engage_core.voice.ports import CachedSpeech
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import insert_or_ignore, upsert
from engage_sql.types import AnyRow
from engage_sql.voice.tables import voice_settings, voice_speech_cache

_SETTINGS = [c.name for c in voice_settings.columns if c.name != "account_id"]


def _values(settings: VoiceSettings, now: datetime) -> dict[str, Any]:
    clone = settings.clone
    return {
        "enabled": settings.enabled,
        "mode": settings.mode,
        "preset_voice": settings.preset_voice,
        "preset_language": settings.preset_language,
        "preset_style_prompt": settings.preset_style_prompt,
        "language": settings.language,
        "dialect": settings.dialect,
        "clone_voice_id": None if clone is None else clone.voice_id,
        "clone_name": None if clone is None else clone.name,
        "clone_language": None if clone is None else clone.language,
        "clone_dialect": None if clone is None else clone.dialect,
        "clone_gender": None if clone is None else clone.gender,
        "clone_style": None if clone is None else clone.style,
        "sample_key": settings.sample_key,
        "preloaded_at": settings.preloaded_at,
        "usage_month": settings.usage_month,
        "seconds_used": settings.seconds_used,
        "updated_at": now,
    }


def _settings(row: AnyRow) -> VoiceSettings:
    clone = None
    if row.clone_voice_id is not None:
        clone = ClonedVoice(
            row.clone_voice_id, row.clone_name, row.clone_language, row.clone_dialect, row.clone_gender, row.clone_style
        )
    return VoiceSettings(
        enabled=row.enabled,
        mode=row.mode,
        preset_voice=row.preset_voice,
        preset_language=row.preset_language,
        preset_style_prompt=row.preset_style_prompt,
        language=row.language,
        dialect=row.dialect,
        clone=clone,
        sample_key=row.sample_key,
        preloaded_at=row.preloaded_at,
        usage_month=row.usage_month,
        seconds_used=row.seconds_used,
    )


class SqlVoiceSettingsRepository(WorkspaceRepository):
    def get(self) -> VoiceSettings | None:
        row = self._conn.execute(select(voice_settings).where(self.owned(voice_settings))).first()
        return None if row is None else _settings(row)

    def lock(self, now: datetime) -> VoiceSettings:
        # The default row first, so that two first writes of a workspace queue on one row lock.
        self._conn.execute(
            insert_or_ignore(self._conn, voice_settings, ["account_id"]).values(
                account_id=self._account_id, **_values(VoiceSettings(), now)
            )
        )
        row = self._conn.execute(select(voice_settings).where(self.owned(voice_settings)).with_for_update()).one()
        return _settings(row)

    def save(self, settings: VoiceSettings, now: datetime) -> None:
        self._conn.execute(
            upsert(self._conn, voice_settings, ["account_id"], _SETTINGS).values(
                account_id=self._account_id, **_values(settings, now)
            )
        )


def _cached(row: AnyRow) -> CachedSpeech:
    return CachedSpeech(
        row.cache_key,
        row.storage_key,
        row.duration_seconds,
        row.language,
        row.dialect,
        row.dialect_fallback,
        row.cloned,
    )


class SqlSpeechCacheRepository(WorkspaceRepository):
    def get(self, cache_key: str) -> CachedSpeech | None:
        row = self._conn.execute(
            select(voice_speech_cache).where(
                self.owned(voice_speech_cache), voice_speech_cache.c.cache_key == cache_key
            )
        ).first()
        return None if row is None else _cached(row)

    def add(self, speech: CachedSpeech, now: datetime) -> bool:
        result = self._conn.execute(
            insert_or_ignore(self._conn, voice_speech_cache, ["account_id", "cache_key"])
            .values(
                account_id=self._account_id,
                cache_key=speech.cache_key,
                storage_key=speech.storage_key,
                duration_seconds=speech.duration_seconds,
                language=speech.language,
                dialect=speech.dialect,
                dialect_fallback=speech.dialect_fallback,
                cloned=speech.cloned,
                created_at=now,
            )
            .returning(voice_speech_cache.c.id)  # rowcount is not reliable for a skipped insert
        )
        return result.first() is not None

    def remove_cloned(self) -> Sequence[str]:
        rows = self._conn.execute(
            delete(voice_speech_cache)
            .where(self.owned(voice_speech_cache), voice_speech_cache.c.cloned.is_(True))
            .returning(voice_speech_cache.c.storage_key)
        )
        return [row.storage_key for row in rows]

    def storage_keys(self) -> Sequence[str]:
        rows = self._conn.execute(select(voice_speech_cache.c.storage_key).where(self.owned(voice_speech_cache)))
        return [row.storage_key for row in rows]
