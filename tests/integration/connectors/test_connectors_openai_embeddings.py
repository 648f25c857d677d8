"""OpenAIEmbedder against a local OpenAI-compatible `/embeddings` server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from receiver import Answer, Received, Receiver

from engage_connectors.openai_embeddings import OpenAIEmbedder
from engage_core.kernel.errors import Unavailable

KEY = "sk-test-5d1e"


def vector(text: str) -> list[float]:
    """The fake model: how often each of four letters occurs."""
    return [float(text.count(letter)) for letter in "aeio"]


def answer(request: Received) -> Answer:
    """Embeddings of the request's texts, listed in reverse order (clients must sort by `index`)."""
    if request.header("authorization") != f"Bearer {KEY}" or request.path != "/v1/embeddings":
        return Answer(401, b'{"error": {"message": "no"}}', {"Content-Type": "application/json"})
    texts = json.loads(request.body)["input"]
    data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)]
    return Answer(200, json.dumps({"data": data[::-1], "model": "m"}).encode(), {"Content-Type": "application/json"})


@pytest.fixture
def server() -> Iterator[Receiver]:
    with Receiver() as receiver:
        receiver.respond_with(answer)
        yield receiver


@pytest.fixture
def embedder(server: Receiver) -> Iterator[OpenAIEmbedder]:
    made = OpenAIEmbedder(server.url("/v1"), "text-embedding-test", api_key=KEY, batch_size=2, timeout=5)
    yield made
    made.close()


def test_vectors_come_back_in_the_order_of_the_texts(embedder: OpenAIEmbedder) -> None:
    """Each text gets its own vector, in order, across batches."""
    texts = ["banana", "kiwi", "apple", "io"]

    assert embedder.embed(texts) == [vector(t) for t in texts]


def test_the_request_names_the_model_and_the_texts(embedder: OpenAIEmbedder, server: Receiver) -> None:
    """The body is the OpenAI shape: model and input."""
    embedder.embed(["tea"])

    (request,) = server.wait_for(1)
    assert json.loads(request.body) == {"model": "text-embedding-test", "input": ["tea"]}


def test_texts_are_sent_in_batches(embedder: OpenAIEmbedder, server: Receiver) -> None:
    """Five texts with a batch size of two make three requests."""
    embedder.embed(["a", "b", "c", "d", "e"])

    assert [len(json.loads(r.body)["input"]) for r in server.wait_for(3)] == [2, 2, 1]


def test_an_error_answer_is_unavailable(server: Receiver) -> None:
    """A wrong key's 401 is reported as the service being unavailable, without the key."""
    embedder = OpenAIEmbedder(server.url("/v1"), "m", api_key="wrong")
    try:
        with pytest.raises(Unavailable, match="HTTP 401") as caught:
            embedder.embed(["tea"])
    finally:
        embedder.close()
    assert "wrong" not in caught.value.message


def test_a_malformed_answer_is_unavailable(embedder: OpenAIEmbedder, server: Receiver) -> None:
    """An answer without one embedding per text is refused."""
    server.respond_with(lambda request: Answer(200, b'{"data": [{"index": 0, "embedding": []}]}'))

    with pytest.raises(Unavailable, match="not one embedding per text"):
        embedder.embed(["tea"])


def test_a_closed_port_is_unavailable(server: Receiver) -> None:
    """A service that cannot be reached is unavailable."""
    url = server.url("/v1")
    server.close()
    embedder = OpenAIEmbedder(url, "m")
    try:
        with pytest.raises(Unavailable, match="could not be reached"):
            embedder.embed(["tea"])
    finally:
        embedder.close()


def test_an_invalid_url_is_refused() -> None:
    """Only http and https URLs are accepted."""
    with pytest.raises(ValueError, match="http:// or https://"):
        OpenAIEmbedder("ftp://example.com", "m")
