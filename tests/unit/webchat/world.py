"""One workspace with a default agent, a one-passage knowledge base, the scripted model and a worker
run by hand: what the web chat unit tests share."""

from __future__ import annotations

from engage_core.agents.model import AgentInput
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.answering.turns import TurnDraft, TurnRequest
from engage_core.jobs.runner import JobRunner
from engage_core.knowledge.entries import TextInput
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory
from engage_core.webchat.fakes import RecordingLiveFeed
from engage_core.webchat.service import StartedSession
from engage_core.webchat.sessions import VisitorDetails

from ..factories import START

HOURS = "We open at 9 and close at 17, Monday to Saturday."


def answer_from_passages(request: TurnRequest) -> TurnDraft:
    """The reply quotes the first passage (a hand-off without one)."""
    if not request.passages:
        return TurnDraft("Let me pass you to a colleague.", "handoff")
    first = request.passages[0]
    return TurnDraft(first.content, "continue", (first.chunk_id,), 0.9)


class World:
    def __init__(self) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.model = ScriptedLanguageModel(answer_from_passages)
        self.live = RecordingLiveFeed()
        self.services = Services.build(self.uow, self.clock, language_model=self.model, live=self.live)
        self.account = self.services.accounts.create("Acme").account.id
        self.services.knowledge_entries.create_text(self.account, TextInput("Opening hours", HOURS))
        self.services.ai_agents.create(
            self.account, AgentInput(name="Concierge", system_prompt="Answer politely.", is_default=True)
        )
        self.runner = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)
        self.chat = self.services.web_chat

    def start(self, **visitor: str) -> StartedSession:
        return self.chat.start(self.account, VisitorDetails(**visitor))

    def work(self) -> None:
        """Run the worker until no job is due."""
        self.clock.advance(seconds=1)
        while self.runner.run_once():
            pass

    def log(self, started: StartedSession) -> list[tuple[str, str]]:
        thread = self.chat.get(self.account, started.session.session_id)
        return [(m.sender_type, m.message_text) for m in thread.messages]

    def events(self, name: str) -> list[object]:
        return [e.payload for e in self.uow.store.events(self.account) if e.name == name]
