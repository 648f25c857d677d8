"""Voice entries: an uploaded recording transcribed into a searchable text (SPEC 4
`POST /knowledge-base/voice`); see `voice` for the record and its states.

The recording is probed (`AudioProber`: format and duration from the content) and transcribed
(`Transcriber`) before anything is stored, outside any transaction: offline recognition runs at
about real time, and a transaction held that long would block every other write. Then one unit of
work stores the entry, its voice note, the chunks of the transcription and the events.
"""

from __future__ import annotations

import re

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.chunking import chunk_text
from engage_core.knowledge.embedding_jobs import NO_EMBEDDINGS, EmbeddingQueue
from engage_core.knowledge.entries import validate_fields
from engage_core.knowledge.transcription import (
    VOICE_NOTE_MAX_BYTES,
    AudioProber,
    Transcriber,
    TranscriptionFailed,
)
from engage_core.knowledge.voice import (
    COMPLETED,
    ERROR_MAX,
    FAILED,
    NAME_MAX,
    VOICE,
    AudioUpload,
    VoiceInput,
    VoiceNoteDraft,
    VoiceResult,
    processing_payload,
)
from engage_core.unit_of_work import UnitOfWorkFactory

_LANGUAGE = re.compile(r"[a-z]{2}")


class KnowledgeVoiceService:
    """Voice entries. Invalid fields (a language that is not an ISO 639-1 code, a recording over
    10 MB, no file name) raise :class:`.ValidationFailed` and nothing is stored. A recording that
    cannot be transcribed is stored `failed`, never an error of the request."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        transcriber: Transcriber,
        prober: AudioProber,
        embeddings: EmbeddingQueue = NO_EMBEDDINGS,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._transcriber = transcriber
        self._prober = prober
        self._embeddings = embeddings

    def create(self, account_id: int, data: VoiceInput) -> VoiceResult:
        """A new `voice` entry with its transcribed note, searchable when this returns. Emits
        `knowledge_base.created`, then `knowledge_base.processing.completed` or `.failed`."""
        draft = validate_fields(VOICE, data.title, data.description, data.business_description, data.status)
        language = _check(data)
        note = self._transcribe(data.audio_file, language)
        chunks = chunk_text(note.transcription, title=draft.title) if note.transcription else []
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.add(draft, now)
            stored = uow.knowledge_voice_notes.add(entry.id, note, now)
            uow.knowledge_chunks.replace(entry.id, chunks, now)
            self._embeddings.changed(uow, entry.id, now)
            uow.emit(DomainEvent("knowledge_base.created", entry.event_payload(), now))
            name, payload = processing_payload(entry, stored, now)
            uow.emit(DomainEvent(name, payload, now))
            uow.commit()
        return VoiceResult(entry, stored)

    def _transcribe(self, audio: AudioUpload, language: str | None) -> VoiceNoteDraft:
        """`completed` with the text, or `failed` with the reason."""
        probe = None
        try:
            probe = self._prober.probe(audio.path)
            transcript = self._transcriber.transcribe(audio.path, language=language)
        except TranscriptionFailed as failure:
            return VoiceNoteDraft(
                audio.name,
                FAILED,
                transcription_error=failure.reason[:ERROR_MAX],
                audio_format=None if probe is None else probe.format.value,
                duration_seconds=None if probe is None else probe.duration_seconds,
                language=language,
            )
        text = transcript.text.strip()
        if not text:
            silent = TranscriptionFailed.no_speech()
            return VoiceNoteDraft(
                audio.name,
                FAILED,
                transcription_error=silent.reason,
                audio_format=probe.format.value,
                language=language,
            )
        return VoiceNoteDraft(
            audio.name,
            COMPLETED,
            transcription=text,
            audio_format=probe.format.value,
            duration_seconds=transcript.duration_seconds,
            language=transcript.language or language,
        )


def _check(data: VoiceInput) -> str | None:
    errors: dict[str, list[str]] = {}
    language = data.language.strip().lower() if data.language and data.language.strip() else None
    if language is not None and not _LANGUAGE.fullmatch(language):
        errors["language"] = ["The language must be a two-letter ISO 639-1 code, such as en or ar."]
    name = data.audio_file.name
    if not name.strip() or len(name) > NAME_MAX or "\x00" in name:
        errors.setdefault("audio_file", []).append(
            f"The audio file needs a name of 1 to {NAME_MAX} characters, without NUL."
        )
    if data.audio_file.path.stat().st_size > VOICE_NOTE_MAX_BYTES:
        errors.setdefault("audio_file", []).append("The audio file may not be larger than 10 MB.")
    if errors:
        raise ValidationFailed(errors)
    return language
