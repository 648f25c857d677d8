"""Which transcriber a deployment uses, from its settings.

With a service URL (`ENGAGE_TRANSCRIPTION_URL`) every note goes to that OpenAI-compatible service,
whatever its language. Without one, notes are transcribed offline in English by pocketsphinx, and a
note in another language is refused with a message naming the setting.
"""

from __future__ import annotations

from engage_connectors.speech.openai_compatible import DEFAULT_MODEL, OpenAICompatibleTranscriber
from engage_connectors.speech.pocketsphinx_transcriber import PocketsphinxTranscriber
from engage_core.knowledge.transcription import DEFAULT_MAX_VOICE_NOTE_SECONDS, Transcriber


def transcriber_for(
    url: str | None,
    key: str | None = None,
    model: str | None = None,
    *,
    max_seconds: float = DEFAULT_MAX_VOICE_NOTE_SECONDS,
) -> Transcriber:
    """The service transcriber when `url` is set, else the offline English one."""
    if url:
        return OpenAICompatibleTranscriber(url, key, model=model or DEFAULT_MODEL, max_seconds=max_seconds)
    return PocketsphinxTranscriber(max_seconds=max_seconds)
