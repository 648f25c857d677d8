"""In-memory stand-ins for the speech ports, for service tests: no decoding, no model, no network.

`FakeTranscriber` answers every note with the text it was given (or the text set for particular
bytes), records each call, and fails the way the real ones do: for a language outside `languages`,
for bytes listed in `not_audio`, or with the failure set by `fail_with`. `FakeAudioProber` returns
the probe it was given.
"""

from __future__ import annotations

import threading

import attrs

from engage_core.knowledge.transcription import (
    AudioFormat,
    AudioInput,
    AudioProbe,
    Transcript,
    TranscriptionFailed,
)


def _read(audio: AudioInput) -> bytes:
    return audio if isinstance(audio, bytes) else audio.read_bytes()


@attrs.define
class FakeTranscriber:
    """`text` for every note, `texts[data]` for particular bytes; `languages` None accepts any."""

    text: str = "This is a fake transcript."
    duration_seconds: float = 3.0
    languages: frozenset[str] | None = frozenset({"en"})
    texts: dict[bytes, str] = attrs.Factory(dict)
    not_audio: frozenset[bytes] = frozenset()
    calls: list[tuple[bytes, str | None]] = attrs.Factory(list)
    _failure: TranscriptionFailed | None = None
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False)

    def fail_with(self, failure: TranscriptionFailed | None) -> None:
        """Raise `failure` from every later call (None: succeed again)."""
        self._failure = failure

    def transcribe(self, audio: AudioInput, *, language: str | None) -> Transcript:
        data = _read(audio)
        with self._lock:
            self.calls.append((data, language))
        if self._failure is not None:
            raise self._failure
        if data in self.not_audio:
            raise TranscriptionFailed.not_audio()
        if language is not None and self.languages is not None and language not in self.languages:
            raise TranscriptionFailed.no_offline_model(language)
        recognised = language or (min(self.languages) if self.languages else None)
        return Transcript(self.texts.get(data, self.text), recognised, self.duration_seconds)


@attrs.define
class FakeAudioProber:
    """Returns `result` for every note, or raises `failure` when set."""

    result: AudioProbe = attrs.Factory(lambda: AudioProbe(AudioFormat.MP3, "mp3", 3.0, 16000, 1))
    failure: TranscriptionFailed | None = None

    def probe(self, audio: AudioInput) -> AudioProbe:
        if self.failure is not None:
            raise self.failure
        return self.result
