"""The offline language model: retrieval only and honest; no network, no model files."""

from __future__ import annotations

import json
from collections.abc import Sequence

import attrs
import pytest

from engage_connectors.llm.offline import (
    FAREWELL_REPLY,
    NOTED_REPLY,
    PERSON_REPLY,
    THANKS_REPLY,
    UNKNOWN_REPLY,
    OfflineLanguageModel,
)
from engage_core.answering.chat import ChatMessage, ChatRequest
from engage_core.answering.intents import small_talk
from engage_core.answering.memory import MemoryRequest
from engage_core.answering.passages import Passage
from engage_core.answering.persona import GENERIC_PERSONA, Persona
from engage_core.answering.turns import TurnRequest

HOURS = Passage(
    3,
    "Opening hours",
    None,
    "We open at 9 am on weekdays. On Saturdays we open at 10 am. We are closed on Sundays.",
    0.8,
)
PARKING = Passage(7, "Parking", None, "Free parking is behind the shop. Bicycles can be left in the yard.", 0.6)
model = OfflineLanguageModel()


def turn(message: str, passages: Sequence[Passage] = (), persona: Persona = GENERIC_PERSONA) -> TurnRequest:
    return TurnRequest("(instructions)", (), message, tuple(passages), persona, small_talk(message))


def test_the_best_sentence_answers_citing_its_chunk() -> None:
    """The sentence holding the question's words is the reply; the chunk is cited; the top score is the confidence."""
    draft = model.compose_turn(turn("When do you open on Saturdays?", [HOURS, PARKING]))

    assert (draft.reply, draft.action, draft.citations, draft.confidence) == (
        "On Saturdays we open at 10 am.",
        "continue",
        (3,),
        0.8,
    )


def test_a_second_sentence_adds_what_the_first_lacks() -> None:
    """A question spanning two passages gets a sentence of each, citing both."""
    draft = model.compose_turn(turn("Are you closed on Sundays, and where is parking?", [HOURS, PARKING]))

    assert draft.reply == "We are closed on Sundays. Free parking is behind the shop."
    assert draft.citations == (3, 7)


def test_below_the_threshold_it_does_not_know() -> None:
    """A best passage under 0.5 is not answered from: the model says it does not know and hands over."""
    weak = Passage(3, "Opening hours", None, "We open at 9 am.", 0.45)

    draft = model.compose_turn(turn("Do you open on public holidays?", [weak]))

    assert (draft.reply, draft.action, draft.citations, draft.confidence) == (UNKNOWN_REPLY, "handoff", (), 0.45)


def test_without_passages_it_hands_over() -> None:
    """Nothing retrieved: no answer is made up."""
    draft = model.compose_turn(turn("Do you sell skateboards?"))

    assert (draft.action, draft.confidence) == ("handoff", 0.0)


def test_the_threshold_can_be_set() -> None:
    """A lower threshold answers from a weaker passage."""
    weak = Passage(3, "Opening hours", None, "We open at 9 am.", 0.45)

    assert OfflineLanguageModel(0.4).compose_turn(turn("When do you open?", [weak])).action == "continue"


@pytest.mark.parametrize("threshold", [0, 1.5])
def test_a_threshold_out_of_bounds_is_refused(threshold: float) -> None:
    """The threshold is a score: above 0, at most 1."""
    with pytest.raises(ValueError, match="threshold"):
        OfflineLanguageModel(threshold)


def test_a_greeting_names_a_stored_agent() -> None:
    """Small talk needs no passage: the greeting names the agent."""
    sara = Persona("Sara", "You help.", agent_id=4)

    draft = model.compose_turn(turn("Hello!", persona=sara))

    assert (draft.reply, draft.action) == ("Hello! I'm Sara. How can I help you today?", "continue")


def test_the_generic_persona_greets_without_a_name() -> None:
    """The built-in persona is nobody: no name."""
    assert model.compose_turn(turn("hi")).reply == "Hello! How can I help you today?"


def test_thanks_continue_and_goodbyes_resolve() -> None:
    """Thanks keep the conversation going; a goodbye resolves it."""
    thanks = model.compose_turn(turn("thanks a lot"))
    bye = model.compose_turn(turn("That's all, bye"))

    assert (thanks.reply, thanks.action) == (THANKS_REPLY, "continue")
    assert (bye.reply, bye.action) == (FAREWELL_REPLY, "resolve")


def test_a_request_for_a_person_is_handed_over() -> None:
    """ "Can I talk to a human?" goes to a person, even with passages at hand."""
    draft = model.compose_turn(turn("Can I talk to a human please?", [HOURS]))

    assert (draft.reply, draft.action) == (PERSON_REPLY, "handoff")


def lookup(text: str) -> Sequence[Passage]:
    return [HOURS, PARKING]


def test_a_raw_completion_answers_the_last_user_message() -> None:
    """`complete` answers the last user message from what `knowledge` finds."""
    request = ChatRequest(
        (ChatMessage("system", "Be brief."), ChatMessage("user", "Is there free parking?")), knowledge=lookup
    )

    answer = model.complete(request)

    assert (answer.content, answer.finish_reason, answer.usage) == ("Free parking is behind the shop.", "stop", None)


def test_a_raw_completion_without_knowledge_does_not_know() -> None:
    """With no way to look anything up, it says so."""
    assert model.complete(ChatRequest((ChatMessage("user", "What is 2 + 2?"),))).content == UNKNOWN_REPLY


def test_json_mode_always_parses() -> None:
    """In JSON mode the answer is an object of answer, action, citations and confidence."""
    request = ChatRequest((ChatMessage("user", "Is there free parking?"),), json_object=True, knowledge=lookup)

    assert json.loads(model.complete(request).content) == {
        "answer": "Free parking is behind the shop.",
        "action": "continue",
        "citations": [7],
        "confidence": 0.8,
    }


def test_max_tokens_cuts_the_answer() -> None:
    """An answer over about `max_tokens * 4` characters is cut, `finish_reason` length."""
    request = ChatRequest(
        (ChatMessage("user", "Are you closed on Sundays, and where is parking?"),), max_tokens=8, knowledge=lookup
    )

    answer = model.complete(request)

    assert (answer.content, answer.finish_reason) == ("We are closed on Sundays.", "length")


# -- the memory step ---------------------------------------------------------------------------------


def test_memories_are_the_explicit_self_statements() -> None:
    """The offline rules, in English and Arabic; a question states nothing."""
    request = MemoryRequest("Remember names.", (), "My name is Sara and I prefer email. Do you open today?")

    assert model.extract_memories(request) == ("Name: Sara", "Prefers email")
    assert model.extract_memories(MemoryRequest("", (), "اسمي أحمد")) == ("الاسم: أحمد",)


def test_a_message_only_telling_is_acknowledged() -> None:
    """No passage, but the message only states facts: thanks and `continue`, nothing made up."""
    request = attrs.evolve(turn("My name is Sara."), statements=("Name: Sara",))

    draft = model.compose_turn(request)
    assert (draft.reply, draft.action, draft.citations) == (NOTED_REPLY, "continue", ())
