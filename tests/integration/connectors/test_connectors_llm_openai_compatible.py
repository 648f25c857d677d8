"""OpenAICompatibleModel against a local OpenAI-compatible server on 127.0.0.1 that also misbehaves:
timeouts, 500s, 429s, truncated and invalid JSON, answers that are no chat completion."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from fake_llm import FakeLanguageModel

from engage_connectors.llm.openai_compatible import AGAIN_JSON, AGAIN_TURN, OpenAICompatibleModel
from engage_core.answering.chat import NO_JSON_OBJECT, SERVICE_CHAT, SERVICE_LOGIC, ChatMessage, ChatRequest, Usage
from engage_core.answering.guidelines import Guidelines
from engage_core.answering.memory import MemoryRequest
from engage_core.answering.passages import Passage
from engage_core.answering.persona import GENERIC_PERSONA
from engage_core.answering.prompt import instructions
from engage_core.answering.turns import HANDOFF_REPLY, TurnRequest
from engage_core.kernel.errors import Unavailable

KEY = "sk-test-9c41f0"
MODELS = {SERVICE_CHAT: "chat-model-7b", SERVICE_LOGIC: "logic-model-70b"}
PASSAGES = (
    Passage(12, "Shipping", None, "We ship to Canada and Mexico. Parcels take 7 to 14 days.", 0.9),
    Passage(15, "Returns", None, "Unused items can be returned within 30 days.", 0.5),
)


@pytest.fixture
def upstream() -> Iterator[FakeLanguageModel]:
    with FakeLanguageModel(api_key=KEY) as fake:
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    """The pauses the model took between tries (recorded, not slept)."""
    return []


@pytest.fixture
def model(upstream: FakeLanguageModel, sleeps: list[float]) -> Iterator[OpenAICompatibleModel]:
    made = OpenAICompatibleModel(upstream.url, MODELS, api_key=KEY, timeout=5, retries=2, sleep=sleeps.append)
    yield made
    made.close()


def turn_request(message: str = "How long do parcels to Canada take?") -> TurnRequest:
    system = instructions(GENERIC_PERSONA, Guidelines(), PASSAGES)
    return TurnRequest(system, (), message, PASSAGES, GENERIC_PERSONA)


def chat(text: str = "Classify: refund please", *, json_object: bool = False) -> ChatRequest:
    return ChatRequest(
        (ChatMessage("user", text),), SERVICE_LOGIC, temperature=0.2, max_tokens=50, json_object=json_object
    )


def test_a_completion_asks_the_mapped_model(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """The alias becomes its upstream model; messages, temperature and max_tokens are passed on."""
    answer = model.complete(chat())

    assert (answer.content, answer.finish_reason) == ("You said: Classify: refund please", "stop")
    assert upstream.requests == [
        {
            "model": "logic-model-70b",
            "messages": [{"role": "user", "content": "Classify: refund please"}],
            "temperature": 0.2,
            "max_tokens": 50,
        }
    ]


def test_the_upstream_counts_are_the_usage(model: OpenAICompatibleModel) -> None:
    """`usage` holds the service's own prompt and completion tokens."""
    answer = model.complete(chat())

    assert answer.usage == Usage(len("Classify: refund please") // 4, len(answer.content) // 4)


def test_a_turn_is_asked_in_json_mode_and_read(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """The structured turn comes back as a draft: reply, action, citations, confidence."""
    draft = model.compose_turn(turn_request())

    assert (draft.reply, draft.action, draft.citations, draft.confidence) == (
        "Parcels take 7 to 14 days.",
        "continue",
        (12,),
        0.9,
    )
    [request] = upstream.requests
    assert (request["model"], request["response_format"]) == ("chat-model-7b", {"type": "json_object"})
    assert request["messages"][0]["role"] == "system"
    assert '<passage id="12" title="Shipping">' in request["messages"][0]["content"]


def test_a_server_error_is_tried_again(
    model: OpenAICompatibleModel, upstream: FakeLanguageModel, sleeps: list[float]
) -> None:
    """A 500 then a 200: the answer of the second try, after the backoff."""
    upstream.misbehave("error")

    assert model.complete(chat()).content == "You said: Classify: refund please"
    assert (len(upstream.requests), sleeps) == (2, [0.5])


def test_a_rate_limit_is_tried_again(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """A 429 is waited out and tried again."""
    upstream.misbehave("busy", "busy")

    assert model.complete(chat()).finish_reason == "stop"
    assert len(upstream.requests) == 3


def test_backoff_doubles(model: OpenAICompatibleModel, upstream: FakeLanguageModel, sleeps: list[float]) -> None:
    """Each pause is twice the one before."""
    upstream.misbehave("error", "error")

    model.complete(chat())

    assert sleeps == [0.5, 1.0]


def test_a_timeout_is_tried_again(upstream: FakeLanguageModel) -> None:
    """A service that does not answer within the timeout is asked again."""
    upstream.misbehave("hang")
    model = OpenAICompatibleModel(upstream.url, MODELS, api_key=KEY, timeout=0.5, sleep=lambda _: None)
    try:
        assert model.complete(chat()).content == "You said: Classify: refund please"
    finally:
        model.close()
    assert len(upstream.requests) == 2


def test_an_answer_that_is_no_completion_is_tried_again(
    model: OpenAICompatibleModel, upstream: FakeLanguageModel
) -> None:
    """A 200 whose body is not a chat completion counts as a failure."""
    upstream.misbehave("garbage")

    assert model.complete(chat()).content == "You said: Classify: refund please"


def test_a_service_that_keeps_failing_is_unavailable(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """After the retries, a raw completion raises Unavailable."""
    upstream.misbehave("error", "error", "error")

    with pytest.raises(Unavailable, match=r"HTTP 500\. Gave up after 3 tries"):
        model.complete(chat())
    assert len(upstream.requests) == 3


def test_a_turn_hands_over_when_the_service_keeps_failing(
    model: OpenAICompatibleModel, upstream: FakeLanguageModel
) -> None:
    """compose_turn never raises: a failing service is a hand-over."""
    upstream.misbehave("error", "error", "error")

    draft = model.compose_turn(turn_request())

    assert (draft.reply, draft.action, draft.citations) == (HANDOFF_REPLY, "handoff", ())


def test_a_refused_key_is_not_tried_again(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """A 401 is final: one request, and the error does not show the key."""
    upstream.misbehave("denied")

    with pytest.raises(Unavailable, match="HTTP 401") as caught:
        model.complete(chat())
    assert len(upstream.requests) == 1
    assert KEY not in caught.value.message


def test_a_truncated_turn_is_asked_again(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """A turn cut at the token limit is asked once more, saying what was wrong; the second is used."""
    upstream.misbehave("truncated")

    draft = model.compose_turn(turn_request())

    assert (draft.action, draft.citations) == ("continue", (12,))
    first, second = upstream.requests
    assert second["messages"] == [*first["messages"], {"role": "user", "content": AGAIN_TURN}]


def test_usage_adds_up_over_the_tries(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """The tokens of a turn asked twice are those of both answers."""
    upstream.misbehave("invalid")

    draft = model.compose_turn(turn_request())

    assert draft.usage is not None
    prompts = [sum(len(m["content"]) for m in r["messages"]) // 4 for r in upstream.requests]
    assert draft.usage.prompt_tokens == sum(prompts)


def test_a_turn_invalid_twice_is_a_handoff(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """Invalid JSON, then truncated JSON: a safe hand-over, no exception."""
    upstream.misbehave("invalid", "truncated")

    draft = model.compose_turn(turn_request())

    assert (draft.reply, draft.action, draft.confidence) == (HANDOFF_REPLY, "handoff", 0.0)
    assert len(upstream.requests) == 2


def test_json_mode_asks_again_for_invalid_json(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """A JSON-mode completion that is not JSON is asked again; the second answer is used."""
    upstream.misbehave("invalid")

    answer = model.complete(chat(json_object=True))

    assert json.loads(answer.content) == {"echo": "Classify: refund please"}
    assert upstream.requests[1]["messages"][-1] == {"role": "user", "content": AGAIN_JSON}


def test_json_mode_never_returns_broken_json(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """Truncated twice: the content is still one JSON object (an error object), finish_reason length."""
    upstream.misbehave("truncated", "truncated")

    answer = model.complete(chat(json_object=True))

    assert (answer.content, answer.finish_reason) == (NO_JSON_OBJECT, "length")


def test_the_key_stays_out_of_reprs_and_logs(
    model: OpenAICompatibleModel, upstream: FakeLanguageModel, caplog: pytest.LogCaptureFixture
) -> None:
    """Neither the model's repr nor its warnings about retries show the key."""
    upstream.misbehave("error", "error", "error", "denied")
    with caplog.at_level(logging.WARNING, logger="engage.llm"):
        model.compose_turn(turn_request())
        model.compose_turn(turn_request())

    assert caplog.records
    assert KEY not in caplog.text
    assert KEY not in repr(model)


def test_a_closed_port_is_unavailable(upstream: FakeLanguageModel) -> None:
    """A service that cannot be reached is unavailable after its retries."""
    url = upstream.url
    upstream.close()
    model = OpenAICompatibleModel(url, MODELS, retries=1, sleep=lambda _: None)
    try:
        with pytest.raises(Unavailable, match="could not be reached"):
            model.complete(chat())
    finally:
        model.close()


def test_every_alias_needs_a_model() -> None:
    """A mapping without service-logic is refused."""
    with pytest.raises(ValueError, match="service-logic"):
        OpenAICompatibleModel("http://127.0.0.1:9/v1", {SERVICE_CHAT: "m"})


def test_an_invalid_url_is_refused() -> None:
    """Only http and https URLs are accepted."""
    with pytest.raises(ValueError, match="http:// or https://"):
        OpenAICompatibleModel("ftp://example.com", MODELS)


# -- the memory step ---------------------------------------------------------------------------------


def memory_request(message: str = "My name is Sara. I live in Dubai. When do you open?") -> MemoryRequest:
    return MemoryRequest("Remember names.", ("Prefers email",), message)


def test_memories_are_asked_of_service_logic_in_json_mode(
    model: OpenAICompatibleModel, upstream: FakeLanguageModel
) -> None:
    """One request to the logic model, JSON mode, the instructions and known facts in the system message."""
    facts = model.extract_memories(memory_request())

    [body] = upstream.requests
    system = body["messages"][0]["content"]
    assert facts == ("My name is Sara", "I live in Dubai")
    assert (body["model"], body["response_format"]) == ("logic-model-70b", {"type": "json_object"})
    assert "Remember names." in system
    assert "- Prefers email" in system


def test_a_truncated_memory_answer_is_asked_again(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """JSON cut at the token limit: asked once more, and that answer's facts are kept."""
    upstream.misbehave("truncated")

    assert model.extract_memories(memory_request("My name is Sara.")) == ("My name is Sara",)
    assert len(upstream.requests) == 2


def test_memories_from_a_failing_service_are_none(model: OpenAICompatibleModel, upstream: FakeLanguageModel) -> None:
    """A service that keeps failing, or answers invalid JSON twice, gives no fact and never raises."""
    upstream.misbehave("error", "error", "error")
    assert model.extract_memories(memory_request()) == ()
    upstream.misbehave("invalid", "invalid")
    assert model.extract_memories(memory_request()) == ()
