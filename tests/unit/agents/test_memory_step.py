"""The memory step of automatic replies over the in-memory fakes: opt-in by the agent's memory
instructions, facts stored once per inbound message (retries and crashes included), given to later
turns, bounded, and a model that fails costs the reply nothing."""

from __future__ import annotations

import pytest

from engage_core.agents.memories import MEMORY_LIMIT
from engage_core.agents.model import AgentPatch
from engage_core.agents.reply_service import ALREADY, REPLIED, RESENT

from .test_auto_replies import World, scripted

INSTRUCTIONS = "Remember the customer's name and preferences."


@pytest.fixture
def world() -> World:
    """The auto-reply world, its default agent given memory instructions, the model always answering."""
    built = World()
    built.services.ai_agents.update(built.account, built.agent.id, AgentPatch(memory_agent_instructions=INSTRUCTIONS))
    scripted(built, "continue", "Noted, thank you.")
    return built


def facts(world: World, contact_id: int) -> list[str]:
    return [m.fact for m in world.services.contact_memories.list(world.account, contact_id)]


def test_the_facts_a_message_states_are_kept(world: World) -> None:
    """The customer's self-statements become the contact's memories, with their source message."""
    message = world.inbound("Hi, my name is Sara and I prefer email.")
    world.work()

    memories = world.services.contact_memories.list(world.account, message.contact_id)
    assert [(m.fact, m.source_message_id) for m in memories] == [
        ("Name: Sara", message.id),
        ("Prefers email", message.id),
    ]


def test_the_model_is_asked_with_the_instructions_and_the_known_facts(world: World) -> None:
    """The memory request carries the agent's instructions, the facts so far and the new message."""
    world.inbound("My name is Sara.")
    world.work()
    world.inbound("I live in Dubai.")
    world.work()

    request = world.model.memory_requests[-1]
    assert (request.instructions, request.known, request.message) == (INSTRUCTIONS, ("Name: Sara",), "I live in Dubai.")


def test_later_turns_are_prompted_with_the_kept_facts(world: World) -> None:
    """A later turn's instructions hold the memory instructions and every fact kept."""
    world.inbound("My name is Sara.")
    world.work()
    world.inbound("When do you open?")
    world.work()

    prompt = world.model.turn_requests[-1].instructions
    assert INSTRUCTIONS in prompt
    assert "- Name: Sara" in prompt


def test_the_facts_of_the_message_itself_reach_its_turn(world: World) -> None:
    """The turn answering a statement already knows it."""
    world.inbound("My name is Sara.")
    world.work()

    assert "- Name: Sara" in world.model.turn_requests[-1].instructions


def test_an_agent_without_memory_instructions_keeps_nothing(world: World) -> None:
    """Opt-in: no memory request, no fact stored, no memory part in the prompt."""
    world.services.ai_agents.update(world.account, world.agent.id, AgentPatch(memory_agent_instructions=None))
    message = world.inbound("My name is Sara.")
    world.work()

    assert (world.model.memory_requests, facts(world, message.contact_id)) == ([], [])
    assert "What you know about this customer" not in world.model.turn_requests[-1].instructions


def test_a_fact_stated_again_is_kept_once(world: World) -> None:
    """The same fact in a later message, in another case, adds nothing."""
    message = world.inbound("My name is Sara.")
    world.work()
    world.inbound("my name is SARA")
    world.work()

    assert facts(world, message.contact_id) == ["Name: Sara"]


def test_a_job_run_twice_keeps_the_facts_once(world: World) -> None:
    """The second run finds the recorded reply: no second memory request, nothing stored twice."""
    message = world.inbound("My name is Sara.")
    outcomes = [world.services.auto_replies.reply(world.account, message.id) for _ in range(2)]

    assert (outcomes, facts(world, message.contact_id), len(world.model.memory_requests)) == (
        [REPLIED, ALREADY],
        ["Name: Sara"],
        1,
    )


def test_a_crash_after_recording_keeps_the_facts_once(world: World) -> None:
    """The worker dies between storing and sending: the facts stored with the reply stay, once."""
    message = world.inbound("My name is Sara.")
    world.gateway.crashes = 1
    with pytest.raises(RuntimeError):
        world.services.auto_replies.reply(world.account, message.id)
    again = world.services.auto_replies.reply(world.account, message.id)

    assert (again, facts(world, message.contact_id)) == (RESENT, ["Name: Sara"])


def test_a_reply_not_sent_keeps_no_fact(world: World) -> None:
    """A human took over before the job ran: nothing answered, nothing remembered."""
    message = world.inbound("My name is Sara.")
    world.services.conversation_handling.take_over(world.account, message.contact_id)
    world.work()

    assert facts(world, message.contact_id) == []


def test_a_model_that_fails_costs_the_reply_nothing(world: World) -> None:
    """No fact found: the reply still goes out."""
    world.model.memories = lambda request: ()
    message = world.inbound("My name is Sara.")
    world.work()

    assert (len(world.sent()), facts(world, message.contact_id)) == (1, [])


def test_the_oldest_facts_make_room_for_new_ones(world: World) -> None:
    """At the limit, the facts of a new message drop the oldest ones."""
    first = world.inbound("Hello")
    world.work()
    for n in range(MEMORY_LIMIT):
        world.services.contact_memories.add(world.account, first.contact_id, f"Fact {n}")
    world.inbound("My name is Sara and I live in Dubai.")
    world.work()

    kept = facts(world, first.contact_id)
    assert (len(kept), kept[0], kept[-2:]) == (MEMORY_LIMIT, "Fact 2", ["Name: Sara", "Lives in Dubai"])


def test_a_model_answer_is_cleaned_and_bounded(world: World) -> None:
    """Blank facts are dropped, whitespace collapsed, long ones cut, at most five kept."""
    world.model.memories = lambda request: ("  ", " Likes   tea ", "x" * 400, *(f"F{n}" for n in range(9)))
    message = world.inbound("Anything")
    world.work()

    kept = facts(world, message.contact_id)
    assert (kept[0], len(kept[1]), len(kept)) == ("Likes tea", 280, 5)


def test_a_message_only_telling_is_acknowledged_not_handed_over(world: World) -> None:
    """Nothing retrieved, but the message only states facts: the `continue` stands."""
    message = world.inbound("My name is Sara.")
    world.work()

    reply = world.reply_to(message)
    assert (reply is not None and reply.action, world.handled_by(message.contact_id)) == ("continue", "ai")


def test_a_statement_with_an_unanswered_question_is_handed_over(world: World) -> None:
    """A question with nothing retrieved is handed over, whatever the message also states."""
    message = world.inbound("My name is Sara, do you sell bicycles?")
    world.work()

    reply = world.reply_to(message)
    assert (reply is not None and reply.action, facts(world, message.contact_id)) == ("handoff", ["Name: Sara"])
