"""AutoReplyService over the in-memory fakes and the sandbox gateway: an inbound message queues its
reply in the same transaction, the worker answers through the contact's channel, the skip
conditions, hand-over and resolve, and exactly once across retries and crashes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engage_core.agents.model import AgentInput, AgentPatch
from engage_core.agents.replies import AI_AGENTS_FEATURE, REPLY_JOB, AiReply, reply_key
from engage_core.agents.reply_service import ALREADY, NOT_AI, REPLIED, RESENT
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.answering.turns import TurnDraft, TurnRequest
from engage_core.jobs.model import Job
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.entries import TextInput
from engage_core.messaging.gateway import SentMessage
from engage_core.messaging.messages import Message
from engage_core.messaging.sandbox import SandboxGateway, SandboxSent
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory

from ..factories import START
from ..messaging.fixtures import PHONE, CountingBytes, ScriptedFeatures

QUESTION = "When do you open?"
HOURS = "We open at 9 and close at 17, Monday to Saturday."


def answer_from_passages(request: TurnRequest) -> TurnDraft:
    """The reply quotes the first passage, citing it (a handoff without one)."""
    if not request.passages:
        return TurnDraft("Let me pass you to a colleague.", "handoff")
    first = request.passages[0]
    return TurnDraft(first.content, "continue", (first.chunk_id,), 0.9)


class CrashingGateway:
    """The sandbox, except that the next `crashes` sends raise as a process dying mid-send would."""

    def __init__(self, sandbox: SandboxGateway) -> None:
        self.sandbox = sandbox
        self.crashes = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.sandbox, name)

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        if self.crashes:
            self.crashes -= 1
            raise RuntimeError("the worker died")
        return self.sandbox.send(provider_account_id, recipient, text)


class World:
    """One account with a connected WhatsApp, a default agent, a one-passage knowledge base, the
    scripted model, and a worker run by hand."""

    def __init__(self) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.sandbox = SandboxGateway(self.clock, token_bytes=CountingBytes())
        self.gateway = CrashingGateway(self.sandbox)
        self.features = ScriptedFeatures()
        self.model = ScriptedLanguageModel(answer_from_passages)
        self.services = Services.build(
            self.uow, self.clock, gateway=self.gateway, features=self.features, language_model=self.model
        )
        self.sandbox.attach(self.services.inbox)
        self.account = self.services.accounts.create("Acme").account.id
        started = self.services.channels.connect_qr(self.account, "whatsapp")
        self.pid = started.channel.provider_account_id or ""
        self.sandbox.scan(self.pid)
        self.services.channels.status(self.account, "whatsapp")
        entry = self.services.knowledge_entries.create_text(self.account, TextInput("Opening hours", HOURS))
        [self.chunk] = [c.id for c in self.services.knowledge_chunks.list(self.account, entry.id).chunks]
        self.agent = self.services.ai_agents.create(
            self.account, AgentInput(name="Concierge", system_prompt="Answer politely.", is_default=True)
        )
        self.runner = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)

    def inbound(self, text: str = QUESTION, sender: str = PHONE, provider_id: str | None = None) -> Message:
        """A customer writes; the stored inbound message."""
        self.clock.advance(seconds=1)
        sent = self.sandbox.inject_message(self.pid, sender, text, provider_message_id=provider_id)
        with self.uow.workspace(self.account, readonly=True) as uow:
            found = uow.messages.by_provider_id("whatsapp", sent.provider_message_id)
        assert found is not None
        return found

    def work(self) -> None:
        """Run the worker until no job is due."""
        self.clock.advance(seconds=1)
        while self.runner.run_once():
            pass

    def sent(self) -> list[SandboxSent]:
        return list(self.sandbox.account(self.pid).sent)

    def job(self, message: Message) -> Job | None:
        with self.uow.workspace(self.account, readonly=True) as uow:
            return uow.jobs.find(REPLY_JOB, reply_key(message.id))

    def reply_to(self, message: Message) -> AiReply | None:
        return self.services.auto_replies.recorded(self.account, message.id)

    def outbound(self, contact_id: int) -> list[Message]:
        page = self.services.messages.for_contact(self.account, contact_id, "outbound", PageRequest(1, 100))
        return list(page.items)

    def handled_by(self, contact_id: int) -> str:
        return self.services.conversation_handling.get(self.account, contact_id).handled_by

    def events(self, name: str) -> list[object]:
        return [e.payload for e in self.uow.store.events(self.account) if e.name == name]


@pytest.fixture
def world() -> World:
    return World()


def scripted(world: World, action: str, reply: str = "Noted.") -> None:
    world.model.turn = lambda request: TurnDraft(reply, action, (), 0.8)


# -- queueing ------------------------------------------------------------------------------------


def test_an_inbound_message_queues_its_reply_without_answering_it(world: World) -> None:
    """Receiving stores the job keyed by the message; the engine is not asked yet."""
    message = world.inbound()

    job = world.job(message)
    assert (job is not None and job.status, world.model.turn_requests, world.sent()) == ("queued", [], [])


def test_a_repeated_inbound_message_queues_nothing_more(world: World) -> None:
    """The same provider message twice: one job, one reply."""
    world.inbound(provider_id="wamid-1")
    world.work()
    world.inbound(provider_id="wamid-1")
    world.work()

    assert len(world.sent()) == 1


def test_a_workspace_without_any_agent_queues_nothing(world: World) -> None:
    """No agent at all: no job."""
    world.services.ai_agents.update(world.account, world.agent.id, AgentPatch(is_default=False))
    world.services.ai_agents.delete(world.account, world.agent.id)

    assert world.job(world.inbound()) is None


def test_without_a_language_model_nothing_is_queued() -> None:
    """Services built without a language model neither queue replies nor handle the job kind."""
    clock = FakeClock(START)
    services = Services.build(InMemoryUnitOfWorkFactory(), clock, gateway=SandboxGateway(clock))

    assert REPLY_JOB not in services.job_handlers()


# -- replying ------------------------------------------------------------------------------------


def test_the_reply_goes_through_the_contacts_channel(world: World) -> None:
    """The worker answers: the sandbox sends the engine's reply to the customer's phone."""
    world.inbound()
    world.work()

    assert [(s.recipient, s.text) for s in world.sent()] == [(PHONE, HOURS)]


def test_the_reply_is_an_outbound_message_evented_like_any_send(world: World) -> None:
    """Stored `sent` with the provider id, and `message.sent` emitted."""
    message = world.inbound()
    world.work()

    [outbound] = world.outbound(message.contact_id)
    assert (outbound.status, outbound.content, outbound.provider_message_id) == (
        "sent",
        HOURS,
        world.sent()[0].provider_message_id,
    )
    assert len(world.events("message.sent")) == 1


def test_the_reply_is_recorded_with_its_citations(world: World) -> None:
    """The `AiReply` ties the inbound message to its answer, with the chunk cited and the confidence."""
    message = world.inbound()
    world.work()

    reply = world.reply_to(message)
    [outbound] = world.outbound(message.contact_id)
    assert reply is not None
    assert (reply.outbound_message_id, reply.action, reply.citations, reply.confidence) == (
        outbound.id,
        "continue",
        (world.chunk,),
        0.9,
    )


def test_the_engine_sees_the_conversation_oldest_first(world: World) -> None:
    """Earlier inbound messages are `user`, the AI's replies `assistant`, in order."""
    scripted(world, "continue", "Hi! How can I help?")
    world.inbound("Hello")
    world.work()
    world.model.turn = answer_from_passages
    world.inbound()
    world.work()

    history = [(m.role, m.content) for m in world.model.turn_requests[-1].history]
    assert history == [("user", "Hello"), ("assistant", "Hi! How can I help?")]


