"""Voice over HTTP (SPEC 4 Voice) with the real offline engine: espeak-ng audio encoded to m4a and
clone samples checked by PyAV; the settings and their mode rules, the catalogue, TTS and its cache,
minutes, cloning offline and with a provider, preload, delete, and the refusals."""

from __future__ import annotations

from typing import Any

import pytest
from http_support import Api, Tenant
from voice_notes import require_espeak, speak

from engage_connectors.voice.encoding import m4a_duration
from engage_connectors.voice.espeak import EspeakSynthesizer
from engage_connectors.voice.samples import AvSampleProber
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryBlobStore, InMemoryUnitOfWorkFactory
from engage_core.voice.fakes import FakeCloner
from engage_core.voice.offline import NoCloningEngine


@pytest.fixture
def synthesizer() -> EspeakSynthesizer:
    """espeak-ng, as `engage serve` uses offline."""
    require_espeak()
    return EspeakSynthesizer()


@pytest.fixture
def sample_prober() -> AvSampleProber:
    return AvSampleProber()


def audio(blobs: InMemoryBlobStore, url: str) -> bytes:
    [data] = [blob for key, blob in blobs.objects.items() if url == blobs.public_url(key)]
    return data


def choose(api: Api, **fields: Any) -> Any:
    return api.request("PATCH", "/voice/settings", json={"preset_voice": "Layla", **fields})


def recording(
    seconds_of_text: str = "This is my voice, recorded for cloning, spoken slowly and clearly. " * 2,
) -> bytes:
    return speak(seconds_of_text)


def test_get_voice_has_every_settings_field(api: Api) -> None:
    """GET /voice answers the SPEC 2 settings object with its defaults."""
    response = api.get("/voice")
    assert response.status_code == 200
    assert response.json()["data"] == {
        "enabled": False,
        "voice_configured": False,
        "tts_ready": False,
        "has_cloned_voice": False,
        "voice_cloning_enabled": True,
        "mode": "preset",
        "voice_id": None,
        "voice_name": None,
        "language": "ar",
        "dialect": "arb",
        "preset_voice": None,
        "preset_language": "auto",
        "preset_style_prompt": None,
        "voice_minutes_limit": 1000,
        "voice_minutes_remaining": 1000,
    }


def test_the_catalogue_lists_30_voices_and_the_languages(api: Api) -> None:
    """14 female and 16 male voices with tags and languages; languages as code and label arrays."""
    data = api.get("/voice/voices").json()["data"]
    genders = [v["gender"] for v in data["voices"]]
    assert (genders.count("female"), genders.count("male"), data["mode"]) == (14, 16, "preset")
    assert data["languages"] == {"code": ["ar", "en"], "label": ["Arabic", "English"]}
    assert set(data["voices"][0]) == {"name", "gender", "tags", "languages"}


def test_dialects_are_the_spec_codes(api: Api) -> None:
    """GET /voice/dialects lists SPEC 2's 13 codes."""
    codes = [d["code"] for d in api.get("/voice/dialects").json()["data"]]
    assert codes == ["arb", "ksa", "egy", "leb", "syr", "jor", "irq", "uae", "bah", "qat", "pls", "msa", "en"]


def test_choosing_a_preset_voice_enables_it(api: Api) -> None:
    """PATCH with preset_voice switches to preset mode and enables synthesis."""
    data = choose(api).json()["data"]
    assert (data["preset_voice"], data["mode"], data["enabled"], data["tts_ready"]) == ("Layla", "preset", True, True)
    assert api.get("/voice/status").json()["data"] == {"configured": True, "connected": True, "mode": "preset"}


def test_an_unknown_voice_is_a_422(api: Api) -> None:
    """A preset voice not in the catalogue is refused on its field."""
    response = api.request("PATCH", "/voice/settings", json={"preset_voice": "Nobody"})
    assert (response.status_code, list(response.json()["errors"])) == (422, ["preset_voice"])


def test_tts_without_a_voice_is_a_422(api: Api) -> None:
    """Preset mode needs preset_voice before it speaks."""
    assert api.post("/voice/tts", json={"text": "Hello"}).status_code == 422


def test_tts_answers_a_public_m4a_that_decodes(api: Api, blobs: InMemoryBlobStore) -> None:
    """The audio is real m4a in the blob store, at the URL answered, as long as stated."""
    choose(api)
    data = api.post("/voice/tts", json={"text": "Hello, and welcome to our shop."}).json()["data"]
    assert (data["format"], data["text_length"], data["mode"], data["cached"]) == ("m4a", 31, "preset", False)
    assert m4a_duration(audio(blobs, data["audio_url"])) == pytest.approx(data["duration_seconds"], abs=0.1)


def test_arabic_text_in_a_dialect_falls_back_to_msa(api: Api, blobs: InMemoryBlobStore) -> None:
    """Arabic text produces audio; an Egyptian dialect is spoken in MSA and the response says so."""
    choose(api, dialect="egy")
    data = api.post("/voice/tts", json={"text": "مرحبا بكم في متجرنا"}).json()["data"]
    assert (data["language"], data["dialect"], data["dialect_fallback"]) == ("ar", "arb", True)
    assert data["notice"] and m4a_duration(audio(blobs, data["audio_url"])) > 1


