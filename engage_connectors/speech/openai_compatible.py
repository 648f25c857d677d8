"""`OpenAICompatibleTranscriber`: speech to text by a service speaking OpenAI's transcription API.

It posts the note as `multipart/form-data` to `{base_url}/audio/transcriptions` with the fields
`file`, `model`, `language` (when given) and `response_format=json`, and reads `{"text": ...}`.
OpenAI itself, and self-hosted servers of Whisper models that copy the API, answer it; unlike the
offline transcriber they cover Arabic and detect the language when none is given.

The note is checked here first, as the offline path checks it: its format from the content, no
video, and a duration within `max_seconds` measured by decoding it (a declared duration can lie).
A note that fails these never leaves the machine.

The base URL is operator configuration (`ENGAGE_TRANSCRIPTION_URL`), not a user's input, so the
SSRF guard does not apply to it: its host is exempt, while the guarded client still refuses any
other host (redirects are never followed, proxy variables ignored) and bounds the whole exchange
(connection, upload, answer) by `timeout`.

Failures: 401 means the service refused the key; 408, 429, 5xx, a timeout or no connection are
`retryable`; any other refusal carries the service's own short message. The key is sent as a bearer
token and never logged or put in a message; logs name the path, the outcome and the time taken.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.speech.decoding import DEFAULT_DECODE_SECONDS, decode_pcm, read_audio
from engage_connectors.speech.formats import detect_container
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_core.knowledge.transcription import (
    DEFAULT_MAX_VOICE_NOTE_SECONDS,
    VOICE_NOTE_MAX_BYTES,
    AudioFormat,
    AudioInput,
    Transcript,
    TranscriptionFailed,
)

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "whisper-1"
DEFAULT_TIMEOUT_SECONDS = 120.0
PATH = "/audio/transcriptions"
DETAIL_MAX = 200

_CONTENT_TYPES = {
    AudioFormat.MP3: "audio/mpeg",
    AudioFormat.WAV: "audio/wav",
    AudioFormat.M4A: "audio/mp4",
    AudioFormat.OGG: "audio/ogg",
    AudioFormat.WEBM: "audio/webm",
}


class OpenAICompatibleTranscriber:
    """`Transcriber` over an OpenAI-compatible service. Thread-safe; `close()` it."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        model: str = DEFAULT_MODEL,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_seconds: float = DEFAULT_MAX_VOICE_NOTE_SECONDS,
        decode_seconds: float = DEFAULT_DECODE_SECONDS,
        max_bytes: int = VOICE_NOTE_MAX_BYTES,
    ) -> None:
        """`api_key` None or empty sends no Authorization header (self-hosted servers without one)."""
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("The transcription service URL must be an absolute http(s) URL.")
        if not model:
            raise ValueError("The transcription model must not be empty.")
        if timeout <= 0 or max_seconds <= 0 or decode_seconds <= 0:
            raise ValueError("The transcription timeout and limits must be positive.")
        self._url = base_url.rstrip("/") + PATH
        self._api_key = api_key or None
        self._model = model
        self._timeout = timeout
        self._max_seconds = max_seconds
        self._decode_seconds = decode_seconds
        self._max_bytes = max_bytes
        self._client = guarded_client(AddressPolicy(allowed_hosts=frozenset({parts.hostname.lower()})), timeout=timeout)

    def __repr__(self) -> str:
        return f"OpenAICompatibleTranscriber({self._url!r}, model={self._model!r})"

    def close(self) -> None:
        self._client.close()

    def transcribe(self, audio: AudioInput, *, language: str | None) -> Transcript:
        data = read_audio(audio, self._max_bytes)
        container = detect_container(data)
        pcm = decode_pcm(
            data, max_seconds=self._max_seconds, decode_seconds=self._decode_seconds, max_bytes=self._max_bytes
        )
        fields: dict[str, str] = {"model": self._model, "response_format": "json"}
        if language is not None:
            fields["language"] = language
        extension = container.format.value
        files = {"file": (f"voice-note.{extension}", data, _CONTENT_TYPES[container.format])}
        text = _read_text(self._post(fields, files))
        if not text:
            raise TranscriptionFailed.no_speech()
        return Transcript(text=text, language=language, duration_seconds=pcm.duration_seconds)

    def _post(self, fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> httpx.Response:
        headers = {"Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key}"
        started = time.monotonic()
        try:
            with deadline(self._timeout):
                response = self._client.post(self._url, data=fields, files=files, headers=headers)
        except httpx.TimeoutException:
            self._log(started, "timeout")
            raise TranscriptionFailed.service_unavailable(f"no answer within {self._timeout:g} s") from None
        except httpx.TransportError as exc:
            self._log(started, type(exc).__name__)
            raise TranscriptionFailed.service_unavailable("it could not be reached") from None
        except BlockedAddress:  # the configured host name did not resolve
            self._log(started, "unresolved")
            raise TranscriptionFailed.service_unavailable("its host name did not resolve") from None
        self._log(started, str(response.status_code))
        if not response.is_success:
            raise _failure_for(response)
        return response

    def _log(self, started: float, outcome: str) -> None:
        elapsed_ms = (time.monotonic() - started) * 1000
        logger.info("transcription service POST %s -> %s in %.0f ms", PATH, outcome, elapsed_ms)


def _failure_for(response: httpx.Response) -> TranscriptionFailed:
    """The failure a non-2xx answer amounts to."""
    status = response.status_code
    if status == 401:
        return TranscriptionFailed.service_refused_key()
    if status in (408, 429) or status >= 500:
        return TranscriptionFailed.service_unavailable(f"status {status}")
    return TranscriptionFailed.service_rejected(status, _detail(response))


def _detail(response: httpx.Response) -> str:
    """OpenAI's `{"error": {"message": ...}}`, else the reason phrase; cut short."""
    message: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else error
    text = message.strip() if isinstance(message, str) and message.strip() else response.reason_phrase or "no detail"
    return text[:DETAIL_MAX]


def _read_text(response: httpx.Response) -> str:
    """The `text` of a JSON answer, with runs of whitespace collapsed."""
    try:
        body = response.json()
    except ValueError:
        body = None
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise TranscriptionFailed.service_unreadable()
    return " ".join(text.split())
