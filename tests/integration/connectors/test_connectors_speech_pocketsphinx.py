"""Offline English transcription with pocketsphinx, from every accepted format.

Recognition takes one to three seconds a clip on 2 cores: one transcriber serves the module, and
each format is transcribed once. Synthetic speech is not perfect input, so a transcript passes
when it holds most of the sentence's distinctive words.
"""

from __future__ import annotations

import threading

import pytest
from voice_notes import ARABIC_SENTENCE, ENGLISH_SENTENCE, ENGLISH_WORDS, encode, speak

from engage_connectors.speech.pocketsphinx_transcriber import PocketsphinxTranscriber
from engage_core.knowledge.transcription import AudioFormat, Transcript, TranscriptionFailed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def transcriber() -> PocketsphinxTranscriber:
    return PocketsphinxTranscriber(max_seconds=30)


def _recognised_words(transcript: Transcript) -> set[str]:
    return set(ENGLISH_WORDS) & set(transcript.text.lower().split())


@pytest.mark.parametrize("fmt", list(AudioFormat))
def test_an_english_sentence_is_transcribed(transcriber: PocketsphinxTranscriber, fmt: AudioFormat) -> None:
    """Most words of a spoken English sentence come back, in English, with the note's duration."""
    transcript = transcriber.transcribe(encode(speak(ENGLISH_SENTENCE), fmt), language="en")
    assert len(_recognised_words(transcript)) >= 3, transcript.text
    assert transcript.language == "en"
    assert 3.0 < transcript.duration_seconds < 4.5


def test_a_note_gets_the_same_transcript_every_time(transcriber: PocketsphinxTranscriber) -> None:
    """A pooled decoder's earlier notes do not change the next transcript."""
    note = encode(speak(ENGLISH_SENTENCE), AudioFormat.MP3)
    first = transcriber.transcribe(note, language="en")
    transcriber.transcribe(encode(speak(ENGLISH_SENTENCE), AudioFormat.WAV), language="en")
    assert transcriber.transcribe(note, language="en").text == first.text


def test_arabic_is_refused_with_the_setting_to_configure(transcriber: PocketsphinxTranscriber) -> None:
    """An Arabic note is refused: no offline model, and the service setting is named."""
    with pytest.raises(TranscriptionFailed) as failed:
        transcriber.transcribe(speak(ARABIC_SENTENCE, voice="ar"), language="ar")
    assert failed.value.reason == (
        "No offline speech model exists for Arabic (ar): "
        "configure ENGAGE_TRANSCRIPTION_URL for an OpenAI-compatible service"
    )
    assert not failed.value.retryable


def test_a_text_file_is_not_audio(transcriber: PocketsphinxTranscriber) -> None:
    """Text bytes are refused as not audio before any recognition."""
    with pytest.raises(TranscriptionFailed, match="The file is not audio that can be decoded"):
        transcriber.transcribe(b"ID3 is how this text starts, but it is not an MP3 at all." * 10, language="en")


def test_a_note_over_the_duration_cap_is_refused() -> None:
    """A note longer than the transcriber's cap is refused before recognition."""
    with pytest.raises(TranscriptionFailed, match="The voice note is longer than 2 seconds"):
        PocketsphinxTranscriber(max_seconds=2).transcribe(speak(ENGLISH_SENTENCE), language=None)


def test_concurrent_calls_each_get_their_transcript(transcriber: PocketsphinxTranscriber) -> None:
    """Two threads transcribing at once both get the sentence (decoders are never shared)."""
    note = encode(speak(ENGLISH_SENTENCE), AudioFormat.OGG)
    results: list[Transcript] = []

    def run() -> None:
        results.append(transcriber.transcribe(note, language=None))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 2
    assert all(len(_recognised_words(result)) >= 3 for result in results)
