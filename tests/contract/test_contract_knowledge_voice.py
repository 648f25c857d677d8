"""Voice notes of voice entries on every adapter: stored with their transcription or failure, scoped
to the account, removed with their entry; and the voice service over them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import NOW

from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.knowledge.transcription_fakes import FakeAudioProber, FakeTranscriber
from engage_core.knowledge.voice import AudioUpload, VoiceInput, VoiceNoteDraft
from engage_core.knowledge.voice_service import KnowledgeVoiceService
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _entry(uow: UnitOfWorkFactory, account: int) -> int:
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(KnowledgeBaseDraft("Note", "voice"), NOW)
        unit.commit()
    return entry.id


def test_a_voice_note_reads_back(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of a stored note survives the round trip."""
    entry = _entry(uow, account)
    draft = VoiceNoteDraft("a.ogg", "completed", "Hello there", None, "ogg", 4.5, "en")
    with uow.workspace(account) as unit:
        stored = unit.knowledge_voice_notes.add(entry, draft, NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_voice_notes.for_entry(entry) == [stored]
    assert (stored.original_name, stored.audio_format, stored.duration_seconds, stored.language) == (
        "a.ogg",
        "ogg",
        4.5,
        "en",
    )
    assert (stored.transcription_status, stored.transcription, stored.transcription_error) == (
        "completed",
        "Hello there",
        None,
    )


def test_another_accounts_voice_notes_are_not_seen(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """The notes of another account's entry read as none, and go with their entry."""
    entry = _entry(uow, other)
    with uow.workspace(other) as unit:
        unit.knowledge_voice_notes.add(entry, VoiceNoteDraft("a.mp3", "failed", None, "No speech"), NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_voice_notes.for_entry(entry) == []
    with uow.workspace(other) as unit:
        unit.knowledge_base.delete(entry)
        assert unit.knowledge_voice_notes.for_entry(entry) == []
        unit.commit()


def test_the_service_stores_a_searchable_transcription(
    uow: UnitOfWorkFactory, clock: FakeClock, account: int, tmp_path: Path
) -> None:
    """A transcribed note is `completed`, and its text is found by search."""
    audio = tmp_path / "note"
    audio.write_bytes(b"ID3")
    service = KnowledgeVoiceService(uow, clock, FakeTranscriber(text="Deliveries run on Saturdays."), FakeAudioProber())

    created = service.create(account, VoiceInput("Founder", AudioUpload("note.mp3", audio)))

    assert created.voice_note.transcription_status == "completed"
    with uow.workspace(account, readonly=True) as unit:
        hits = unit.knowledge_search.search("saturdays")
    assert [h.knowledge_base_id for h in hits] == [created.knowledge_base.id]
