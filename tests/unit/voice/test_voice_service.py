"""The voice service over the fakes: settings and SPEC 3's mode rules, TTS prerequisites, the cache,
minutes counted from the audio's real duration and enforced, cloning (offline refused, with the
sample kept), preload, delete, and account scoping."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.kernel.errors import FeatureUnavailable, Unavailable, ValidationFailed
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryBlobStore, InMemoryUnitOfWorkFactory
from engage_core.voice.catalogue import VOICES
from engage_core.voice.fakes import FakeCloner, FakeSampleProber, FakeSynthesizer, fake_sample
from engage_core.voice.model import CLONE, PRESET, CloneRequest, VoicePatch
from engage_core.voice.service import VoiceService


@pytest.fixture
def blobs() -> InMemoryBlobStore:
    return InMemoryBlobStore()


@pytest.fixture
def synthesizer() -> FakeSynthesizer:
    return FakeSynthesizer()


@pytest.fixture
def cloner() -> FakeCloner:
    return FakeCloner()


@pytest.fixture
def services(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    blobs: InMemoryBlobStore,
    synthesizer: FakeSynthesizer,
    cloner: FakeCloner,
) -> Services:
    return Services.build(
        uow, clock, blobs=blobs, synthesizer=synthesizer, cloner=cloner, sample_prober=FakeSampleProber()
    )


@pytest.fixture
def voice(services: Services) -> VoiceService:
    return services.voice


@pytest.fixture
def preset(voice: VoiceService, account_id: int) -> Callable[..., object]:
    def choose(name: str = "Layla", **fields: object) -> object:
        return voice.update(account_id, VoicePatch(preset_voice=name, **fields))  # type: ignore[arg-type]

    return choose


def clone(voice: VoiceService, account_id: int, seconds: float = 20.0) -> object:
    return voice.clone(account_id, CloneRequest("My voice"), "me.wav", [fake_sample(seconds)])


def test_the_catalogue_has_14_female_and_16_male_voices(voice: VoiceService) -> None:
    """SPEC 2: 14 female and 16 male built-in voices, each with tags and languages."""
    genders = [v.gender for v in voice.voices()]
    assert (genders.count("female"), genders.count("male")) == (14, 16)
    assert all(v.tags and v.languages for v in VOICES)


def test_every_voice_has_its_own_engine_rendering() -> None:
    """No two built-in voices share an espeak-ng variant, so none sound alike."""
    assert len({v.variant for v in VOICES}) == len(VOICES)


def test_new_settings_are_the_defaults(voice: VoiceService, account_id: int) -> None:
    """A workspace starts disabled in preset mode with no voice, Arabic MSA, and its full minutes."""
    view = voice.settings(account_id)
    assert (view.enabled, view.mode, view.preset_voice, view.language, view.dialect, view.tts_ready) == (
        False,
        PRESET,
        None,
        "ar",
        "arb",
        False,
    )
    assert view.voice_minutes_remaining == view.voice_minutes_limit == 1000


def test_selecting_a_preset_voice_enables_preset_mode(voice: VoiceService, account_id: int) -> None:
    """SPEC 3: choosing preset_voice switches to preset and enables synthesis when enabled is omitted."""
    view = voice.update(account_id, VoicePatch(preset_voice="layla"))
    assert (view.preset_voice, view.mode, view.enabled, view.voice_configured, view.tts_ready) == (
        "Layla",
        PRESET,
        True,
        True,
        True,
    )


def test_an_explicit_enabled_wins_over_the_preset_default(voice: VoiceService, account_id: int) -> None:
    """preset_voice with enabled false keeps synthesis disabled."""
    assert voice.update(account_id, VoicePatch(preset_voice="Omar", enabled=False)).enabled is False


def test_unknown_values_are_refused_per_field(voice: VoiceService, account_id: int) -> None:
    """An unknown voice, dialect, language and preset language are each a 422 on their field."""
    with pytest.raises(ValidationFailed) as refused:
        voice.update(
            account_id, VoicePatch(preset_voice="Nobody", dialect="xx", language="fr", preset_language="fr-FR")
        )
    assert set(refused.value.errors) == {"preset_voice", "dialect", "language", "preset_language"}


def test_clone_mode_needs_a_cloned_voice(voice: VoiceService, account_id: int) -> None:
    """Switching to clone mode without a cloned voice is refused."""
    with pytest.raises(ValidationFailed) as refused:
        voice.update(account_id, VoicePatch(mode=CLONE))
    assert "mode" in refused.value.errors


def test_tts_needs_a_preset_voice(voice: VoiceService, account_id: int) -> None:
    """Preset mode without preset_voice cannot speak."""
    with pytest.raises(ValidationFailed):
        voice.speak(account_id, "Hello")


def test_tts_stores_the_audio_and_returns_its_url(
    voice: VoiceService, preset: Callable[..., object], account_id: int, blobs: InMemoryBlobStore
) -> None:
    """The audio is kept in the blob store, at a public m4a URL, with the text's length and the mode."""
    preset()
    result = voice.speak(account_id, "Hello there")
    assert (result.format, result.text_length, result.mode, result.cached) == ("m4a", 11, PRESET, False)
    assert result.audio_url.endswith(".m4a") and len(blobs.objects) == 1


