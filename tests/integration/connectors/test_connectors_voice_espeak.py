"""The offline synthesizer for real: espeak-ng audio encoded to m4a, checked with a decoder."""

from __future__ import annotations

import pytest
from voice_notes import require_espeak

from engage_connectors.voice.encoding import m4a_duration
from engage_connectors.voice.espeak import EspeakSynthesizer
from engage_core.voice.catalogue import VOICES, voice_named
from engage_core.voice.ports import SpeechRequest, SynthesisFailed

pytestmark = pytest.mark.usefixtures("espeak")


@pytest.fixture(scope="module")
def espeak() -> None:
    require_espeak()


def say(text: str, language: str = "en", dialect: str | None = "en", voice: str = "Layla") -> object:
    return EspeakSynthesizer().synthesize(SpeechRequest(text, language, dialect, voice_named(voice)))


def test_the_audio_is_valid_m4a_of_the_stated_duration() -> None:
    """The bytes are an MP4 container whose decoded length is the duration reported."""
    speech = say("Hello and welcome to our shop.")
    assert speech.audio[4:8] == b"ftyp"
    assert m4a_duration(speech.audio) == pytest.approx(speech.duration_seconds, abs=0.1)


def test_the_duration_grows_with_the_text() -> None:
    """A longer text makes longer audio."""
    short = say("Hello.")
    long = say("Hello. Thank you for your order; it will arrive on Thursday morning before ten.")
    assert long.duration_seconds > short.duration_seconds + 2


def test_arabic_text_produces_audio() -> None:
    """Arabic text in MSA speaks for a while and reports no fallback."""
    speech = say("مرحبا بكم في متجرنا، كيف يمكنني مساعدتك اليوم؟", "ar", "arb")
    assert (speech.duration_seconds > 2, speech.dialect, speech.dialect_fallback) == (True, "arb", False)


def test_a_dialect_without_an_offline_voice_falls_back_to_msa() -> None:
    """Egyptian Arabic is spoken in MSA, and the speech says so."""
    speech = say("أهلا وسهلا", "ar", "egy")
    assert (speech.dialect, speech.dialect_fallback) == ("arb", True)


def test_two_voices_sound_different() -> None:
    """A female and a male voice produce different audio for the same text."""
    assert say("Good morning", voice="Layla").audio != say("Good morning", voice="Omar").audio


def test_every_voice_speaks() -> None:
    """Each of the 30 built-in voices maps to a variant espeak-ng has."""
    for voice in VOICES:
        assert say("Hi", voice=voice.name).duration_seconds > 0.1


def test_text_cannot_act_as_an_option() -> None:
    """Text that looks like a command-line option is spoken, not obeyed."""
    assert say("--version -w /tmp/x.wav").duration_seconds > 0.5


def test_a_missing_binary_is_unavailable() -> None:
    """Without espeak-ng the failure says the engine is unavailable."""
    with pytest.raises(SynthesisFailed) as failed:
        EspeakSynthesizer("/nonexistent/espeak-ng").synthesize(SpeechRequest("Hi", "en", "en", VOICES[0]))
    assert failed.value.unavailable
