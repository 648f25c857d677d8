"""`HttpVoiceCloner`: a cloning provider over HTTP (`ENGAGE_VOICE_CLONE_URL`).

No standard API exists for voice cloning, so this adapter speaks a small one, which a gateway in
front of any provider can implement (docs/voice.md):

- `POST {base}/voices`, multipart: `file` (the recording), `name`, `language`, `dialect`, `gender`,
  `style` -> `{"voice_id": "..."}`;
- `POST {base}/voices/{voice_id}/preload` -> any 2xx;
- `POST {base}/voices/{voice_id}/speech`, JSON `{"input", "language", "dialect",
  "response_format": "wav"}` -> WAV or MP3 audio, encoded here to m4a;
- `DELETE {base}/voices/{voice_id}` -> any 2xx (404 is taken as already gone).
"""

from __future__ import annotations

from typing import BinaryIO
from urllib.parse import quote

from engage_connectors.voice.encoding import to_m4a
from engage_connectors.voice.service_http import ServiceClient, audio_demuxer
from engage_core.voice.model import ClonedVoice
from engage_core.voice.ports import Speech, SpeechRequest, SynthesisFailed

DEFAULT_TIMEOUT_SECONDS = 120.0
"""SPEC 4: a clone may take 30-90 seconds."""
VOICE_ID_MAX = 255


class HttpVoiceCloner:
    """`VoiceCloner` over the provider API above. Thread-safe; `close()` it."""

    configured = True

    def __init__(self, base_url: str, api_key: str | None, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self._client = ServiceClient(base_url, api_key, timeout=timeout, what="cloning provider")

    def close(self) -> None:
        self._client.close()

    def clone(self, sample: BinaryIO, filename: str, request: ClonedVoice) -> str:
        fields = {
            "name": request.name,
            "language": request.language,
            "dialect": request.dialect,
            "gender": request.gender,
            "style": request.style,
        }
        files = {"file": (filename.rsplit("/", 1)[-1] or "sample", sample, "application/octet-stream")}
        response = self._client.request("POST", "/voices", data=fields, files=files)
        try:
            voice_id = response.json().get("voice_id")
        except (ValueError, AttributeError):
            voice_id = None
        if not isinstance(voice_id, str) or not voice_id or len(voice_id) > VOICE_ID_MAX:
            raise SynthesisFailed("the cloning provider answered without a voice id", unavailable=True)
        return voice_id

    def preload(self, voice_id: str) -> None:
        self._client.request("POST", f"/voices/{quote(voice_id, safe='')}/preload")

    def synthesize(self, voice_id: str, request: SpeechRequest) -> Speech:
        body = {
            "input": request.text,
            "language": request.language,
            "dialect": request.dialect,
            "response_format": "wav",
        }
        response = self._client.request("POST", f"/voices/{quote(voice_id, safe='')}/speech", json=body)
        encoded = to_m4a(response.content, audio_demuxer(response))
        return Speech(encoded.audio, encoded.duration_seconds, request.dialect, False, "clone")

    def delete(self, voice_id: str) -> None:
        self._client.request("DELETE", f"/voices/{quote(voice_id, safe='')}", allow=(404,))
