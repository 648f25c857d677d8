"""The OpenAI-compatible API (`GET /models`, `POST /chat/completions`): OpenAI's bodies and error
format, the parameters it refuses, those it ignores, and the `ai_agents` feature."""

from __future__ import annotations

import json
from typing import Any

import pytest
from http_support import Api, Tenant
from starlette.testclient import TestClient

from engage_core.answering.fakes import InMemoryPersonaDirectory, ScriptedLanguageModel
from engage_core.answering.persona import Persona
from engage_core.kernel.rate_limits import InMemoryRateLimiter, RateLimitPolicy
from engage_core.knowledge.entries import TextInput
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_http import create_app
from engage_http.rate_limit import RequestRateLimiter

COMPLETIONS = "/chat/completions"
HOURS = "We open at 9 am on weekdays. On Saturdays we open at 10 am."


def ask(text: str, **fields: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}], **fields}


@pytest.fixture
def hours(services: Services, tenant: Tenant) -> int:
    """The tenant's knowledge base holds its opening hours; the chunk's id."""
    entry = services.knowledge_entries.create_text(tenant.account_id, TextInput("Opening hours", HOURS))
    [chunk] = services.knowledge_chunks.list(tenant.account_id, entry.id).chunks
    return chunk.id


def assert_openai_error(response: Any, status: int, param: str | None, code: str | None = None) -> str:
    """The response is OpenAI's error of `status` on `param`; its message."""
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert (error["param"], error["code"]) == (param, code)
    expected_type = {429: "rate_limit_error"}.get(status, "server_error" if status >= 500 else "invalid_request_error")
    assert error["type"] == expected_type
    message: str = error["message"]
    return message


def test_the_models_are_listed_the_openai_way(api: Api) -> None:
    """`service-chat` and `service-logic` in OpenAI's list format, without the envelope."""
    body = api.get("/models").json()

    assert body["object"] == "list"
    assert [(m["id"], m["object"], m["owned_by"]) for m in body["data"]] == [
        ("service-chat", "model", "engage"),
        ("service-logic", "model", "engage"),
    ]


def test_a_completion_answers_from_the_knowledge_base(api: Api, hours: int) -> None:
    """The default model answers the question from the passage, citing its chunk, in OpenAI's shape."""
    response = api.post(COMPLETIONS, json=ask("When do you open on Saturdays?"))

    body = response.json()
    assert response.status_code == 200
    assert (body["object"], body["model"], body["id"][:9]) == ("chat.completion", "service-chat", "chatcmpl-")
    [choice] = body["choices"]
    assert choice == {
        "index": 0,
        "message": {"role": "assistant", "content": "On Saturdays we open at 10 am.", "refusal": None},
        "finish_reason": "stop",
        "logprobs": None,
    }
    assert body["engage"] == {"action": "continue", "citations": [hours], "confidence": 1.0}


def test_usage_is_always_filled(api: Api) -> None:
    """The offline model gives no counts: they are estimated, and add up."""
    usage = api.post(COMPLETIONS, json=ask("Do you sell skateboards?")).json()["usage"]

    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_nothing_relevant_is_handed_over(api: Api) -> None:
    """A question the knowledge base does not answer is handed over, not made up."""
    body = api.post(COMPLETIONS, json=ask("Do you sell skateboards?")).json()

    assert body["engage"] == {"action": "handoff", "citations": [], "confidence": 0.0}


def test_the_bearer_key_works(client: TestClient, tenant: Tenant) -> None:
    """OpenAI's clients send the key as a bearer token."""
    response = client.post(
        "/api/v1" + COMPLETIONS, headers={"Authorization": f"Bearer {tenant.key}"}, json=ask("Hello")
    )

    assert response.status_code == 200


def test_json_mode_on_service_logic_parses(api: Api, hours: int) -> None:
    """`response_format` json_object on service-logic: the content is one JSON object."""
    body = api.post(
        COMPLETIONS,
        json=ask("When do you open on Saturdays?", model="service-logic", response_format={"type": "json_object"}),
    ).json()

    content = json.loads(body["choices"][0]["message"]["content"])
    assert content["citations"] == [hours] and body["engage"] is None


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"n": 2}, "n"),
        ({"stream": True}, "stream"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
        ({"response_format": {"type": "json_schema"}}, "response_format.type"),
        ({"model": "gpt-4o"}, "model"),
        ({"temperature": 3}, "temperature"),
        ({"max_tokens": 0}, "max_tokens"),
    ],
)
def test_refused_parameters_are_openai_400s(api: Api, fields: dict[str, Any], param: str) -> None:
    """n other than 1, streaming, JSON mode on service-chat, an unknown model, bad values: 400s naming the field."""
    assert_openai_error(api.post(COMPLETIONS, json=ask("Hello", **fields)), 400, param)


def test_n_of_one_and_stream_false_are_accepted(api: Api) -> None:
    """The values OpenAI's clients send by default pass."""
    assert api.post(COMPLETIONS, json=ask("Hello", n=1, stream=False)).status_code == 200


def test_a_body_that_is_not_json_is_a_400(api: Api) -> None:
    """Malformed JSON: a 400 with no param."""
    message = assert_openai_error(
        api.post(COMPLETIONS, content=b"{nope", headers={"Content-Type": "application/json"}), 400, None
    )
    assert message == "The request body is not valid JSON."


def test_missing_messages_are_a_400(api: Api) -> None:
    """`messages` is required."""
    assert_openai_error(api.post(COMPLETIONS, json={"model": "service-chat"}), 400, "messages")


