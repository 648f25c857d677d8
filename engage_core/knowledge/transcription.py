"""Speech to text for voice-note entries (SPEC 4, POST /knowledge-base/voice): the port and its failures.

A voice note is an uploaded MP3, WAV, M4A, OGG or WEBM file of at most 10 MB. Before keeping it the
caller probes it (`AudioProber`): the format comes from the bytes, never from the file name, and the
duration from the container where it declares one. A `Transcriber` then turns it into text; with
`language` None the transcriber decides (an offline English model can only assume English).

Every failure is a `TranscriptionFailed` whose message is meant for the person who uploaded the note
(it becomes the entry's transcription error): it says what is wrong and, where an operator can fix
it, what to configure. It never carries a key or a service's raw answer beyond a short detail.
`retryable` tells a caller that the same note may succeed later (the service was down or slow).
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Protocol

import attrs

VOICE_NOTE_MAX_BYTES = 10 * 1024 * 1024
# Offline recognition runs at about real time on a small machine and the upload waits for it.
DEFAULT_MAX_VOICE_NOTE_SECONDS = 10 * 60

# Names for the messages; any other ISO 639-1 code is shown as the code alone.
_LANGUAGE_NAMES = {
    "ar": "Arabic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fa": "Persian",
    "fr": "French",
    "hi": "Hindi",
    "it": "Italian",
    "ja": "Japanese",
    "nl": "Dutch",
    "pt": "Portuguese",
    "ru": "Russian",
    "tr": "Turkish",
    "ur": "Urdu",
    "zh": "Chinese",
}

AudioInput = Path | bytes
"""A voice note: the bytes of the uploaded file, or the path of a file holding them."""


class AudioFormat(enum.Enum):
    """The accepted voice-note formats, as detected from the content."""

    MP3 = "mp3"
    WAV = "wav"
    M4A = "m4a"
    OGG = "ogg"
    WEBM = "webm"


def language_label(code: str) -> str:
    """`Arabic (ar)`, or the code alone when it has no name here."""
    name = _LANGUAGE_NAMES.get(code.lower())
    return f"{name} ({code})" if name else code


class TranscriptionFailed(Exception):
    """The voice note could not be transcribed; `reason` (also the message) is shown to the user."""

    def __init__(self, reason: str, *, retryable: bool = False) -> None:
        self.reason = reason
        self.retryable = retryable
        super().__init__(reason)

    @classmethod
    def no_offline_model(cls, language: str) -> TranscriptionFailed:
        return cls(
            f"No offline speech model exists for {language_label(language)}: "
            "configure ENGAGE_TRANSCRIPTION_URL for an OpenAI-compatible service"
        )

    @classmethod
    def not_audio(cls) -> TranscriptionFailed:
        return cls("The file is not audio that can be decoded")

    @classmethod
    def unsupported_format(cls, detected: str) -> TranscriptionFailed:
        allowed = ", ".join(f.value.upper() for f in AudioFormat)
        return cls(f"The voice note is {detected}, which is not accepted (use {allowed})")

    @classmethod
    def has_video(cls) -> TranscriptionFailed:
        return cls("The file holds video: a voice note must be audio only")

    @classmethod
    def too_long(cls, max_seconds: float) -> TranscriptionFailed:
        return cls(f"The voice note is longer than {_minutes(max_seconds)}")

    @classmethod
    def too_large(cls, max_bytes: int) -> TranscriptionFailed:
        return cls(f"The voice note is larger than {max_bytes // (1024 * 1024)} MB")

    @classmethod
    def decoding_too_slow(cls) -> TranscriptionFailed:
        return cls("The voice note took too long to decode")

    @classmethod
    def no_speech(cls) -> TranscriptionFailed:
        return cls("No speech was recognised in the voice note")

    @classmethod
    def service_refused_key(cls) -> TranscriptionFailed:
        return cls("Transcription is unavailable: the transcription service refused the key")

    @classmethod
    def service_unavailable(cls, detail: str) -> TranscriptionFailed:
        return cls(f"The transcription service is unavailable ({detail}); try again later", retryable=True)

    @classmethod
    def service_unreadable(cls) -> TranscriptionFailed:
        return cls("The transcription service gave an answer that could not be read")

    @classmethod
    def service_rejected(cls, status: int, detail: str) -> TranscriptionFailed:
        return cls(f"The transcription service refused the voice note ({status}): {detail}")


def _minutes(seconds: float) -> str:
    minutes = seconds / 60
    if minutes == int(minutes):
        return "1 minute" if minutes == 1 else f"{int(minutes)} minutes"
    return f"{seconds:g} seconds"


@attrs.frozen
class Transcript:
    """What was said: the text, the language it was recognised as (None if unknown), and how long
    the recording lasts."""

    text: str
    language: str | None
    duration_seconds: float


@attrs.frozen
class AudioProbe:
    """What a voice note is, read from its content: the container format, the audio codec, and the
    duration the container declares (None when it declares none, as streamed WebM and Ogg may).

    A declared duration can be wrong; transcribers enforce their cap on the decoded samples too."""

    format: AudioFormat
    codec: str
    duration_seconds: float | None
    sample_rate: int
    channels: int


class AudioProber(Protocol):
    def probe(self, audio: AudioInput) -> AudioProbe:
        """Identify the voice note, or raise `TranscriptionFailed` (not audio, not an accepted
        format, holds video, larger than `VOICE_NOTE_MAX_BYTES`)."""


class Transcriber(Protocol):
    """Speech to text. Implementations are thread-safe: one instance serves every request."""

    def transcribe(self, audio: AudioInput, *, language: str | None) -> Transcript:
        """The text of the voice note. `language` is an ISO 639-1 code, or None to let the
        transcriber decide. Raises `TranscriptionFailed`."""
