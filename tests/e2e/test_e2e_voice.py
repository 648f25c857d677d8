"""Voice through a real `engage serve` on loopback with espeak-ng: a preset voice chosen over HTTP
speaks Arabic text; the m4a is fetched back at its public URL and decodes to the stated length; the
same text again comes from the store; cloning without a provider is a 503 saying so."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from voice_notes import require_espeak, speak

from engage_connectors.voice.encoding import m4a_duration

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(start_server: Callable[..., Any]) -> Any:
    require_espeak()
    return start_server("--no-worker")


@pytest.fixture(scope="module")
def client(server: Any) -> Iterator[httpx.Client]:
    headers = {"X-Api-Key": server.create_account()}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=120.0) as http:
        yield http


def test_tts_audio_is_served_at_its_url_and_cached(client: httpx.Client) -> None:
    """Arabic text becomes m4a served at its public URL; the same text again is cached."""
    chosen = client.patch("/api/v1/voice/settings", json={"preset_voice": "Noura", "dialect": "ksa"})
    assert chosen.status_code == 200, chosen.text
    spoken = client.post("/api/v1/voice/tts", json={"text": "مرحبا بكم، طلبكم في الطريق"})
    assert spoken.status_code == 200, spoken.text
    data = spoken.json()["data"]
    fetched = client.get(urlsplit(data["audio_url"]).path)
    assert (fetched.status_code, fetched.headers["content-type"]) == (200, "audio/mp4")
    assert m4a_duration(fetched.content) == pytest.approx(data["duration_seconds"], abs=0.1)
    assert data["dialect_fallback"] is True
    again = client.post("/api/v1/voice/tts", json={"text": "مرحبا بكم، طلبكم في الطريق"}).json()["data"]
    assert (again["cached"], again["audio_url"]) == (True, data["audio_url"])


def test_cloning_without_a_provider_says_so(client: httpx.Client) -> None:
    """The offline server refuses a clone with 503 naming the setting, never a fake success."""
    recording = speak("This is my voice for cloning, recorded slowly and clearly for the test. " * 2)
    response = client.post("/api/v1/voice/clone", data={"name": "Me"}, files={"audio_file": ("me.wav", recording)})
    assert (response.status_code, "ENGAGE_VOICE_CLONE_URL" in response.json()["message"]) == (503, True)
