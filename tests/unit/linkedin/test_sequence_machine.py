"""LinkedIn sequences as a state machine over the fakes: runs of the send job, days passing, members
writing back, pauses, resumes, cancels, provider outages and crashes of the sender between "sent
through the gateway" and "recorded", in any order. After every step: each member got each step at
most once and in order, nobody got a step after writing back, follow-ups only move forward, the
campaign's counters equal a recount, and a completed campaign has nothing pending."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engage_core.campaigns.model import SOURCES, Counters
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import ValidationFailed
from engage_core.linkedin.model import SequenceStep
from engage_core.linkedin.service import LaunchInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.gateway import SentMessage
from engage_core.messaging.people import PeopleQuery
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory

from ..factories import START

LEASE = 60.0
MEMBERS = 4
STEPS = ("One", "Two", "Three")
RANK = {"pending": 0, "sending": 1, "sent": 2, "failed": 2, "skipped": 2}
"""A follow-up's progress: it may pass several moves between two checks, never go back."""


class Crash(Exception):
    """The sender's process died right after the network accepted the message."""


class ChaosGateway:
    """The sandbox, plus a sender crash armed for the next accepted send."""

    def __init__(self, sandbox: SandboxGateway) -> None:
        self.sandbox = sandbox
        self.crash_next = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sandbox, name)

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        sent = self.sandbox.send(provider_account_id, recipient, text)
        if self.crash_next:
            self.crash_next = False
            raise Crash("killed after the gateway call")
        return sent


class SequenceMachine(RuleBasedStateMachine):
    @initialize(waits=st.tuples(st.integers(0, 2), st.integers(0, 3)))
    def setup(self, waits: tuple[int, int]) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.sandbox = SandboxGateway(self.clock)
        self.gateway = ChaosGateway(self.sandbox)
        self.services = Services.build(
            self.uow,
            self.clock,
            gateway=self.gateway,  # type: ignore[arg-type]
            job_lease_seconds=LEASE,
            sleep=lambda seconds: self.clock.advance(seconds=seconds) and None,
        )
        self.sandbox.attach(self.services.inbox)
        self.runner = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        connected = self.services.channels.connect_credentials(self.account, "linkedin", CredentialsInput("a@b.c", "p"))
        self.provider = connected.channel.provider_account_id or ""
        page = self.services.linkedin.search(self.account, PeopleQuery(keywords="a", limit=MEMBERS))
        self.members = [p.provider_id for p in page.items]
        steps = (SequenceStep(STEPS[0]), SequenceStep(STEPS[1], waits[0]), SequenceStep(STEPS[2], waits[1]))
        launched = self.services.linkedin.launch(
            self.account, LaunchInput("Seq", "sequence", tuple(self.members), sequence_messages=steps)
        )
        self.campaign = launched.campaign.id
        self.replied_at: dict[str, Any] = {}
        self.seen: dict[int, str] = {}

    # -- the owner, the worker, the members and the network -------------------------------------

    def _try(self, operation: str) -> None:
        status = self.services.campaigns.get(self.account, self.campaign).status
        try:
            getattr(self.services.campaigns, operation)(self.account, self.campaign)
        except ValidationFailed:
            assert status not in SOURCES[operation]

    @rule(operation=st.sampled_from(["pause", "resume", "cancel"]))
    def owner(self, operation: str) -> None:
        self._try(operation)

    @rule(hours=st.sampled_from([0, 1, 24, 49]))
    def run_job(self, hours: int) -> None:
        self.clock.advance(hours=hours, seconds=LEASE + 1)
        self.runner.run_once()

    @rule(member=st.integers(0, MEMBERS - 1))
    def member_writes_back(self, member: int) -> None:
        handle = self.members[member]
        self.replied_at.setdefault(handle, self.clock.now())
        self.sandbox.inject_message(self.provider, handle, "Thanks")

    @rule()
    def crash_the_next_send(self) -> None:
        self.gateway.crash_next = True

    @rule(down=st.booleans())
    def provider(self, down: bool) -> None:
        if down:
            self.sandbox.outage()
        else:
            self.sandbox.restore()

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def each_step_at_most_once_and_in_order(self) -> None:
        by_member: dict[str, list[str]] = {}
        for sent in self.sandbox.account(self.provider).sent:
            by_member.setdefault(sent.recipient, []).append(sent.text)
        for texts in by_member.values():
            assert texts == list(STEPS[: len(texts)]), texts

    @invariant()
    def nothing_after_a_reply(self) -> None:
        for sent in self.sandbox.account(self.provider).sent:
            replied = self.replied_at.get(sent.recipient)
            assert replied is None or sent.sent_at <= replied, (sent.recipient, sent.text)

    @invariant()
    def follow_ups_only_move_forward(self) -> None:
        with self.uow.workspace(self.account, readonly=True) as unit:
            follow_ups = unit.linkedin_campaigns.of_campaign(self.campaign)
        for follow_up in follow_ups:
            before = self.seen.get(follow_up.id)
            if before is not None and before != follow_up.status:
                released = (before, follow_up.status) == ("sending", "pending")  # an outage: nothing was sent
                assert released or RANK[follow_up.status] > RANK[before], (before, follow_up.status)
            self.seen[follow_up.id] = follow_up.status

    @invariant()
    def counters_are_a_recount(self) -> None:
        stored = self.services.campaigns.get(self.account, self.campaign).counters
        with self.uow.workspace(self.account, readonly=True) as unit:
            assert stored == Counters.of(unit.campaign_recipients.statuses(self.campaign))

    @invariant()
    def an_ended_campaign_has_nothing_pending(self) -> None:
        campaign = self.services.campaigns.get(self.account, self.campaign)
        if campaign.status in ("completed", "failed", "cancelled"):
            with self.uow.workspace(self.account, readonly=True) as unit:
                pending = unit.linkedin_campaigns.statuses(self.campaign).get("pending", 0)
            assert (pending == 0 and campaign.counters.pending == 0) or campaign.status != "completed"
            assert pending == 0


SequenceMachine.TestCase.settings = settings(max_examples=50, stateful_step_count=40, deadline=None)
TestSequenceMachine = SequenceMachine.TestCase
