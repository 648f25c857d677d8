"""The official `openai` Python package against a running `engage serve`: list the models, a plain
completion, a JSON completion, and the 400s raising the SDK's `BadRequestError`; then the same
server configuration pointed at an OpenAI-compatible upstream (the fake one)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest
from fake_llm import FakeLanguageModel

pytestmark = pytest.mark.e2e

SHIPPING = "We ship to Canada and Mexico. Parcels to Canada take 7 to 14 days."


def openai_client(server: Any) -> openai.OpenAI:
    """The SDK pointed at the server, with a new workspace's key and a passage in its knowledge base."""
    key = server.create_account()
    added = httpx.post(
        f"{server.base_url}/api/v1/knowledge-base",
        headers={"X-Api-Key": key},
        json={"title": "Shipping", "content": SHIPPING},
        timeout=10.0,
    )
    assert added.status_code == 201, added.text
    return openai.OpenAI(base_url=f"{server.base_url}/api/v1", api_key=key, max_retries=0, timeout=30.0)


@pytest.fixture(scope="module")
def client(start_server: Callable[..., Any]) -> openai.OpenAI:
    return openai_client(start_server())


def test_the_models_are_listed(client: openai.OpenAI) -> None:
    """`models.list()` gives the two aliases."""
    assert [model.id for model in client.models.list()] == ["service-chat", "service-logic"]


def test_a_plain_completion_answers_from_the_knowledge_base(client: openai.OpenAI) -> None:
    """service-chat quotes the passage that answers, with usage filled and the turn alongside."""
    completion = client.chat.completions.create(
        model="service-chat", messages=[{"role": "user", "content": "How long do parcels to Canada take?"}]
    )

    [choice] = completion.choices
    assert (choice.message.content, choice.finish_reason) == ("Parcels to Canada take 7 to 14 days.", "stop")
    assert completion.usage is not None and completion.usage.total_tokens > 0
    assert (completion.model_extra or {})["engage"]["action"] == "continue"


def test_a_json_completion_parses(client: openai.OpenAI) -> None:
    """service-logic in JSON mode: the content is one JSON object."""
    completion = client.chat.completions.create(
        model="service-logic",
        messages=[{"role": "user", "content": "Do you ship to Canada?"}],
        response_format={"type": "json_object"},
    )

    content = completion.choices[0].message.content
    assert content is not None
    assert isinstance(json.loads(content), dict)


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"n": 2}, "n"),
        ({"stream": True}, "stream"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
    ],
)
def test_refused_requests_raise_bad_request(client: openai.OpenAI, fields: dict[str, Any], param: str) -> None:
    """n other than 1, streaming, and JSON mode on service-chat raise the SDK's BadRequestError."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="service-chat", messages=[{"role": "user", "content": "Hello"}], **fields)

    assert (refused.value.status_code, refused.value.param) == (400, param)


@pytest.fixture(scope="module")
def upstream() -> Iterator[FakeLanguageModel]:
    with FakeLanguageModel(api_key="sk-e2e-upstream") as fake:
        yield fake


def test_an_upstream_model_answers_through_the_server(
    start_server: Callable[..., Any], upstream: FakeLanguageModel
) -> None:
    """With ENGAGE_LLM_URL set, the server's answers come from the upstream, under its chat model."""
    env = {
        "ENGAGE_LLM_URL": upstream.url,
        "ENGAGE_LLM_KEY": "sk-e2e-upstream",
        "ENGAGE_LLM_CHAT_MODEL": "fake-chat",
    }
    client = openai_client(start_server(env=env))

    completion = client.chat.completions.create(
        model="service-chat", messages=[{"role": "user", "content": "How long do parcels to Canada take?"}]
    )

    assert completion.choices[0].message.content == "Parcels to Canada take 7 to 14 days."
    assert upstream.requests[-1]["model"] == "fake-chat"
