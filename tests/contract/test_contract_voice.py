"""Voice on every adapter: the settings row round trip and its defaults, the speech cache (unique
per account and key, cloned audio forgotten on delete), usage accumulated across writes, and the
service over them, all scoped to the account."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import NOW

from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryBlobStore
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.voice.fakes import FakeCloner, FakeSampleProber, FakeSynthesizer, fake_sample
from engage_core.voice.model import CLONE, ClonedVoice, CloneRequest, VoicePatch, VoiceSettings
from engage_core.voice.ports import CachedSpeech
from engage_core.voice.service import VoiceService


@pytest.fixture
def blobs() -> InMemoryBlobStore:
    return InMemoryBlobStore()


@pytest.fixture
def voice(uow: UnitOfWorkFactory, clock: FakeClock, blobs: InMemoryBlobStore, services: Services) -> VoiceService:
    return VoiceService(uow, clock, blobs, FakeSynthesizer(), FakeCloner(), FakeSampleProber(), services.entitlements)


def _speech(key: str, *, cloned: bool = False) -> CachedSpeech:
    return CachedSpeech(key, f"voice/tts/{key}.m4a", 1.5, "ar", "arb", False, cloned)


def test_settings_read_back_with_every_field(uow: UnitOfWorkFactory, account: int) -> None:
    """Every stored field, the clone included, survives the round trip."""
    settings = VoiceSettings(
        enabled=True,
        mode=CLONE,
        preset_voice="Omar",
        preset_language="en-US",
        preset_style_prompt="calm",
        language="en",
        dialect="egy",
        clone=ClonedVoice("v-1", "Me", "ar", "ksa", "male", "narrator"),
        sample_key="voice/samples/ab/abc.bin",
        preloaded_at=NOW,
        usage_month=NOW.replace(day=1, hour=0, minute=0, second=0, microsecond=0),
        seconds_used=12.5,
    )
    with uow.workspace(account) as unit:
        unit.voice_settings.save(settings, NOW)
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert unit.voice_settings.get() == settings


def test_lock_stores_the_defaults_first(uow: UnitOfWorkFactory, account: int) -> None:
    """A workspace without settings gets the default row when one is locked for writing."""
    with uow.workspace(account) as unit:
        assert unit.voice_settings.get() is None
        assert unit.voice_settings.lock(NOW) == VoiceSettings()
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert unit.voice_settings.get() == VoiceSettings()


def test_a_cache_key_is_added_once(uow: UnitOfWorkFactory, account: int) -> None:
    """A second add of the same key writes nothing and reports it."""
    with uow.workspace(account) as unit:
        assert unit.speech_cache.add(_speech("k1"), NOW) is True
        assert unit.speech_cache.add(_speech("k1"), NOW) is False
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert unit.speech_cache.get("k1") == _speech("k1")


def test_the_cache_is_scoped_to_the_account(
    uow: UnitOfWorkFactory, account: int, make_account: Callable[..., int]
) -> None:
    """Another account neither sees nor removes this account's audio."""
    other = make_account("Other")
    with uow.workspace(account) as unit:
        unit.speech_cache.add(_speech("k1", cloned=True), NOW)
        unit.commit()
    with uow.workspace(other) as unit:
        assert (unit.speech_cache.get("k1"), list(unit.speech_cache.remove_cloned())) == (None, [])
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert unit.speech_cache.get("k1") is not None


def test_remove_cloned_forgets_only_the_clones_audio(uow: UnitOfWorkFactory, account: int) -> None:
    """Preset audio stays; the cloned voice's goes, its keys returned."""
    with uow.workspace(account) as unit:
        unit.speech_cache.add(_speech("preset"), NOW)
        unit.speech_cache.add(_speech("clone", cloned=True), NOW)
        assert list(unit.speech_cache.remove_cloned()) == ["voice/tts/clone.m4a"]
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert list(unit.speech_cache.storage_keys()) == ["voice/tts/preset.m4a"]


def test_tts_usage_accumulates_and_the_cache_serves_again(voice: VoiceService, account: int) -> None:
    """Two texts count both durations; the first text again is served from the cache."""
    voice.update(account, VoicePatch(preset_voice="Layla"))
    first = voice.speak(account, "x" * 500)
    voice.speak(account, "y" * 500)
    again = voice.speak(account, "x" * 500)
    assert (again.cached, again.audio_url) == (True, first.audio_url)
    assert voice.settings(account).voice_minutes_remaining == pytest.approx(1000 - 60 / 60)


def test_clone_then_delete_keeps_the_preset(voice: VoiceService, account: int, blobs: InMemoryBlobStore) -> None:
    """A clone sets clone mode; deleting it clears the clone, its audio and sample, keeping the preset."""
    voice.update(account, VoicePatch(preset_voice="Omar"))
    voice.clone(account, CloneRequest("Me"), "me.wav", [fake_sample(20.0)])
    assert voice.settings(account).mode == CLONE
    voice.speak(account, "Hello")
    voice.delete(account)
    view = voice.settings(account)
    assert (view.mode, view.has_cloned_voice, view.preset_voice, blobs.objects) == ("preset", False, "Omar", {})