def test_the_same_text_and_voice_is_served_from_the_store(
    voice: VoiceService, preset: Callable[..., object], account_id: int, synthesizer: FakeSynthesizer
) -> None:
    """A second TTS of the same text in the same voice is not synthesised again and costs nothing."""
    preset()
    first = voice.speak(account_id, "Hello there")
    remaining = voice.settings(account_id).voice_minutes_remaining
    second = voice.speak(account_id, "Hello there")
    assert (second.audio_url, second.cached, len(synthesizer.spoken)) == (first.audio_url, True, 1)
    assert voice.settings(account_id).voice_minutes_remaining == remaining


def test_another_voice_synthesises_again(
    voice: VoiceService, preset: Callable[..., object], account_id: int, synthesizer: FakeSynthesizer
) -> None:
    """The cache is keyed by voice as well as text."""
    preset("Layla")
    voice.speak(account_id, "Hello")
    preset("Omar")
    assert voice.speak(account_id, "Hello").cached is False and len(synthesizer.spoken) == 2


def test_minutes_are_counted_from_the_audio_duration(
    voice: VoiceService, preset: Callable[..., object], account_id: int
) -> None:
    """voice_minutes_remaining drops by the synthesised audio's real duration."""
    preset()
    result = voice.speak(account_id, "x" * 1000)  # 60 s of fake audio
    assert result.duration_seconds == pytest.approx(60.0)
    assert voice.settings(account_id).voice_minutes_remaining == pytest.approx(999.0)


def test_spent_minutes_refuse_synthesis(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock, blobs: InMemoryBlobStore, synthesizer: FakeSynthesizer
) -> None:
    """On the starter plan (10 minutes), a month of audio used up refuses the next synthesis."""
    services = Services.build(
        uow, clock, blobs=blobs, synthesizer=synthesizer, sample_prober=FakeSampleProber(), default_plan="starter"
    )
    account = services.accounts.create("Acme").account.id
    services.voice.update(account, VoicePatch(preset_voice="Layla"))
    for n in range(3):
        services.voice.speak(account, str(n) * 4000)  # 240 s each
    assert services.voice.settings(account).voice_minutes_remaining == 0
    with pytest.raises(ValidationFailed):
        services.voice.speak(account, "one more")


def test_minutes_come_back_next_month(
    voice: VoiceService, preset: Callable[..., object], account_id: int, clock: FakeClock
) -> None:
    """Use is counted per calendar month."""
    preset()
    voice.speak(account_id, "x" * 1000)
    clock.advance(days=32)
    assert voice.settings(account_id).voice_minutes_remaining == 1000


def test_auto_language_follows_the_text(
    voice: VoiceService, preset: Callable[..., object], account_id: int, synthesizer: FakeSynthesizer
) -> None:
    """With preset_language auto, Arabic letters speak Arabic and anything else English."""
    preset()
    voice.speak(account_id, "مرحبا بكم")
    voice.speak(account_id, "Welcome")
    assert [r.language for r in synthesizer.spoken] == ["ar", "en"]


def test_a_dialect_without_a_voice_falls_back_to_msa_and_says_so(
    voice: VoiceService, preset: Callable[..., object], account_id: int
) -> None:
    """An Egyptian dialect request is spoken in MSA, and the response says so."""
    preset(dialect="egy")
    result = voice.speak(account_id, "أهلا وسهلا")
    assert (result.dialect, result.dialect_fallback, result.notice is not None) == ("arb", True, True)


