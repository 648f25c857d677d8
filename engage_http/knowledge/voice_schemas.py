"""Request and response bodies of voice entries (SPEC 2 Voice note record; SPEC 4
`POST /knowledge-base/voice`)."""

from __future__ import annotations

from typing import Annotated

import attrs

from engage_core.knowledge.voice import VoiceResult
from engage_http.constraints import Doc, Text
from engage_http.knowledge.entry_schemas import BusinessDescription, Description, Title
from engage_http.knowledge.schemas import KnowledgeBase, KnowledgeBaseStatus, KnowledgeVoiceNote
from engage_http.uploads import Upload


@attrs.frozen
class VoiceCreate:
    """A new `voice` entry from one recording (`multipart/form-data` only)."""

    title: Title
    audio_file: Annotated[
        Upload,
        Doc(description="MP3, WAV, M4A, OGG or WEBM, at most 10 MB; the format is read from the content."),
    ]
    language: Annotated[str, Text(pattern="^[A-Za-z]{2}$"), Doc(example="en")] | None = attrs.field(
        default=None,
        metadata={"description": "ISO 639-1 code of the spoken language; left out, the transcriber decides."},
    )
    description: Description | None = None
    business_description: BusinessDescription | None = None
    status: KnowledgeBaseStatus = "active"


@attrs.frozen
class VoiceEntry:
    """The new entry and its voice note."""

    knowledge_base: KnowledgeBase
    voice_note: KnowledgeVoiceNote

    # By hand: `KnowledgeBase` and `KnowledgeVoiceNote` are built by hand.
    @classmethod
    def from_domain(cls, result: VoiceResult) -> VoiceEntry:
        return cls(KnowledgeBase.from_domain(result.knowledge_base), KnowledgeVoiceNote.from_domain(result.voice_note))


__all__ = ["KnowledgeVoiceNote", "VoiceCreate", "VoiceEntry"]
