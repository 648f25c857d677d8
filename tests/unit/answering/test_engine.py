"""AnswerEngine over the in-memory knowledge base and a scripted model: retrieval, the prompt, the
checks of the model's draft, the honesty rule and the guardrails."""

from __future__ import annotations

from collections.abc import Callable

from engage_core.answering.chat import ChatMessage, Usage
from engage_core.answering.engine import HISTORY_MESSAGES, MESSAGE_MAX, REFUSAL, TURN_OVERHEAD_TOKENS
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.answering.persona import GENERIC_PERSONA, Persona
from engage_core.answering.turns import HANDOFF_REPLY, TurnDraft, TurnRequest
from engage_core.knowledge.entries import TextInput
from engage_core.services import Services

AddPassage = Callable[[str, str], int]
HOURS = "We open at 9 am on weekdays. On Saturdays we open at 10 am."


def scripted(draft: TurnDraft) -> Callable[[TurnRequest], TurnDraft]:
    return lambda _request: draft


def test_the_passages_reach_the_model_labelled_by_chunk(
    services: Services, account_id: int, model: ScriptedLanguageModel, add_passage: AddPassage
) -> None:
    """The retrieved chunk is given as a passage and in the prompt, under its chunk id."""
    chunk = add_passage("Opening hours", HOURS)

    services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    [request] = model.turn_requests
    assert [p.chunk_id for p in request.passages] == [chunk]
    assert f'<passage id="{chunk}" title="Opening hours">\n{HOURS}\n</passage>' in request.instructions


def test_a_cited_relevant_passage_is_the_answer(services: Services, account_id: int, add_passage: AddPassage) -> None:
    """The model's `continue` citing a retrieved chunk is the turn."""
    chunk = add_passage("Opening hours", HOURS)

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    assert (turn.reply, turn.action, turn.citations) == (HOURS, "continue", (chunk,))