def test_text_is_1_to_5000_characters(voice: VoiceService, preset: Callable[..., object], account_id: int) -> None:
    """Blank and over-long texts are refused on `text`."""
    preset()
    for text in ("  ", "x" * 5001):
        with pytest.raises(ValidationFailed) as refused:
            voice.speak(account_id, text)
        assert "text" in refused.value.errors


def test_offline_cloning_keeps_the_sample_and_says_a_provider_is_needed(
    voice: VoiceService, account_id: int, cloner: FakeCloner, blobs: InMemoryBlobStore
) -> None:
    """Without a provider the clone is refused as unavailable, never faked; the sample is stored."""
    cloner.refuse()
    with pytest.raises(Unavailable):
        clone(voice, account_id)
    assert voice.settings(account_id).has_cloned_voice is False
    sample = voice.sample(account_id)
    assert sample is not None and sample.read().startswith(b"FAKEWAV")


def test_a_successful_clone_sets_clone_mode_and_enables(voice: VoiceService, account_id: int) -> None:
    """SPEC 3: a successful clone sets mode clone and enabled true."""
    clone(voice, account_id)
    view = voice.settings(account_id)
    assert (view.mode, view.enabled, view.has_cloned_voice, view.voice_id, view.voice_name) == (
        CLONE,
        True,
        True,
        "clone-1",
        "My voice",
    )


def test_a_short_or_unreadable_sample_is_refused(voice: VoiceService, account_id: int) -> None:
    """A 2-second sample and a file that is not audio are each a 422 on audio_file."""
    for sample in (fake_sample(2.0), b"MZ\x90\x00 not audio"):
        with pytest.raises(ValidationFailed) as refused:
            voice.clone(account_id, CloneRequest("Me"), "me.wav", [sample])
        assert "audio_file" in refused.value.errors


def test_cloning_needs_the_plan_feature(services: Services, voice: VoiceService, account_id: int) -> None:
    """A plan without voice_cloning_enabled refuses with 403."""
    services.plans.update("business", PlanPatch(features={"voice_cloning_enabled": False}))
    with pytest.raises(FeatureUnavailable):
        clone(voice, account_id)
    assert voice.settings(account_id).voice_cloning_enabled is False


def test_clone_mode_speaks_with_the_clone_and_warms_it_when_stale(
    voice: VoiceService, account_id: int, cloner: FakeCloner, clock: FakeClock
) -> None:
    """TTS in clone mode goes to the provider; a preload older than 60 minutes is renewed first."""
    clone(voice, account_id)
    voice.speak(account_id, "Hi")
    clock.advance(minutes=61)
    voice.speak(account_id, "Hi again")
    assert ([v for v, _ in cloner.spoken], cloner.preloaded) == (["clone-1", "clone-1"], ["clone-1"])


def test_preload_is_for_clone_mode(voice: VoiceService, account_id: int, clock: FakeClock) -> None:
    """Preload refuses preset mode and answers the voice id and time in clone mode."""
    with pytest.raises(ValidationFailed):
        voice.preload(account_id)
    clone(voice, account_id)
    assert voice.preload(account_id) == ("clone-1", clock.now())


def test_delete_clears_the_clone_and_keeps_the_preset(
    voice: VoiceService, preset: Callable[..., object], account_id: int, cloner: FakeCloner, blobs: InMemoryBlobStore
) -> None:
    """SPEC 3: deleting the cloned voice clears its metadata, audio and sample; the preset voice stays."""
    preset("Omar")
    clone(voice, account_id)
    voice.speak(account_id, "Hello")
    voice.delete(account_id)
    view = voice.settings(account_id)
    assert (view.has_cloned_voice, view.voice_id, view.mode, view.preset_voice) == (False, None, PRESET, "Omar")
    assert (cloner.deleted, blobs.objects) == (["clone-1"], {})


def test_another_account_sees_its_own_settings(
    voice: VoiceService, preset: Callable[..., object], new_account: Callable[..., int]
) -> None:
    """Settings are scoped to the account."""
    preset()
    assert voice.settings(new_account("Other")).preset_voice is None
