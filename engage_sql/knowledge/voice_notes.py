"""The voice notes of one account's voice entries (`knowledge_base_voice_notes`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select

from engage_core.knowledge.voice import VoiceNote, VoiceNoteDraft
from engage_sql.knowledge.tables import knowledge_base_voice_notes as table
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_COLUMNS = (
    table.c.id,
    table.c.knowledge_base_id,
    table.c.original_name,
    table.c.audio_format,
    table.c.duration_seconds,
    table.c.language,
    table.c.transcription_status,
    table.c.transcription,
    table.c.transcription_error,
    table.c.created_at,
    table.c.updated_at,
)


def voice_note_from_row(row: AnyRow) -> VoiceNote:
    return VoiceNote(
        id=row.id,
        knowledge_base_id=row.knowledge_base_id,
        original_name=row.original_name,
        audio_format=row.audio_format,
        duration_seconds=row.duration_seconds,
        language=row.language,
        transcription_status=row.transcription_status,
        transcription=row.transcription,
        transcription_error=row.transcription_error,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlVoiceNoteRepository(WorkspaceRepository):
    def add(self, entry_id: int, draft: VoiceNoteDraft, now: datetime) -> VoiceNote:
        row = self._conn.execute(
            insert(table)
            .values(
                account_id=self._account_id,
                knowledge_base_id=entry_id,
                original_name=draft.original_name,
                audio_format=draft.audio_format,
                duration_seconds=draft.duration_seconds,
                language=draft.language,
                transcription_status=draft.transcription_status,
                transcription=draft.transcription,
                transcription_error=draft.transcription_error,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one()
        return voice_note_from_row(row)

    def for_entry(self, entry_id: int) -> list[VoiceNote]:
        rows = self._conn.execute(
            select(*_COLUMNS).where(self.owned(table), table.c.knowledge_base_id == entry_id).order_by(table.c.id)
        )
        return [voice_note_from_row(row) for row in rows]