def test_the_prompt_holds_the_persona_in_order(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """System, instruction and personality prompts, then the guidelines as rules; not the booking or memory steps'."""
    persona = Persona(
        "Sara",
        "You are Sara.",
        instruction_prompt="Sign with your name.",
        personality_prompt="Warm.",
        booking_agent_instructions="Offer mornings first.",
        memory_agent_instructions="Remember the size.",
        response_guidelines={"language": "Arabic", "max_reply_chars": 300},
    )

    services.answers.answer(account_id, persona, [], "Hello")

    text = model.turn_requests[0].instructions
    assert text.index("You are Sara.") < text.index("Sign with your name.") < text.index("Personality and tone: Warm.")
    assert "- language: Arabic" in text and "- Keep the reply under 300 characters." in text
    assert "Offer mornings first." not in text and "Remember the size." not in text


def test_weak_hits_are_not_passages(
    services: Services, account_id: int, model: ScriptedLanguageModel, add_passage: AddPassage
) -> None:
    """A chunk sharing one minor word with a long question (score under 0.4) is not given to the model."""
    add_passage("Opening hours", HOURS)

    services.answers.answer(account_id, GENERIC_PERSONA, [], "Refunds for damaged gifts shipped abroad on weekdays?")

    assert model.turn_requests[0].passages == ()


def test_citations_of_chunks_not_given_are_dropped(
    services: Services, account_id: int, model: ScriptedLanguageModel, add_passage: AddPassage
) -> None:
    """Only the ids of passages given to the model survive, once each, in order."""
    chunk = add_passage("Opening hours", HOURS)
    model.turn = scripted(TurnDraft("At 10 am.", "continue", (999, chunk, chunk), 0.8))

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    assert turn.citations == (chunk,)


def test_an_unknown_action_is_a_handoff(
    services: Services, account_id: int, add_passage: AddPassage, model: ScriptedLanguageModel
) -> None:
    """An action outside continue, handoff and resolve hands over, keeping the reply."""
    add_passage("Opening hours", HOURS)
    model.turn = scripted(TurnDraft("Let me check.", "escalate", (), 0.5))

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    assert (turn.reply, turn.action) == ("Let me check.", "handoff")


def test_nothing_relevant_and_an_answer_is_a_handoff(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """The honesty rule: with nothing retrieved, a model's `continue` is replaced by the hand-over."""
    model.turn = scripted(TurnDraft("Yes, we ship to Mars in two days!", "continue", (), 0.9))

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "Do you ship to Mars?")

    assert (turn.reply, turn.action, turn.citations, turn.confidence) == (HANDOFF_REPLY, "handoff", (), 0.0)


def test_small_talk_needs_no_passage(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """A greeting answered without a citation stays `continue`."""
    model.turn = scripted(TurnDraft("Hi! How can I help?", "continue", (), 1.0))

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "Hello there!")

    assert (turn.reply, turn.action) == ("Hi! How can I help?", "continue")
    assert model.turn_requests[0].small_talk == "greeting"


def test_a_resolve_is_kept(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """The model may resolve the conversation."""
    model.turn = scripted(TurnDraft("Glad I could help.", "resolve", (), 1.0))

    assert services.answers.answer(account_id, GENERIC_PERSONA, [], "That's all, bye").action == "resolve"


def test_an_empty_reply_is_a_handoff(
    services: Services, account_id: int, add_passage: AddPassage, model: ScriptedLanguageModel
) -> None:
    """A blank reply is never sent: the hand-over message is."""
    add_passage("Opening hours", HOURS)
    model.turn = scripted(TurnDraft("  ", "continue", (), 0.9))

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    assert (turn.reply, turn.action) == (HANDOFF_REPLY, "handoff")


def test_confidence_is_kept_within_zero_and_one(
    services: Services, account_id: int, add_passage: AddPassage, model: ScriptedLanguageModel
) -> None:
    """A confidence above 1 is 1; none is 0."""
    chunk = add_passage("Opening hours", HOURS)
    model.turn = scripted(TurnDraft("At 10 am.", "continue", (chunk,), 7.0))
    high = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")
    model.turn = scripted(TurnDraft("At 10 am.", "continue", (chunk,), None))
    unknown = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    assert (high.confidence, unknown.confidence) == (1.0, 0.0)


def test_a_model_that_fails_hands_over(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """A model raising Unavailable gives the hand-over, not an error."""
    model.down = True

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open?")

    assert (turn.reply, turn.action) == (HANDOFF_REPLY, "handoff")


def test_a_refused_topic_is_declined_without_the_model(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """A message about a refused topic gets the refusal, `continue`, and the model is not asked."""
    persona = Persona("Sara", "You help.", response_guidelines={"refused_topics": ["politics", "competitor prices"]})

    turn = services.answers.answer(account_id, persona, [], "What do you think of your competitors' prices?")

    assert (turn.reply, turn.action, turn.citations) == (REFUSAL, "continue", ())
    assert model.turn_requests == []


def test_a_long_reply_is_cut_on_a_sentence(
    services: Services, account_id: int, add_passage: AddPassage, model: ScriptedLanguageModel
) -> None:
    """`max_reply_chars` keeps the whole sentences that fit."""
    chunk = add_passage("Opening hours", HOURS)
    reply = "We open at 10 am on Saturdays. " + "Our weekday hours are longer, and holidays differ. " * 3
    model.turn = scripted(TurnDraft(reply, "continue", (chunk,), 0.9))
    persona = Persona("Sara", "You help.", response_guidelines={"max_reply_chars": 60})

    turn = services.answers.answer(account_id, persona, [], "When do you open on Saturdays?")

    assert turn.reply == "We open at 10 am on Saturdays."


def test_usage_is_the_models_when_given(
    services: Services, account_id: int, model: ScriptedLanguageModel, add_passage: AddPassage
) -> None:
    """A model's own token counts are kept."""
    chunk = add_passage("Opening hours", HOURS)
    model.turn = scripted(TurnDraft("At 10.", "continue", (chunk,), 0.9, Usage(120, 4)))

    assert services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?").usage == Usage(
        120, 4
    )


def test_usage_is_estimated_otherwise(services: Services, account_id: int, model: ScriptedLanguageModel) -> None:
    """Without counts, about four characters a token, plus four a message."""
    model.turn = scripted(TurnDraft("Hi!!", "continue", (), 1.0))

    turn = services.answers.answer(account_id, GENERIC_PERSONA, [], "Hello")

    [request] = model.turn_requests
    expected_prompt = sum(-(-len(m.content) // 4) + 4 for m in request.messages())
    assert turn.usage == Usage(expected_prompt, 1)


def test_the_history_keeps_the_latest_conversation_messages(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """Only user and assistant messages, the latest `HISTORY_MESSAGES` of them, go to the model."""
    history = [ChatMessage("system", "ignored")] + [
        ChatMessage("user" if n % 2 else "assistant", f"message {n}") for n in range(30)
    ]

    services.answers.answer(account_id, GENERIC_PERSONA, history, "Hello")

    sent = model.turn_requests[0].history
    assert len(sent) == HISTORY_MESSAGES and sent[-1].content == "message 29"
    assert all(m.role != "system" for m in sent)


def test_other_workspaces_passages_are_never_retrieved(
    services: Services, account_id: int, new_account: Callable[..., int], model: ScriptedLanguageModel
) -> None:
    """Search is scoped to the workspace answering."""
    other = new_account("Other")
    services.knowledge_entries.create_text(other, TextInput("Opening hours", HOURS))

    services.answers.answer(account_id, GENERIC_PERSONA, [], "When do you open on Saturdays?")

    assert model.turn_requests[0].passages == ()


def test_a_token_limit_leaves_room_for_the_json(
    services: Services, account_id: int, model: ScriptedLanguageModel
) -> None:
    """The model may spend the reply's limit plus the JSON around it."""
    services.answers.answer(account_id, GENERIC_PERSONA, [], "Hello", max_tokens=50)

    assert model.turn_requests[0].max_tokens == 50 + TURN_OVERHEAD_TOKENS


def test_a_long_message_is_searched_by_its_start(
    services: Services, account_id: int, model: ScriptedLanguageModel, add_passage: AddPassage
) -> None:
    """The search takes the message's first 500 characters; the model gets the whole message."""
    chunk = add_passage("Opening hours", HOURS)
    message = "When do you open on Saturdays? " + "x" * 5000

    services.answers.answer(account_id, GENERIC_PERSONA, [], message)

    [request] = model.turn_requests
    assert [p.chunk_id for p in request.passages] == [chunk]
    assert request.message == message[:MESSAGE_MAX]
