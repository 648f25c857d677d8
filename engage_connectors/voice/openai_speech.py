"""`OpenAISpeechSynthesizer`: the built-in voices spoken by a service with OpenAI's `/audio/speech`.

It posts `{"model", "input", "voice", "response_format": "wav", "instructions"}` (the style prompt,
when set) to `{base_url}/audio/speech` and encodes the WAV it answers to m4a, measuring it
(`encoding.to_m4a`). Each built-in voice maps to one of the service's voices (`voice_map`; by default
the female voices cycle through OpenAI's female-sounding voices and the male ones through the
male-sounding, in catalogue order). Such services speak the text's language; dialects are asked
for in the instructions and reported as requested.
"""

from __future__ import annotations

from collections.abc import Mapping

from engage_connectors.voice.encoding import to_m4a
from engage_connectors.voice.service_http import ServiceClient, audio_demuxer
from engage_core.voice.catalogue import DIALECTS, FEMALE, VOICES
from engage_core.voice.ports import Speech, SpeechRequest, SynthesisFailed

ENGINE = "openai-compatible"
DEFAULT_MODEL = "gpt-4o-mini-tts"
DEFAULT_TIMEOUT_SECONDS = 120.0
FEMALE_VOICES = ("nova", "shimmer", "coral", "sage")
MALE_VOICES = ("onyx", "echo", "ash", "alloy")


def default_voice_map() -> dict[str, str]:
    """Built-in voice name -> service voice: female and male voices each cycle through their list."""
    mapping: dict[str, str] = {}
    counts = {True: 0, False: 0}
    for voice in VOICES:
        female = voice.gender == FEMALE
        choices = FEMALE_VOICES if female else MALE_VOICES
        mapping[voice.name] = choices[counts[female] % len(choices)]
        counts[female] += 1
    return mapping


class OpenAISpeechSynthesizer:
    """`SpeechSynthesizer` over an OpenAI-compatible service. Thread-safe; `close()` it."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        model: str = DEFAULT_MODEL,
        voice_map: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> None:
        if not model:
            raise ValueError("The speech model must not be empty.")
        self._client = ServiceClient(base_url, api_key, timeout=timeout, what="speech service")
        self._model = model
        self._voices = dict(voice_map or default_voice_map())

    @property
    def engine(self) -> str:
        return f"{ENGINE}:{self._model}"

    def close(self) -> None:
        self._client.close()

    def synthesize(self, request: SpeechRequest) -> Speech:
        if request.voice is None:
            raise SynthesisFailed("The speech service speaks the built-in voices only.")
        body: dict[str, str] = {
            "model": self._model,
            "input": request.text,
            "voice": self._voices.get(request.voice.name, request.voice.name.lower()),
            "response_format": "wav",
        }
        instructions = [request.style_prompt] if request.style_prompt else []
        if request.language == "ar" and request.dialect in DIALECTS:
            instructions.append(f"Speak in {DIALECTS[request.dialect]}.")
        if instructions:
            body["instructions"] = " ".join(instructions)
        response = self._client.request("POST", "/audio/speech", json=body)
        encoded = to_m4a(response.content, audio_demuxer(response))
        return Speech(encoded.audio, encoded.duration_seconds, request.dialect, False, self.engine)
