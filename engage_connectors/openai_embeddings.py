"""An `Embedder` over an OpenAI-compatible embeddings API (OpenAI, Azure OpenAI, a local server
such as Ollama, vLLM or LM Studio):

    POST {base_url}/embeddings
    Authorization: Bearer {api_key}          (when a key is given)
    {"model": "...", "input": ["text", ...]}

    200 {"data": [{"index": 0, "embedding": [0.1, ...]}, ...]}

Texts go in batches of `batch_size`; the vectors come back in the order of the texts whatever the
order of `data` (by `index`). Every failure (a refused connection, a timeout, a non-2xx answer, an
answer that is not the shape above) is one `Unavailable`, which search treats as "no semantic
score this time". The service is the operator's own choice, possibly on loopback or a private
network, so no address is refused; redirects are not followed and proxy variables are ignored. The
key is never logged nor put in a message.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_core.kernel.errors import Unavailable

DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_BATCH_SIZE = 64
ANSWER_LIMIT = 64 * 1024 * 1024
"""Bytes of an answer read at most (a batch of large vectors as JSON is a few megabytes)."""

ANY_ADDRESS = AddressPolicy(allowed_networks=(ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")))


class OpenAIEmbedder:
    """Embeds texts with `model` at `base_url` (e.g. `https://api.openai.com/v1`)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"The embeddings URL must be an http:// or https:// URL, not {base_url!r}.")
        if not model:
            raise ValueError("The embeddings model must not be empty.")
        if timeout <= 0 or batch_size < 1:
            raise ValueError("The timeout must be greater than 0 and the batch size at least 1.")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._headers = {"Accept": "application/json"} | ({"Authorization": f"Bearer {api_key}"} if api_key else {})
        self._timeout = timeout
        self._batch_size = batch_size
        self._client = guarded_client(ANY_ADDRESS, timeout=timeout)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self._url!r}, {self._model!r})"  # never the key

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._batch(list(texts[start : start + self._batch_size])))
        return vectors

    def close(self) -> None:
        self._client.close()

    def _batch(self, texts: list[str]) -> list[list[float]]:
        try:
            with (
                deadline(self._timeout),
                self._client.stream(
                    "POST", self._url, json={"model": self._model, "input": texts}, headers=self._headers
                ) as response,
            ):
                answer = bytearray()
                for chunk in response.iter_bytes():
                    answer.extend(chunk)
                    if len(answer) > ANSWER_LIMIT:
                        raise Unavailable("The embeddings service answered with too much data.")
                status = response.status_code
        except (httpx.HTTPError, BlockedAddress) as exc:
            raise Unavailable(f"The embeddings service could not be reached ({type(exc).__name__}).") from exc
        if not 200 <= status < 300:
            raise Unavailable(f"The embeddings service answered HTTP {status}.")
        return _vectors(bytes(answer), len(texts))


def _vectors(answer: bytes, count: int) -> list[list[float]]:
    """The vectors of an answer, in the order of the texts; Unavailable if it is malformed."""
    try:
        data: Any = json.loads(answer)["data"]
        by_index = {int(item["index"]): [float(x) for x in item["embedding"]] for item in data}
        vectors = [by_index[i] for i in range(count)]
    except (ValueError, KeyError, TypeError) as exc:
        raise Unavailable("The embeddings service gave an answer that is not a list of embeddings.") from exc
    if len(by_index) != count or len({len(v) for v in vectors}) > 1 or any(not v for v in vectors):
        raise Unavailable("The embeddings service gave an answer that is not one embedding per text.")
    return vectors