def test_the_last_message_must_be_the_customers(api: Api) -> None:
    """On service-chat, a conversation ending with the assistant is refused."""
    body = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}

    assert_openai_error(api.post(COMPLETIONS, json=body), 400, "messages")


def test_unknown_parameters_are_ignored(api: Api) -> None:
    """OpenAI's other parameters (top_p, stop, user, tools...) change nothing."""
    extra = {"top_p": 0.5, "stop": ["\n"], "user": "u-1", "tools": [], "seed": 7, "frequency_penalty": 0}

    assert api.post(COMPLETIONS, json=ask("Hello", **extra)).status_code == 200


def test_text_parts_are_joined(api: Api, hours: int) -> None:
    """Content as an array of text parts is read as one text."""
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "When do you open on Saturdays?"}]}]}

    assert api.post(COMPLETIONS, json=body).json()["engage"]["citations"] == [hours]


def test_other_content_parts_are_refused(api: Api) -> None:
    """An image part is a 400 naming the message's content."""
    part = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    body = {"messages": [{"role": "user", "content": [part]}]}

    assert_openai_error(api.post(COMPLETIONS, json=body), 400, "messages.0.content")


def test_max_completion_tokens_wins_over_max_tokens(api: Api, hours: int) -> None:
    """With both, `max_completion_tokens` bounds the answer (cut, `finish_reason` length)."""
    body = api.post(
        COMPLETIONS,
        json=ask("Are you open on weekdays and Saturdays?", max_tokens=500, max_completion_tokens=3),
    ).json()

    assert body["choices"][0]["finish_reason"] == "length"
    assert len(body["choices"][0]["message"]["content"]) <= 12


def test_a_missing_key_is_an_openai_401(anonymous: Api) -> None:
    """Unauthenticated: OpenAI's error with `invalid_api_key`, and WWW-Authenticate."""
    response = anonymous.post(COMPLETIONS, json=ask("Hello"))

    assert_openai_error(response, 401, None, "invalid_api_key")
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="engage"'


def test_without_ai_agents_completions_are_refused(api: Api, services: Services) -> None:
    """A plan without `ai_agents`: 403 `feature_not_in_plan`, in OpenAI's format; the models are still listed."""
    services.plans.update("business", PlanPatch(features={"ai_agents": False}))

    assert_openai_error(api.post(COMPLETIONS, json=ask("Hello")), 403, None, "feature_not_in_plan")
    assert api.get("/models").status_code == 200


def test_a_body_too_large_is_an_openai_413(api: Api) -> None:
    """Over 1 MiB: 413 in OpenAI's format."""
    response = api.post(COMPLETIONS, content=b"x" * (1024 * 1024 + 1), headers={"Content-Type": "application/json"})

    assert_openai_error(response, 413, None, "request_too_large")


@pytest.fixture
def scripted() -> tuple[Api, ScriptedLanguageModel, InMemoryPersonaDirectory, int]:
    """An app over a scripted model and an in-memory persona directory; its client, both, the account."""
    model, personas = ScriptedLanguageModel(), InMemoryPersonaDirectory()
    services = Services.build(InMemoryUnitOfWorkFactory(), FakeClock(), language_model=model, personas=personas)
    issued = services.accounts.create("Acme")
    return Api(TestClient(create_app(services)), {"X-Api-Key": issued.api_key}), model, personas, issued.account.id


def test_the_default_agent_answers(scripted: tuple[Api, ScriptedLanguageModel, InMemoryPersonaDirectory, int]) -> None:
    """service-chat answers as the persona the directory names the workspace's default."""
    api, model, personas, account_id = scripted
    sara = Persona("Sara", "You are Sara.", agent_id=2)
    personas.set_default(account_id, sara)

    api.post(COMPLETIONS, json=ask("Hello"))

    assert model.turn_requests[0].persona == sara


def test_a_logic_model_that_fails_is_an_openai_503(
    scripted: tuple[Api, ScriptedLanguageModel, InMemoryPersonaDirectory, int],
) -> None:
    """service-logic whose model cannot answer: 503, `service_unavailable`."""
    api, model, _, _ = scripted
    model.down = True

    assert_openai_error(api.post(COMPLETIONS, json=ask("x", model="service-logic")), 503, None, "service_unavailable")


def test_a_chat_model_that_fails_hands_over(
    scripted: tuple[Api, ScriptedLanguageModel, InMemoryPersonaDirectory, int],
) -> None:
    """service-chat never fails for the model: the customer gets the hand-over."""
    api, model, _, _ = scripted
    model.down = True

    body = api.post(COMPLETIONS, json=ask("Hello")).json()

    assert body["engage"]["action"] == "handoff"


def test_past_the_rate_limit_is_an_openai_429(services: Services, tenant: Tenant, clock: FakeClock) -> None:
    """The second request of a window of one: 429 `rate_limit_exceeded`, with Retry-After and the limit headers."""
    limiter = RequestRateLimiter(InMemoryRateLimiter(), RateLimitPolicy(1, 60), clock)
    api = Api(TestClient(create_app(services, rate_limiter=limiter)), tenant.headers)
    assert api.post(COMPLETIONS, json=ask("Hello")).status_code == 200

    response = api.post(COMPLETIONS, json=ask("Hello"))

    assert_openai_error(response, 429, None, "rate_limit_exceeded")
    assert "Retry-After" in response.headers and response.headers["X-RateLimit-Limit"] == "1"