def test_the_same_text_is_served_from_the_store(api: Api) -> None:
    """A repeated TTS answers the same URL, cached, without spending minutes."""
    choose(api)
    first = api.post("/voice/tts", json={"text": "Thank you for your order."}).json()["data"]
    remaining = api.get("/voice").json()["data"]["voice_minutes_remaining"]
    again = api.post("/voice/tts", json={"text": "Thank you for your order."}).json()["data"]
    assert (again["audio_url"], again["cached"]) == (first["audio_url"], True)
    assert api.get("/voice").json()["data"]["voice_minutes_remaining"] == remaining < 1000


def test_text_over_5000_characters_is_a_422(api: Api) -> None:
    """SPEC 8: TTS input is 1-5000 characters."""
    choose(api)
    assert api.post("/voice/tts", json={"text": "x" * 5001}).status_code == 422


def test_used_up_minutes_refuse_tts(api: Api, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, clock: FakeClock) -> None:
    """With the month's minutes spent, TTS of new text is a 422 and tts_ready false."""
    choose(api)
    with uow.workspace(tenant.account_id) as unit:
        settings = unit.voice_settings.lock(clock.now())
        unit.voice_settings.save(settings.spent(1000 * 60, clock.now()), clock.now())
        unit.commit()
    assert api.post("/voice/tts", json={"text": "Something new."}).status_code == 422
    data = api.get("/voice").json()["data"]
    assert (data["tts_ready"], data["voice_minutes_remaining"]) == (False, 0)


@pytest.mark.parametrize("cloner", [NoCloningEngine()])
def test_offline_cloning_is_a_503_saying_a_provider_is_needed(api: Api) -> None:
    """No cloning engine: a clear 503, never a fake success; the mode stays preset."""
    response = api.post("/voice/clone", data={"name": "Me"}, files={"audio_file": ("me.wav", recording())})
    assert (response.status_code, "ENGAGE_VOICE_CLONE_URL" in response.json()["message"]) == (503, True)
    assert api.get("/voice").json()["data"]["has_cloned_voice"] is False


def test_a_clone_sets_clone_mode_and_speaks(api: Api, cloner: FakeCloner) -> None:
    """201 with the voice; the workspace is in clone mode, enabled; TTS goes to the provider."""
    response = api.post(
        "/voice/clone",
        data={"name": "Me", "language": "en", "dialect": "en"},
        files={"audio_file": ("me.ogg", recording())},
    )
    assert response.status_code == 201
    assert response.json()["data"] == {
        "voice_id": "clone-1",
        "voice_name": "Me",
        "language": "en",
        "dialect": "en",
        "mode": "clone",
    }
    settings = api.get("/voice").json()["data"]
    assert (settings["mode"], settings["enabled"], settings["voice_name"]) == ("clone", True, "Me")
    assert api.post("/voice/tts", json={"text": "Hi"}).json()["data"]["mode"] == "clone"
    assert cloner.spoken[0][0] == "clone-1"


def test_a_renamed_executable_is_not_a_recording(api: Api) -> None:
    """An ELF file named voice.mp3 is a 422 on audio_file."""
    response = api.post(
        "/voice/clone", data={"name": "Me"}, files={"audio_file": ("voice.mp3", b"\x7fELF\x02\x01" + bytes(4000))}
    )
    assert (response.status_code, list(response.json()["errors"])) == (422, ["audio_file"])


def test_a_too_short_recording_is_refused(api: Api) -> None:
    """A one-word recording is under the minimum duration."""
    response = api.post("/voice/clone", data={"name": "Me"}, files={"audio_file": ("me.wav", speak("Hi"))})
    assert response.status_code == 422


def test_cloning_needs_the_plan_feature(api: Api, services: Services) -> None:
    """A plan without voice_cloning_enabled answers 403."""
    services.plans.update("business", PlanPatch(features={"voice_cloning_enabled": False}))
    response = api.post("/voice/clone", data={"name": "Me"}, files={"audio_file": ("me.wav", recording())})
    assert response.status_code == 403


def test_preload_is_for_clone_mode(api: Api) -> None:
    """Preset mode: 422; clone mode: the voice id and when."""
    assert api.post("/voice/preload").status_code == 422
    api.post("/voice/clone", data={"name": "Me"}, files={"audio_file": ("me.wav", recording())})
    data = api.post("/voice/preload").json()["data"]
    assert data["voice_id"] == "clone-1" and data["preloaded_at"]


def test_delete_clears_the_clone_and_keeps_the_preset(api: Api, blobs: InMemoryBlobStore) -> None:
    """DELETE /voice: 204; the clone, its recording and audio are gone; the preset voice stays."""
    choose(api, preset_voice="Omar")
    api.post("/voice/clone", data={"name": "Me"}, files={"audio_file": ("me.wav", recording())})
    api.post("/voice/tts", json={"text": "Hi"})
    assert api.delete("/voice").status_code == 204
    data = api.get("/voice").json()["data"]
    assert (data["has_cloned_voice"], data["mode"], data["preset_voice"], blobs.objects) == (
        False,
        "preset",
        "Omar",
        {},
    )


def test_settings_are_the_accounts_own(api: Api, client_for: Any, make_tenant: Any) -> None:
    """Another workspace's settings are untouched by this one's."""
    choose(api)
    other = client_for(make_tenant("Other"))
    assert other.get("/voice").json()["data"]["preset_voice"] is None
