"""The HTTP plumbing both voice services share: a client that reaches only the configured host,
one deadline per exchange, and failures mapped to `SynthesisFailed`.

The base URL is operator configuration, not a user's input: its host is exempt from the SSRF guard
while the guarded client still refuses every other host and never follows redirects. The key is a
bearer token, never logged or put in a message; logs name the method, path, outcome and time.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_core.voice.ports import SynthesisFailed

logger = logging.getLogger("engage.voice.http")

DETAIL_MAX = 200
AUDIO_MAX_BYTES = 64 * 1024 * 1024


class ServiceClient:
    """Requests to one configured service (`base_url`), with a bearer key when given."""

    def __init__(self, base_url: str, api_key: str | None, *, timeout: float, what: str) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"The {what} URL must be an absolute http(s) URL.")
        if timeout <= 0:
            raise ValueError(f"The {what} timeout must be positive.")
        self.base = base_url.rstrip("/")
        self._key = api_key or None
        self._timeout = timeout
        self._what = what
        self._client = guarded_client(AddressPolicy(allowed_hosts=frozenset({parts.hostname.lower()})), timeout=timeout)

    def close(self) -> None:
        self._client.close()

    def request(self, method: str, path: str, *, allow: tuple[int, ...] = (), **kwargs: Any) -> httpx.Response:
        """The answer to `method path`; SynthesisFailed unless 2xx or in `allow` (`unavailable` for
        401, 408, 429, 5xx and transport failures: the caller's text was not at fault)."""
        headers = dict(kwargs.pop("headers", {}))
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        started = time.monotonic()
        try:
            with deadline(self._timeout):
                response = self._client.request(method, self.base + path, headers=headers, **kwargs)
        except httpx.TimeoutException:
            self._log(method, path, started, "timeout")
            raise SynthesisFailed(f"the {self._what} did not answer in time", unavailable=True) from None
        except (httpx.TransportError, BlockedAddress) as exc:
            self._log(method, path, started, type(exc).__name__)
            raise SynthesisFailed(f"the {self._what} could not be reached", unavailable=True) from None
        self._log(method, path, started, str(response.status_code))
        if response.is_success or response.status_code in allow:
            return response
        status = response.status_code
        if status == 401:
            raise SynthesisFailed(f"the {self._what} refused the key", unavailable=True)
        if status in (408, 429) or status >= 500:
            raise SynthesisFailed(f"the {self._what} is unavailable (status {status})", unavailable=True)
        raise SynthesisFailed(f"the {self._what} refused the request: {_detail(response)}")

    def _log(self, method: str, path: str, started: float, outcome: str) -> None:
        elapsed_ms = (time.monotonic() - started) * 1000
        logger.info("%s %s %s -> %s in %.0f ms", self._what, method, path.split("?")[0], outcome, elapsed_ms)


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


def audio_demuxer(response: httpx.Response) -> str:
    """The demuxer of an audio answer, from its first bytes (WAV or MP3; anything else refused)."""
    head = response.content[:12]
    if len(response.content) > AUDIO_MAX_BYTES:
        raise SynthesisFailed("the speech service answered with too much audio", unavailable=True)
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head[:3] == b"ID3" or (len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "mp3"
    raise SynthesisFailed("the speech service answered with something that is not WAV or MP3 audio", unavailable=True)
