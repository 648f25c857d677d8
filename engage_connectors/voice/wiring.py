"""Which voice engines a deployment uses, from its settings.

- Speech: `ENGAGE_TTS_URL` set, an OpenAI-compatible `/audio/speech` service (`ENGAGE_TTS_API_KEY`,
  `ENGAGE_TTS_MODEL`); else espeak-ng offline.
- Cloning: `ENGAGE_VOICE_CLONE_URL` set, the HTTP cloning provider (`ENGAGE_VOICE_CLONE_API_KEY`);
  else none (a clone is refused, saying so).
"""

from __future__ import annotations

from engage_connectors.voice.cloning_http import HttpVoiceCloner
from engage_connectors.voice.espeak import EspeakSynthesizer
from engage_connectors.voice.openai_speech import DEFAULT_MODEL, OpenAISpeechSynthesizer
from engage_core.voice.offline import NoCloningEngine
from engage_core.voice.ports import SpeechSynthesizer, VoiceCloner


def synthesizer_for(url: str | None, key: str | None = None, model: str | None = None) -> SpeechSynthesizer:
    """The service synthesizer when `url` is set, else espeak-ng."""
    if url:
        return OpenAISpeechSynthesizer(url, key, model=model or DEFAULT_MODEL)
    return EspeakSynthesizer()


def cloner_for(url: str | None, key: str | None = None) -> VoiceCloner:
    """The HTTP cloning provider when `url` is set, else none."""
    if url:
        return HttpVoiceCloner(url, key)
    return NoCloningEngine()
