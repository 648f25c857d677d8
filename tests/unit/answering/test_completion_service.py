"""Chat completions: `service-chat` through the answer engine as the workspace's default agent,
`service-logic` as a raw completion, and what each refuses."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engage_core.answering.chat import NO_JSON_OBJECT, SERVICE_CHAT, SERVICE_LOGIC, ChatCompletion, ChatMessage, Usage
from engage_core.answering.completion_service import CompletionInput
from engage_core.answering.fakes import InMemoryPersonaDirectory, ScriptedLanguageModel
from engage_core.answering.persona import GENERIC_PERSONA, Persona
from engage_core.answering.turns import TurnDraft
from engage_core.kernel.errors import Unavailable, ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock

HOURS = "We open at 9 am on weekdays. On Saturdays we open at 10 am."
SARA = Persona("Sara", "You are Sara.", agent_id=3)


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def test_the_models_are_the_two_aliases(services: Services) -> None:
    """`service-chat` first (the default), then `service-logic`."""
    assert [m.id for m in services.chat_completions.models()] == [SERVICE_CHAT, SERVICE_LOGIC]


def test_service_chat_answers_as_the_default_agent(
    services: Services, account_id: int, personas: InMemoryPersonaDirectory, model: ScriptedLanguageModel
) -> None:
    """The workspace's default persona answers; the turn comes with the completion."""
    personas.set_default(account_id, SARA)

    result = services.chat_completions.complete(account_id, CompletionInput((user("Hello"),)))

    assert model.turn_requests[0].persona == SARA
    assert result.turn is not None and result.content == result.turn.reply
    assert (result.model, result.finish_reason) == (SERVICE_CHAT, "stop")


def test_without_a_default_agent_the_generic_persona_answers(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """No default agent: the built-in persona."""
    services.chat_completions.complete(account_id, CompletionInput((user("Hello"),)))

    assert model.turn_requests[0].persona == GENERIC_PERSONA


def test_earlier_messages_are_the_conversation_and_instructions(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """User and assistant messages before the last are the history; system and developer ones instructions."""
    messages = (
        ChatMessage("system", "Answer in French."),
        user("Hi"),
        ChatMessage("assistant", "Hello!"),
        ChatMessage("developer", "Be brief."),
        user("When do you open?"),
    )

    services.chat_completions.complete(account_id, CompletionInput(messages))

    [request] = model.turn_requests
    assert request.history == (user("Hi"), ChatMessage("assistant", "Hello!"))
    assert request.message == "When do you open?"
    assert "Answer in French.\n\nBe brief." in request.instructions


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (CompletionInput((ChatMessage("assistant", "Hi"),)), "messages"),
        (CompletionInput((user("  "),)), "messages"),
        (CompletionInput(()), "messages"),
        (CompletionInput((user("Hi"),), json_object=True), "response_format"),
        (CompletionInput((user("Hi"),), model="gpt-4"), "model"),
    ],
)
def test_invalid_requests_are_refused(services: Services, account_id: int, data: CompletionInput, field: str) -> None:
    """A service-chat request must end with the customer's text and cannot ask for JSON; models are the aliases."""
    with pytest.raises(ValidationFailed) as refused:
        services.chat_completions.complete(account_id, data)

    assert list(refused.value.errors) == [field]


def test_max_tokens_cuts_a_chat_reply(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """A reply longer than about `max_tokens` tokens is cut on a sentence, `finish_reason` length."""
    model.turn = lambda _r: TurnDraft("Hello there, friend. " * 10, "continue", (), 1.0)

    result = services.chat_completions.complete(account_id, CompletionInput((user("Hi"),), max_tokens=11))

    assert (result.content, result.finish_reason) == ("Hello there, friend. Hello there, friend.", "length")
    assert result.usage.completion_tokens == 11


def test_service_logic_is_a_raw_completion(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """The messages, temperature, token limit and JSON flag go to the model as they are."""
    messages = (ChatMessage("system", "Classify."), user("Refund please"))
    data = CompletionInput(messages, SERVICE_LOGIC, temperature=0.1, max_tokens=20)

    result = services.chat_completions.complete(account_id, data)

    [request] = model.chat_requests
    assert (request.messages, request.model, request.temperature, request.max_tokens) == (
        messages,
        SERVICE_LOGIC,
        0.1,
        20,
    )
    assert (result.content, result.turn) == ("Refund please", None)


def test_service_logic_usage_is_estimated_when_missing(services: Services, account_id: int) -> None:
    """A model without counts: about four characters a token, plus four a message."""
    result = services.chat_completions.complete(account_id, CompletionInput((user("12345678"),), SERVICE_LOGIC))

    assert result.usage == Usage(2 + 4, 2)


def test_service_logic_keeps_the_models_usage(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """A model's own counts are kept."""
    model.completion = lambda _r: ChatCompletion("ok", "stop", Usage(40, 1))

    assert services.chat_completions.complete(account_id, CompletionInput((user("x"),), SERVICE_LOGIC)).usage == Usage(
        40, 1
    )


def test_json_mode_content_always_parses(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """A model answering something else than a JSON object in JSON mode: the error object stands in."""
    model.completion = lambda _r: ChatCompletion("[1, 2", "length")

    result = services.chat_completions.complete(
        account_id, CompletionInput((user("List"),), SERVICE_LOGIC, json_object=True)
    )

    assert result.content == NO_JSON_OBJECT
    assert isinstance(json.loads(result.content), dict)


def test_service_logic_can_look_up_the_knowledge_base(
    services: Services, account_id: int, model: ScriptedLanguageModel, add_passage: Callable[[str, str], int]
) -> None:
    """The request's `knowledge` finds the workspace's relevant passages."""
    chunk = add_passage("Opening hours", HOURS)

    services.chat_completions.complete(account_id, CompletionInput((user("x"),), SERVICE_LOGIC))

    lookup = model.chat_requests[0].knowledge
    assert lookup is not None
    assert [p.chunk_id for p in lookup("When do you open on Saturdays?")] == [chunk]


def test_an_unavailable_logic_model_is_an_error(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """A raw completion the model cannot give raises Unavailable."""
    model.down = True

    with pytest.raises(Unavailable):
        services.chat_completions.complete(account_id, CompletionInput((user("x"),), SERVICE_LOGIC))


def test_a_completion_has_an_id_and_its_time(services: Services, account_id: int, clock: FakeClock) -> None:
    """`chatcmpl-` and 24 hex digits; created now."""
    result = services.chat_completions.complete(account_id, CompletionInput((user("Hi"),)))

    assert result.id.startswith("chatcmpl-") and len(result.id) == len("chatcmpl-") + 24
    assert result.created == clock.now()
