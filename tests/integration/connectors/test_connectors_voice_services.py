"""The production voice adapters against a local fake service on 127.0.0.1: the OpenAI-compatible
`/audio/speech` synthesizer and the HTTP cloning provider, with real audio in the answers."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from fake_voice_services import FakeVoiceService
from voice_notes import require_espeak

from engage_connectors.voice.cloning_http import HttpVoiceCloner
from engage_connectors.voice.encoding import m4a_duration
from engage_connectors.voice.openai_speech import OpenAISpeechSynthesizer
from engage_core.voice.catalogue import voice_named
from engage_core.voice.model import ClonedVoice
from engage_core.voice.ports import SpeechRequest, SynthesisFailed

KEY = "sk-test-speech-key-5678"


@pytest.fixture
def service() -> Iterator[FakeVoiceService]:
    require_espeak()
    with FakeVoiceService() as fake:
        yield fake


def request(text: str = "Hello from the speech service.", **fields: object) -> SpeechRequest:
    return SpeechRequest(text, "en", "en", voice_named("Layla"), **fields)  # type: ignore[arg-type]


def test_speech_posts_the_openai_request(service: FakeVoiceService) -> None:
    """Model, input, a mapped voice, WAV format, the style as instructions, and the key as bearer."""
    OpenAISpeechSynthesizer(service.base_url, KEY, model="tts-test").synthesize(request(style_prompt="cheerful"))
    seen = service.seen[0]
    assert (seen.path, seen.headers["authorization"]) == ("/v1/audio/speech", f"Bearer {KEY}")
    assert seen.json() == {
        "model": "tts-test",
        "input": "Hello from the speech service.",
        "voice": "nova",
        "response_format": "wav",
        "instructions": "cheerful",
    }


def test_speech_comes_back_as_m4a_with_its_real_duration(service: FakeVoiceService) -> None:
    """The service's WAV is encoded to m4a and measured."""
    speech = OpenAISpeechSynthesizer(service.base_url, None).synthesize(request())
    assert speech.audio[4:8] == b"ftyp"
    assert m4a_duration(speech.audio) == pytest.approx(speech.duration_seconds, abs=0.1)


def test_a_refusal_carries_the_service_message(service: FakeVoiceService) -> None:
    """A 400 is the text's fault, with the service's own message."""
    service.status = 400
    with pytest.raises(SynthesisFailed) as failed:
        OpenAISpeechSynthesizer(service.base_url, KEY).synthesize(request())
    assert ("refused by fake" in failed.value.reason, failed.value.unavailable) == (True, False)


def test_a_server_error_is_unavailable_and_hides_the_key(service: FakeVoiceService) -> None:
    """A 503 is the service's outage; the key appears in no message."""
    service.status = 503
    with pytest.raises(SynthesisFailed) as failed:
        OpenAISpeechSynthesizer(service.base_url, KEY).synthesize(request())
    assert failed.value.unavailable and KEY not in str(failed.value)


def test_an_answer_that_is_not_audio_is_refused(service: FakeVoiceService) -> None:
    """HTML where audio should be is not passed on as speech."""
    service.audio = b"<html>oops</html>"
    with pytest.raises(SynthesisFailed):
        OpenAISpeechSynthesizer(service.base_url, KEY).synthesize(request())


def test_no_service_is_unavailable() -> None:
    """A port nobody listens on is an outage, not the text's fault."""
    with pytest.raises(SynthesisFailed) as failed:
        OpenAISpeechSynthesizer("http://127.0.0.1:9/v1", None, timeout=5).synthesize(request())
    assert failed.value.unavailable


def test_cloning_uploads_the_sample_with_its_fields(service: FakeVoiceService) -> None:
    """POST /voices carries the recording and the clone's fields, and the provider's id comes back."""
    cloner = HttpVoiceCloner(service.base_url, KEY)
    voice_id = cloner.clone(
        io.BytesIO(b"RIFF....WAVE"), "me.wav", ClonedVoice("", "Me", "ar", "ksa", "male", "narrator")
    )
    seen = service.seen[0]
    assert (voice_id, seen.path, seen.headers["authorization"]) == ("provider-voice-1", "/v1/voices", f"Bearer {KEY}")
    assert b'name="dialect"' in seen.body and b"ksa" in seen.body and b"RIFF....WAVE" in seen.body


def test_a_cloned_voice_speaks_preloads_and_is_deleted(service: FakeVoiceService) -> None:
    """Speech, preload and delete go to the voice's own paths; speech is real m4a."""
    cloner = HttpVoiceCloner(service.base_url, None)
    speech = cloner.synthesize("v/1", SpeechRequest("Hello there", "en", "en"))
    cloner.preload("v/1")
    cloner.delete("v/1")
    assert [(s.method, s.path) for s in service.seen] == [
        ("POST", "/v1/voices/v%2F1/speech"),
        ("POST", "/v1/voices/v%2F1/preload"),
        ("DELETE", "/v1/voices/v%2F1"),
    ]
    assert speech.duration_seconds > 0.3


def test_a_clone_answer_without_an_id_is_refused(service: FakeVoiceService) -> None:
    """A provider that answers no voice id has not cloned anything."""
    service.voice_id = ""
    with pytest.raises(SynthesisFailed):
        HttpVoiceCloner(service.base_url, None).clone(
            io.BytesIO(b"x"), "me.wav", ClonedVoice("", "Me", "en", "en", "female", "conversational")
        )
