"""Which transcriber the settings choose."""

from __future__ import annotations

from engage_connectors.speech.openai_compatible import OpenAICompatibleTranscriber
from engage_connectors.speech.pocketsphinx_transcriber import PocketsphinxTranscriber
from engage_connectors.speech.wiring import transcriber_for


def test_without_a_service_url_notes_are_transcribed_offline() -> None:
    """No URL: the offline English transcriber."""
    assert isinstance(transcriber_for(None), PocketsphinxTranscriber)


def test_a_service_url_sends_every_note_to_the_service() -> None:
    """A URL: the OpenAI-compatible transcriber, with the model asked for."""
    transcriber = transcriber_for("https://speech.example/v1", "key", "whisper-large-v3")
    assert isinstance(transcriber, OpenAICompatibleTranscriber)
    assert repr(transcriber) == (
        "OpenAICompatibleTranscriber('https://speech.example/v1/audio/transcriptions', model='whisper-large-v3')"
    )
    transcriber.close()
