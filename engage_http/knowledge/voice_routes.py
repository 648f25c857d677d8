"""Knowledge base (SPEC 4): voice entries from an uploaded recording.

`POST /knowledge-base/voice` takes `multipart/form-data` only. The recording is written to a
temporary file, transcribed before the response, and removed when the request ends: the entry
keeps its transcription, not the audio.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from engage_core.knowledge.voice import AudioUpload, VoiceInput
from engage_http.knowledge.voice_schemas import VoiceCreate, VoiceEntry
from engage_http.operations import Call, Operation

TAG = "Knowledge base"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid (a recording over
10 MB, an upload without a file name)."""

VOICE_BODY_MAX = 11 * 1024 * 1024
"""The whole form: a 10 MB recording and its text fields."""


def create_voice(call: Call[VoiceCreate, None]) -> VoiceEntry:
    body = call.body
    with tempfile.TemporaryDirectory(prefix="engage-voice-") as directory:
        path = Path(directory) / "voice-note"  # never the client's name: it may hold a path
        path.write_bytes(body.audio_file.data)
        data = VoiceInput(
            body.title,
            AudioUpload(body.audio_file.filename, path),
            body.language,
            body.description,
            body.business_description,
            body.status,
        )
        created = call.services.knowledge_voice.create(call.account_id, data)
    return VoiceEntry.from_domain(created)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/knowledge-base/voice",
        create_voice,
        "Create a voice entry",
        TAG,
        VoiceEntry,
        status=201,
        message="Voice entry created.",
        body=VoiceCreate,
        errors=RULES,
        form_only=True,
        body_limit=VOICE_BODY_MAX,
        description="`multipart/form-data` with an `audio_file` (MP3, WAV, M4A, OGG or WEBM, read from the content; "
        "at most 10 MB). The recording is transcribed before the response: the voice note is `completed` with its "
        "`transcription`, chunked and searchable, or `failed` with a `transcription_error` (the entry is created "
        "either way). Emits `knowledge_base.created`, then `knowledge_base.processing.completed` or `.failed`.",
    ),
)