def test_the_assigned_agent_answers_rather_than_the_default(world: World) -> None:
    """A contact's assigned active agent is the persona the engine answers as."""
    message = world.inbound()
    other = world.services.ai_agents.create(world.account, AgentInput(name="Sales", system_prompt="Sell."))
    world.services.ai_agents.assign(world.account, other.id, [message.contact_id])
    world.work()

    assert world.model.turn_requests[-1].persona.name == "Sales"


# -- skipping ------------------------------------------------------------------------------------


def test_no_reply_when_the_plan_lacks_ai_agents(world: World) -> None:
    """Without the `ai_agents` feature the job succeeds and sends nothing."""
    world.features.refused.add(AI_AGENTS_FEATURE)
    message = world.inbound()
    world.work()

    job = world.job(message)
    assert (world.sent(), job is not None and job.status) == ([], "succeeded")


def test_no_reply_to_a_blacklisted_contact(world: World) -> None:
    """A blacklisted contact gets nothing, not even a failed message."""
    first = world.inbound("Hi")
    world.services.contacts.toggle_blacklist(world.account, first.contact_id)
    world.work()

    assert (world.sent(), world.outbound(first.contact_id)) == ([], [])


def test_no_reply_once_a_human_took_the_conversation_over(world: World) -> None:
    """A conversation a person handles gets no automatic reply."""
    message = world.inbound()
    world.services.conversation_handling.take_over(world.account, message.contact_id)
    world.work()

    assert (world.sent(), world.model.turn_requests) == ([], [])


def test_no_reply_while_the_conversation_waits_for_a_human(world: World) -> None:
    """`pending` (handed over) is silent too."""
    message = world.inbound()
    world.services.conversation_handling.hand_over(world.account, message.contact_id, "Asked for a refund.")
    world.work()

    assert world.sent() == []


def test_no_reply_when_no_active_agent_answers_the_contact(world: World) -> None:
    """An assigned agent deactivated, and no default: nothing is sent."""
    other = world.services.ai_agents.create(world.account, AgentInput(name="Sales", system_prompt="Sell."))
    message = world.inbound()
    world.services.ai_agents.assign(world.account, other.id, [message.contact_id])
    world.services.ai_agents.update(world.account, world.agent.id, AgentPatch(is_default=False))
    world.services.ai_agents.update(world.account, other.id, AgentPatch(is_active=False))
    world.work()

    assert world.sent() == []


