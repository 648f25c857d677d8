"""Voice entries over HTTP (SPEC 4, `POST /knowledge-base/voice`): a recording transcribed before the
response, searchable, shown with the entry; a failed transcription still creates the entry; events
and limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from http_support import Api, Tenant

from engage_core.knowledge.transcription import TranscriptionFailed
from engage_core.knowledge.transcription_fakes import FakeAudioProber, FakeTranscriber
from engage_core.testing import InMemoryUnitOfWorkFactory

BASE = "/knowledge-base"
VOICE = f"{BASE}/voice"
AUDIO = b"ID3 fake mp3 bytes"


def record(api: Api, data: bytes = AUDIO, name: str = "note.mp3", **fields: str) -> Any:
    return api.post(VOICE, data={"title": "Founder's note", **fields}, files={"audio_file": (name, data, "audio/mpeg")})


def test_a_voice_entry_answers_201_with_the_transcribed_note(api: Api, transcriber: FakeTranscriber) -> None:
    """The response holds `knowledge_base` and a `completed` voice note with its transcription."""
    transcriber.text = "We deliver on Saturdays."

    response = record(api)

    data = response.json()["data"]
    assert response.status_code == 201
    assert data["knowledge_base"]["type"] == "voice"
    note = data["voice_note"]
    assert {k: v for k, v in note.items() if k != "id"} == {
        "original_name": "note.mp3",
        "transcription_status": "completed",
        "transcription": "We deliver on Saturdays.",
        "transcription_error": None,
        "language": "en",
        "duration_seconds": 3.0,
    }


def test_the_transcription_is_searchable_at_once(api: Api, transcriber: FakeTranscriber) -> None:
    """The transcription is chunked in the same transaction as the entry."""
    transcriber.text = "We deliver on Saturdays."
    entry = record(api).json()["data"]["knowledge_base"]

    results = api.get(f"{BASE}/search", params={"q": "saturday delivery"}).json()["data"]["results"]
    assert [r["knowledge_base_id"] for r in results] == [entry["id"]]


def test_the_language_is_passed_to_the_transcriber(api: Api, transcriber: FakeTranscriber) -> None:
    """`language` reaches the transcriber (lower-cased); left out, it decides."""
    record(api, language="EN")
    record(api)

    assert [language for _, language in transcriber.calls] == ["en", None]


def test_a_language_without_a_model_fails_the_note_but_keeps_the_entry(
    api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Arabic with the offline transcriber: the note is `failed` with the reason; the entry exists."""
    response = record(api, language="ar")

    data = response.json()["data"]
    assert response.status_code == 201
    assert (data["voice_note"]["transcription_status"], data["voice_note"]["transcription"]) == ("failed", None)
    assert "No offline speech model exists for Arabic (ar)" in data["voice_note"]["transcription_error"]
    assert api.get(f"{BASE}/{data['knowledge_base']['id']}").status_code == 200


def test_a_file_that_is_not_audio_fails_the_note(api: Api, prober: FakeAudioProber) -> None:
    """A recording the prober cannot read is a `failed` note saying so, never an error of the request."""
    prober.failure = TranscriptionFailed.not_audio()

    note = record(api, b"not audio").json()["data"]["voice_note"]

    assert (note["transcription_status"], note["transcription_error"]) == (
        "failed",
        "The file is not audio that can be decoded",
    )


def test_events_announce_the_entry_and_the_transcription(
    api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory, transcriber: FakeTranscriber
) -> None:
    """`knowledge_base.created`, then `.processing.completed` with the note as `item_id`; a failure `.failed`."""
    data = record(api).json()["data"]
    transcriber.fail_with(TranscriptionFailed.service_unavailable("timed out"))
    record(api)

    created, completed, _, failed = uow.store.events(tenant.account_id)
    assert (created.name, completed.name, failed.name) == (
        "knowledge_base.created",
        "knowledge_base.processing.completed",
        "knowledge_base.processing.failed",
    )
    assert completed.payload == {
        "knowledge_base_id": data["knowledge_base"]["id"],
        "title": "Founder's note",
        "type": "voice",
        "item_id": data["voice_note"]["id"],
        "error": None,
        "occurred_at": "2026-01-01T12:00:00.000000Z",
    }
    assert failed.payload["error"] == "The transcription service is unavailable (timed out); try again later"


def test_the_entry_shows_its_voice_note(api: Api) -> None:
    """`GET /knowledge-base/{id}` of a voice entry lists its voice note."""
    data = record(api).json()["data"]

    shown = api.get(f"{BASE}/{data['knowledge_base']['id']}").json()["data"]
    assert [n["id"] for n in shown["voice_notes"]] == [data["voice_note"]["id"]]


def test_a_recording_over_10_mb_is_refused(api: Api, transcriber: FakeTranscriber) -> None:
    """Above 10 MB is a 422 on `audio_file`, and nothing is transcribed."""
    response = record(api, b"a" * (10 * 1024 * 1024 + 1))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["audio_file"])
    assert transcriber.calls == []


def test_a_language_that_is_not_a_code_is_refused(api: Api) -> None:
    """`language` is a two-letter ISO 639-1 code."""
    response = record(api, language="english")

    assert (response.status_code, "language" in response.json()["errors"]) == (422, True)


def test_the_audio_file_is_required(api: Api) -> None:
    """A form without `audio_file` is a 422 on it."""
    response = api.post(VOICE, data={"title": "T"}, files={"other": ("x.mp3", AUDIO)})

    assert (response.status_code, "audio_file" in response.json()["errors"]) == (422, True)


def test_another_accounts_voice_entry_is_not_found(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """Another account's voice entry is a 404."""
    theirs = record(client_for(make_tenant("Other"))).json()["data"]["knowledge_base"]

    assert api.get(f"{BASE}/{theirs['id']}").status_code == 404


def test_a_file_name_holding_nul_is_refused(api: Api) -> None:
    """A raw NUL in the part's file name (no database column can store it) is a 422, not a 500."""
    body = (
        b'--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nT\r\n'
        b'--b\r\nContent-Disposition: form-data; name="audio_file"; filename="a\x00b.txt"\r\n\r\nx\r\n--b--\r\n'
    )

    response = api.post(VOICE, content=body, headers={"Content-Type": "multipart/form-data; boundary=b"})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["audio_file"])
