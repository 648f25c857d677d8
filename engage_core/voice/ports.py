"""What voice needs: storage of the settings and of the TTS cache, a speech synthesizer, a cloning
provider, and a decoder that checks clone samples."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import BinaryIO, Protocol

import attrs

from engage_core.voice.catalogue import BuiltinVoice
from engage_core.voice.model import ClonedVoice, VoiceSettings


class VoiceSettingsRepository(Protocol):
    """The voice settings of one account."""

    def get(self) -> VoiceSettings | None:
        """The stored settings, or None before the first write."""

    def save(self, settings: VoiceSettings, now: datetime) -> None:
        """Store the settings (insert or replace)."""

    def lock(self, now: datetime) -> VoiceSettings:
        """The settings (the defaults stored first, at `now`, when there were none), holding the
        row until the commit: writes of one workspace's settings and usage queue here."""


@attrs.frozen
class CachedSpeech:
    """A stored synthesis: the same voice and text are served from it."""

    cache_key: str
    storage_key: str
    duration_seconds: float
    language: str
    dialect: str | None
    dialect_fallback: bool
    cloned: bool


class SpeechCacheRepository(Protocol):
    """The account's synthesised audio, by cache key."""

    def get(self, cache_key: str) -> CachedSpeech | None:
        """The audio stored for `cache_key`, or None."""

    def add(self, speech: CachedSpeech, now: datetime) -> bool:
        """Record the audio; False (nothing written) when the key is already there."""

    def remove_cloned(self) -> Sequence[str]:
        """Forget the audio of the cloned voice; the storage keys it held."""

    def storage_keys(self) -> Sequence[str]:
        """Every storage key the account's cache holds (for the workspace's removal)."""


class VoiceSettingsRepositories(Protocol):
    """What a workspace unit of work hands out for voice."""

    @property
    def voice_settings(self) -> VoiceSettingsRepository:
        """The account's voice settings."""

    @property
    def speech_cache(self) -> SpeechCacheRepository:
        """The account's synthesised audio."""


# -- the engines -------------------------------------------------------------------------------


@attrs.frozen
class SpeechRequest:
    """What to say and how: a built-in voice (None for a cloned one), a language, a dialect."""

    text: str
    language: str
    dialect: str | None
    voice: BuiltinVoice | None = None
    style_prompt: str | None = None


@attrs.frozen
class Speech:
    """Synthesised audio: m4a (AAC) bytes, their decoded duration, and the dialect really spoken
    (`dialect_fallback` when the engine had no voice for the one asked and spoke MSA)."""

    audio: bytes
    duration_seconds: float
    dialect: str | None
    dialect_fallback: bool = False
    engine: str = ""


class SynthesisFailed(Exception):
    """The engine could not speak the text; `reason` is for the caller."""

    def __init__(self, reason: str, *, unavailable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unavailable = unavailable


class SpeechSynthesizer(Protocol):
    """Text to speech with the built-in voices. Thread-safe."""

    @property
    def engine(self) -> str:
        """The engine's name (`espeak-ng`, `openai-compatible`): part of the TTS cache key."""

    def synthesize(self, request: SpeechRequest) -> Speech:
        """Speak `request.text` in `request.voice`. Raises SynthesisFailed."""


class CloningUnavailable(Exception):
    """No cloning engine is configured (offline); the message says what to set."""


class VoiceCloner(Protocol):
    """A provider that clones a voice from a sample and speaks with it. Thread-safe."""

    @property
    def configured(self) -> bool:
        """False for the offline stand-in that refuses every clone."""

    def clone(self, sample: BinaryIO, filename: str, request: ClonedVoice) -> str:
        """Clone the voice of `sample` (`request.voice_id` is ignored); the provider's voice id.
        Raises CloningUnavailable or SynthesisFailed."""

    def preload(self, voice_id: str) -> None:
        """Warm the voice so that the next synthesis starts quickly."""

    def synthesize(self, voice_id: str, request: SpeechRequest) -> Speech:
        """Speak with the cloned voice. Raises CloningUnavailable or SynthesisFailed."""

    def delete(self, voice_id: str) -> None:
        """Forget the voice at the provider (best effort)."""


@attrs.frozen
class SampleProbe:
    """What a clone sample is: its format (by content) and its decoded duration."""

    format: str
    duration_seconds: float


class SampleRefused(Exception):
    """The sample is not an accepted audio file; `reason` is for the uploader."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SampleProber(Protocol):
    """Checks a clone sample by its content (`engage_connectors.voice.samples`)."""

    def probe(self, source: BinaryIO) -> SampleProbe:
        """Identify `source` (seekable) and measure it. Raises SampleRefused."""