def test_only_the_latest_of_several_waiting_messages_is_answered(world: World) -> None:
    """Two messages before the worker runs: one reply, to the second, the first in its history."""
    first = world.inbound("Hello there")
    second = world.inbound()
    world.work()

    assert (len(world.sent()), world.reply_to(first) is None, world.reply_to(second) is not None) == (1, True, True)
    assert [(m.role, m.content) for m in world.model.turn_requests[-1].history] == [("user", "Hello there")]


# -- the AI's decisions --------------------------------------------------------------------------


def test_handoff_sends_the_hand_over_message_and_waits_for_a_human(world: World) -> None:
    """`handoff`: the customer gets the turn's reply; the conversation is `pending` with an event."""
    scripted(world, "handoff", "A colleague will get back to you.")
    message = world.inbound()
    world.work()

    assert [s.text for s in world.sent()] == ["A colleague will get back to you."]
    assert (world.handled_by(message.contact_id), len(world.events("conversation.handed_over"))) == ("pending", 1)


def test_after_a_handoff_the_ai_stays_silent(world: World) -> None:
    """The next message of a handed-over conversation gets no reply."""
    scripted(world, "handoff", "A colleague will get back to you.")
    world.inbound()
    world.work()
    world.inbound("Anyone?")
    world.work()

    assert len(world.sent()) == 1


def test_resolve_resets_the_context_of_the_next_answer(world: World) -> None:
    """After `resolve` the engine is shown nothing said before it."""
    scripted(world, "resolve", "Glad to help!")
    message = world.inbound("Thanks, that's all")
    world.work()
    world.model.turn = answer_from_passages
    world.inbound()
    world.work()

    handling = world.services.conversation_handling.get(world.account, message.contact_id)
    assert (handling.handled_by, handling.context_since is not None) == ("ai", True)
    assert world.model.turn_requests[-1].history == ()


def test_release_lets_the_ai_answer_again(world: World) -> None:
    """Taken over, then released: the next message is answered."""
    message = world.inbound("Hi")
    world.services.conversation_handling.take_over(world.account, message.contact_id)
    world.work()
    world.services.conversation_handling.release(world.account, message.contact_id)
    world.inbound()
    world.work()

    assert [s.text for s in world.sent()] == [HOURS]


def test_a_take_over_while_the_engine_thinks_wins(world: World) -> None:
    """A human takes over during the engine's turn: nothing is stored or sent."""
    message = world.inbound()

    def thinking(request: TurnRequest) -> TurnDraft:
        world.services.conversation_handling.take_over(world.account, message.contact_id)
        return TurnDraft("Too late.", "continue", (), 0.5)

    world.model.turn = thinking
    outcome = world.services.auto_replies.reply(world.account, message.id)

    assert (outcome, world.sent(), world.outbound(message.contact_id)) == (NOT_AI, [], [])


# -- exactly once --------------------------------------------------------------------------------


def test_a_job_run_twice_replies_once(world: World) -> None:
    """The second run finds the recorded reply and sends nothing."""
    message = world.inbound()
    outcomes = [world.services.auto_replies.reply(world.account, message.id) for _ in range(2)]

    assert (outcomes, len(world.sent())) == ([REPLIED, ALREADY], 1)


def test_a_crash_after_recording_sends_the_stored_reply_once(world: World) -> None:
    """The worker dies between storing and sending: the retry sends that message, not a new one."""
    message = world.inbound()
    world.gateway.crashes = 1
    with pytest.raises(RuntimeError):
        world.services.auto_replies.reply(world.account, message.id)
    [pending] = world.outbound(message.contact_id)
    again = world.services.auto_replies.reply(world.account, message.id)

    [sent] = world.outbound(message.contact_id)
    assert (pending.status, again, sent.id, sent.status, len(world.sent())) == (
        "pending",
        RESENT,
        pending.id,
        "sent",
        1,
    )


def test_the_worker_retries_a_crashed_reply_to_completion(world: World) -> None:
    """Through the worker: the failed attempt is retried later and the customer gets one reply."""
    message = world.inbound()
    world.gateway.crashes = 1
    world.work()
    world.clock.advance(minutes=5)
    world.work()

    job = world.job(message)
    assert (len(world.sent()), job is not None and job.status) == (1, "succeeded")


# -- usage -----------------------------------------------------------------------------------------


def test_usage_counts_the_contacts_the_ai_replied_to(world: World) -> None:
    """`ai_agent_sessions`: distinct contacts with a reply in the period, however many replies."""
    world.inbound()
    world.work()
    world.inbound("And on Sunday?")
    world.work()
    world.inbound(sender="+966501234568")
    world.work()

    with world.uow.workspace(world.account, readonly=True) as uow:
        usage = uow.usage.report(START, world.clock.now() + timedelta(seconds=1))
        before = uow.usage.report(START - timedelta(days=1), START)
    assert (usage.ai_agent_sessions, before.ai_agent_sessions) == (2, 0)
