"""A web chat session's ``status`` × ``handled_by`` as a state machine (SPEC 3 Web chat session),
driven by Hypothesis.

Rules let the workspace take over, release, write and end; the visitor write, ask for a person and
end; and the AI's worker run, answering with a scripted language model that continues or hands
over, all through the real `Services` over the storage `make_backend()` gives (the in-memory fakes
by default). The moves are predicted from the session's own transition table.

After every step:

- the session's status and handler agree with the model, and its message log has the length the
  model predicts (each visitor, agent and AI message, and one system notice per change of handler
  and per end);
- the log's sequence numbers are 1, 2, 3, ... with no gap, and the session's `last_seq` is the last.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from engage_core.agents.model import AgentInput
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.answering.turns import TurnDraft, TurnRequest
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.webchat.fakes import RecordingLiveFeed
from engage_core.webchat.sessions import TRANSITIONS, VisitorDetails

from .base import START, EngageMachine


class WebChatSessionMachine(EngageMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.language_model = ScriptedLanguageModel(self._answer)
        self.handoff = False
        self.services = Services.build(
            self.backend.uow, self.clock, language_model=self.language_model, live=RecordingLiveFeed()
        )
        self.account = self.services.accounts.create("Acme").account.id
        self.services.ai_agents.create(
            self.account, AgentInput(name="Concierge", system_prompt="Answer politely.", is_default=True)
        )
        self.runner = JobRunner(self.backend.job_queue(), self.services.job_handlers(), self.clock)
        self.chat = self.services.web_chat
        self.started = self.chat.start(self.account, VisitorDetails())
        self.session_id = self.started.session.session_id
        self.status = "active"
        self.handled_by = "ai"
        self.log_length = 1  # the greeting
        self.pending_job = False

    def _answer(self, request: TurnRequest) -> TurnDraft:
        return TurnDraft("Answer.", "handoff" if self.handoff else "continue", (), 0.9)

    def _expect_move(self, trigger: str, call: Callable[[], object]) -> None:
        to = TRANSITIONS[self.handled_by].get(trigger) if self.status == "active" else None
        try:
            call()
        except ValidationFailed:
            assert to is None, f"{trigger} refused from {self.handled_by}"
            return
        assert to is not None, f"{trigger} accepted from {self.handled_by} ({self.status})"
        if to != self.handled_by:
            self.log_length += 1  # the system notice
        self.handled_by = to

    # -- rules -------------------------------------------------------------------------------------

    @rule()
    def take_over(self) -> None:
        self._expect_move("take_over", lambda: self.chat.take_over(self.account, self.session_id))

    @rule()
    def release(self) -> None:
        self._expect_move("release", lambda: self.chat.release(self.account, self.session_id))

    @rule()
    def visitor_asks_for_a_person(self) -> None:
        self._expect_move("request_human", lambda: self.chat.request_human(self.account, self.started.token))

    @rule(handoff=st.booleans())
    def visitor_writes(self, handoff: bool) -> None:
        self.handoff = handoff
        try:
            self.chat.visitor_send(self.account, self.started.token, "Hello")
        except ValidationFailed:
            assert self.status == "ended"
            return
        assert self.status == "active"
        self.log_length += 1
        self.pending_job = self.handled_by == "ai"

    @rule()
    def worker_runs(self) -> None:
        before = self.chat.get(self.account, self.session_id).messages
        self.clock.advance(seconds=1)
        while self.runner.run_once():
            pass
        after = self.chat.get(self.account, self.session_id)
        if self.pending_job and self.status == "active" and self.handled_by == "ai":
            answered = after.messages[-1 if after.session.handled_by == "ai" else -2]
            assert answered.sender_type == "bot"
            self.log_length = len(after.messages)
            self.handled_by = after.session.handled_by
        else:
            assert len(after.messages) == len(before), "the AI answered a session it does not handle"
        self.pending_job = False

    @rule()
    def agent_writes(self) -> None:
        try:
            self.chat.send(self.account, self.session_id, "Agent here")
        except ValidationFailed:
            assert self.status == "ended"
            return
        assert self.status == "active"
        self.log_length += 1

    @rule(by_visitor=st.booleans())
    def end(self, by_visitor: bool) -> None:
        if by_visitor:
            self.chat.visitor_end(self.account, self.started.token)
        else:
            self.chat.end(self.account, self.session_id)
        if self.status == "active":
            self.log_length += 1  # the closing notice
        self.status = "ended"

    # -- invariants --------------------------------------------------------------------------------

    @invariant()
    def the_session_matches_the_model(self) -> None:
        thread = self.chat.get(self.account, self.session_id)
        assert (thread.session.status, thread.session.handled_by) == (self.status, self.handled_by)
        assert len(thread.messages) == self.log_length

    @invariant()
    def the_sequence_has_no_gap(self) -> None:
        thread = self.chat.get(self.account, self.session_id)
        assert [m.seq for m in thread.messages] == list(range(1, len(thread.messages) + 1))
        assert thread.session.last_seq == len(thread.messages)
