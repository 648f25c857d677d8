"""The conversation suite (`tests/agent_conversations.py`): 30 customer questions to a bicycle shop's
AI agent, each answered citing the right passage or handed over because nothing answers it; at
least 90% right with the offline model, and through the OpenAI-compatible adapter against the fake
upstream (whose fake model answers from the prompt's passages: this tests the plumbing, prompt to
parsed turn)."""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import pytest
from agent_conversations import PASSAGES, QUESTIONS
from fake_llm import FakeLanguageModel

from engage_connectors.llm.offline import OfflineLanguageModel
from engage_connectors.llm.openai_compatible import OpenAICompatibleModel
from engage_core.answering.chat import SERVICE_CHAT, SERVICE_LOGIC
from engage_core.answering.persona import Persona
from engage_core.answering.ports import LanguageModel
from engage_core.answering.turns import Turn
from engage_core.knowledge.entries import TextInput
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

REQUIRED_RATE = 0.9
SHOP_AGENT = Persona(
    "Nora",
    "You are Nora, the assistant of Northwind Cycles, a bicycle shop in Portland.",
    agent_id=1,
    personality_prompt="Friendly and brief.",
    response_guidelines={"language": "English", "max_reply_chars": 400},
)


@attrs.frozen
class Shop:
    """The shop's workspace: its services, its id, and the chunk ids of each passage by key."""

    services: Services
    account_id: int
    chunks: dict[str, frozenset[int]]


def open_shop(model: LanguageModel) -> Shop:
    uow = InMemoryUnitOfWorkFactory()
    services = Services.build(uow, FakeClock(), language_model=model)
    account_id = services.accounts.create("Northwind Cycles").account.id
    chunks = {}
    for key, (title, text) in PASSAGES.items():
        entry = services.knowledge_entries.create_text(account_id, TextInput(title, text))
        chunks[key] = frozenset(c.id for c in services.knowledge_chunks.list(account_id, entry.id).chunks)
    return Shop(services, account_id, chunks)


@pytest.fixture(params=["offline", "upstream"])
def model(request: pytest.FixtureRequest) -> Iterator[LanguageModel]:
    if request.param == "offline":
        yield OfflineLanguageModel()
        return
    with FakeLanguageModel(api_key="sk-suite") as upstream:
        adapter = OpenAICompatibleModel(
            upstream.url, {SERVICE_CHAT: "fake-chat", SERVICE_LOGIC: "fake-logic"}, api_key="sk-suite"
        )
        yield adapter
        adapter.close()


def right(turn: Turn, expected: frozenset[int] | None) -> bool:
    """Answered citing the expected passage, or handed over when none is expected."""
    if expected is None:
        return turn.action == "handoff" and not turn.citations
    return turn.action == "continue" and bool(expected & set(turn.citations))


def test_the_agent_answers_at_least_nine_in_ten_right(model: LanguageModel) -> None:
    """At least 90% of the questions get the expected outcome; the misses are printed."""
    shop = open_shop(model)
    misses = []
    for question, key in QUESTIONS:
        turn = shop.services.answers.answer(shop.account_id, SHOP_AGENT, [], question)
        if not right(turn, None if key is None else shop.chunks[key]):
            misses.append(
                f"{question!r}: expected {key or 'handoff'}, got {turn.action} {turn.citations} {turn.reply!r}"
            )
    rate = 1 - len(misses) / len(QUESTIONS)
    print(f"\n{type(model).__name__}: {rate:.0%} right ({len(QUESTIONS) - len(misses)}/{len(QUESTIONS)})")
    print("\n".join(misses))

    assert rate >= REQUIRED_RATE, "\n".join(misses)
