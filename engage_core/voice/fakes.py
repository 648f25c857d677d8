"""In-memory fakes of voice's ports: its rows, a synthesizer whose audio lasts in proportion to the
text, a cloning provider and a sample prober that trusts a header."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import BinaryIO

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.voice.model import ClonedVoice, VoiceSettings
from engage_core.voice.ports import (
    CachedSpeech,
    CloningUnavailable,
    SampleProbe,
    SampleRefused,
    Speech,
    SpeechRequest,
    SynthesisFailed,
)


@attrs.define
class VoiceTables(Tables):
    """Voice rows: settings by account, cached speech by (account, cache key)."""

    voice_settings: dict[int, VoiceSettings] = attrs.Factory(dict)
    voice_speech_cache: dict[tuple[int, str], CachedSpeech] = attrs.Factory(dict)


class _Repo(Repo):
    @property
    def _t(self) -> VoiceTables:
        return self._state.of(VoiceTables)


class InMemoryVoiceSettingsRepository(_Repo):
    """The in-memory :class:`.VoiceSettingsRepository`."""

    def get(self) -> VoiceSettings | None:
        """In memory, as :meth:`.VoiceSettingsRepository.get`."""
        return self._t.voice_settings.get(self._account)

    def lock(self, now: datetime) -> VoiceSettings:
        """In memory, as :meth:`.VoiceSettingsRepository.lock` (transactions are serialisable)."""
        return self._t.voice_settings.setdefault(self._account, VoiceSettings())

    def save(self, settings: VoiceSettings, now: datetime) -> None:
        """In memory, as :meth:`.VoiceSettingsRepository.save`."""
        self._t.voice_settings[self._account] = settings


class InMemorySpeechCacheRepository(_Repo):
    """The in-memory :class:`.SpeechCacheRepository`."""

    def get(self, cache_key: str) -> CachedSpeech | None:
        """In memory, as :meth:`.SpeechCacheRepository.get`."""
        return self._t.voice_speech_cache.get((self._account, cache_key))

    def add(self, speech: CachedSpeech, now: datetime) -> bool:
        """In memory, as :meth:`.SpeechCacheRepository.add`."""
        key = (self._account, speech.cache_key)
        if key in self._t.voice_speech_cache:
            return False
        self._t.voice_speech_cache[key] = speech
        return True

    def remove_cloned(self) -> Sequence[str]:
        """In memory, as :meth:`.SpeechCacheRepository.remove_cloned`."""
        mine = [k for k, v in self._t.voice_speech_cache.items() if k[0] == self._account and v.cloned]
        return [self._t.voice_speech_cache.pop(k).storage_key for k in mine]

    def storage_keys(self) -> Sequence[str]:
        """In memory, as :meth:`.SpeechCacheRepository.storage_keys`."""
        return [v.storage_key for k, v in self._t.voice_speech_cache.items() if k[0] == self._account]


SECONDS_PER_CHARACTER = 0.06


class FakeSynthesizer:
    """A :class:`.SpeechSynthesizer` whose "audio" names the request and lasts
    `SECONDS_PER_CHARACTER` per character; Arabic dialects other than MSA fall back to it.
    `spoken` lists the requests it was given; `fail_with` makes the next call fail."""

    engine = "fake"

    def __init__(self) -> None:
        self.spoken: list[SpeechRequest] = []
        self.fail_with: SynthesisFailed | None = None

    def synthesize(self, request: SpeechRequest) -> Speech:
        """Fake audio (:meth:`.SpeechSynthesizer.synthesize`)."""
        if self.fail_with is not None:
            failure, self.fail_with = self.fail_with, None
            raise failure
        self.spoken.append(request)
        fallback = request.language == "ar" and request.dialect not in ("arb", "msa")
        dialect = "arb" if fallback else request.dialect
        audio = f"{request.voice.name if request.voice else '-'}|{request.language}|{request.text}".encode()
        return Speech(audio, len(request.text) * SECONDS_PER_CHARACTER, dialect, fallback, self.engine)


class FakeCloner:
    """A configured :class:`.VoiceCloner` that clones anything; `refuse()` makes it behave like no
    provider. `preloaded` and `deleted` record the calls."""

    configured = True

    def __init__(self) -> None:
        self.samples: list[bytes] = []
        self.preloaded: list[str] = []
        self.deleted: list[str] = []
        self.spoken: list[tuple[str, SpeechRequest]] = []
        self._refused = False

    def refuse(self) -> None:
        """Refuse every clone from now on, as an installation without a provider does."""
        self._refused = True

    def clone(self, sample: BinaryIO, filename: str, request: ClonedVoice) -> str:
        """A new voice id for the sample."""
        if self._refused:
            raise CloningUnavailable("no cloning provider")
        self.samples.append(sample.read())
        return f"clone-{len(self.samples)}"

    def preload(self, voice_id: str) -> None:
        """Record the preload."""
        self.preloaded.append(voice_id)

    def synthesize(self, voice_id: str, request: SpeechRequest) -> Speech:
        """Fake audio of the cloned voice."""
        self.spoken.append((voice_id, request))
        return Speech(f"{voice_id}|{request.text}".encode(), len(request.text) * SECONDS_PER_CHARACTER, request.dialect)

    def delete(self, voice_id: str) -> None:
        """Record the deletion."""
        self.deleted.append(voice_id)


class FakeSampleProber:
    """A :class:`.SampleProber` for samples made by `fake_sample(seconds)`; anything else is refused."""

    def probe(self, source: BinaryIO) -> SampleProbe:
        """The duration the sample's header states."""
        head = source.read(32)
        if not head.startswith(b"FAKEWAV:"):
            raise SampleRefused("The file is not an accepted audio format.")
        return SampleProbe("wav", float(head[8:].split(b";")[0]))


def fake_sample(seconds: float, size: int = 1024) -> bytes:
    """A sample `FakeSampleProber` reads as lasting `seconds`."""
    head = f"FAKEWAV:{seconds};".encode()
    return head + b"\0" * max(size - len(head), 0)


AREA = FakeArea(
    VoiceTables,
    workspace={
        "voice_settings": InMemoryVoiceSettingsRepository,
        "speech_cache": InMemorySpeechCacheRepository,
    },
)
