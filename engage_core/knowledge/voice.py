"""Voice notes of voice entries: the record of an uploaded recording and its transcription, its
storage port and its events (SPEC 2 Voice note record; the service is `voice_service`).

Transcription is synchronous (SPEC 4): a note moves `pending` → `processing` → `completed` (with
its `transcription`) or `failed` (with a `transcription_error` for users) within the request, so
it is stored once, in its final state. A note that cannot be transcribed (not audio, a language no
model knows, a service that is down) does not fail the request: the entry is created and the note
is `failed`. The recording itself is not kept: the entry holds its transcription.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import attrs

from engage_core.kernel.clock import format_timestamp
from engage_core.knowledge.model import KnowledgeBaseEntry

VOICE = "voice"
COMPLETED = "completed"
FAILED = "failed"
TRANSCRIPTION_STATES: tuple[str, ...] = ("pending", "processing", COMPLETED, FAILED)
ERROR_MAX = 2000
NAME_MAX = 255


@attrs.frozen
class VoiceNote:
    """A recording of a voice entry (SPEC 2): its `transcription` once `completed`, or the reason
    it could not be transcribed (`transcription_error`) when `failed`. `language` is the one asked
    for or recognised (None when unknown); `audio_format` and `duration_seconds` come from the
    content when it could be read."""

    id: int
    knowledge_base_id: int
    original_name: str
    audio_format: str | None
    duration_seconds: float | None
    language: str | None
    transcription_status: str
    transcription: str | None
    transcription_error: str | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class VoiceNoteDraft:
    """A transcribed (or failed) recording, before it has an id."""

    original_name: str
    transcription_status: str
    transcription: str | None = None
    transcription_error: str | None = None
    audio_format: str | None = None
    duration_seconds: float | None = None
    language: str | None = None


@attrs.frozen
class AudioUpload:
    """The uploaded recording: the name it was sent under, and where its bytes are."""

    name: str
    path: Path


@attrs.frozen
class VoiceInput:
    """Fields of `POST /knowledge-base/voice`. `language` is an ISO 639-1 code, or None to let the
    transcriber decide."""

    title: str
    audio_file: AudioUpload
    language: str | None = None
    description: str | None = None
    business_description: str | None = None
    status: str = "active"


@attrs.frozen
class VoiceResult:
    """The new entry and its voice note."""

    knowledge_base: KnowledgeBaseEntry
    voice_note: VoiceNote


class VoiceNoteRepository(Protocol):
    """The voice notes of one account's voice entries."""

    def add(self, entry_id: int, draft: VoiceNoteDraft, now: datetime) -> VoiceNote:
        """Store the entry's voice note."""

    def for_entry(self, entry_id: int) -> list[VoiceNote]:
        """The entry's voice notes in the order they were added (empty for an unknown entry)."""


class VoiceRepositories(Protocol):
    """What a workspace unit of work hands out for voice notes."""

    @property
    def knowledge_voice_notes(self) -> VoiceNoteRepository:
        """The voice notes of voice entries."""


def processing_payload(
    entry: KnowledgeBaseEntry, note: VoiceNote, occurred_at: datetime
) -> tuple[str, Mapping[str, Any]]:
    """The `knowledge_base.processing.completed`/`.failed` event of a voice note (SPEC 6)."""
    failed = note.transcription_status == FAILED
    name = "knowledge_base.processing.failed" if failed else "knowledge_base.processing.completed"
    return name, {
        "knowledge_base_id": entry.id,
        "title": entry.title,
        "type": entry.type,
        "item_id": note.id,
        "error": note.transcription_error,
        "occurred_at": format_timestamp(occurred_at),
    }


__all__ = [
    "AudioUpload",
    "VoiceInput",
    "VoiceNote",
    "VoiceNoteDraft",
    "VoiceNoteRepository",
    "VoiceResult",
    "processing_payload",
]
