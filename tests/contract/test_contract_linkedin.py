"""LinkedIn campaigns on every adapter: invitations sent once each, sequences whose follow-ups wait
their days and stop for a reply, crashes of the sender between the gateway call and the record,
pause and resume in the middle of a sequence, cancelling, and the repository's own rules."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from engage_core.campaigns.model import Counters
from engage_core.campaigns.service import SEND_JOB
from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobContext, JobRunner
from engage_core.kernel.pagination import PageRequest
from engage_core.linkedin.model import LinkedInPlan, SequenceStep
from engage_core.linkedin.service import Launched, LaunchInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.gateway import SentMessage
from engage_core.messaging.people import PeopleQuery
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakeMailer, FakePasswordHasher
from engage_core.unit_of_work import UnitOfWorkFactory

LEASE = 60.0


class Crash(Exception):
    """The sender's process dying right after the network accepted an invitation or a message."""


class CrashingGateway:
    """The sandbox, except that call number `crash_on` of invite or send (counting from 1) goes
    through and the sender then "dies" before it can record it."""

    def __init__(self, sandbox: SandboxGateway) -> None:
        self.sandbox = sandbox
        self.crash_on: int | None = None
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sandbox, name)

    def invite(self, provider_account_id: str, provider_id: str, note: str | None) -> SentMessage:
        return self._count(self.sandbox.invite(provider_account_id, provider_id, note))

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        return self._count(self.sandbox.send(provider_account_id, recipient, text))

    def _count(self, sent: SentMessage) -> SentMessage:
        self.calls += 1
        if self.calls == self.crash_on:
            raise Crash("killed between the gateway call and the record")
        return sent


@pytest.fixture
def gateway(sandbox: SandboxGateway) -> CrashingGateway:
    return CrashingGateway(sandbox)


@pytest.fixture
def services(uow: UnitOfWorkFactory, clock: FakeClock, sandbox: SandboxGateway, gateway: CrashingGateway) -> Services:
    built = Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        gateway=gateway,  # type: ignore[arg-type]
        hasher=FakePasswordHasher(),
        mailer=FakeMailer(),
        job_lease_seconds=LEASE,
        sleep=lambda seconds: clock.advance(seconds=seconds) and None,
    )
    sandbox.attach(built.inbox)
    return built


@pytest.fixture
def runner(services: Services, job_queue: JobQueue, clock: FakeClock) -> JobRunner:
    return JobRunner(job_queue, services.job_handlers(), clock)


@pytest.fixture
def linkedin(services: Services, account: int) -> str:
    outcome = services.channels.connect_credentials(account, "linkedin", CredentialsInput("ada@example.com", "pw"))
    return outcome.channel.provider_account_id or ""


def drain(runner: JobRunner, queue: JobQueue, clock: FakeClock, *, until: Callable[[], bool] | None = None) -> None:
    """Run due jobs, moving the clock to the next one deferred, until none is left (or `until` holds)."""
    for _ in range(500):
        if until is not None and until():
            return
        try:
            if runner.run_once():
                continue
        except Crash:
            continue
        backlog = queue.backlog(clock.now())
        if not any(count for _, count, _ in backlog):
            return
        due = min((at for _, count, at in backlog if count and at is not None), default=None)
        if due is not None and due > clock.now():
            clock.set(due)
        else:
            clock.advance(seconds=LEASE)
    raise AssertionError("the jobs did not settle")


def members(services: Services, account: int, n: int) -> tuple[str, ...]:
    page = services.linkedin.search(account, PeopleQuery(keywords="engineer", limit=n))
    return tuple(p.provider_id for p in page.items)


def launch(services: Services, account: int, ids: tuple[str, ...], *steps: SequenceStep) -> Launched:
    kind = "sequence" if steps else "invite"
    return services.linkedin.launch(account, LaunchInput("L", kind, ids, sequence_messages=steps))


def follow_ups(uow: UnitOfWorkFactory, account: int, campaign_id: int) -> dict[str, int]:
    with uow.workspace(account, readonly=True) as unit:
        return dict(unit.linkedin_campaigns.statuses(campaign_id))


def counters_true(services: Services, uow: UnitOfWorkFactory, account: int, campaign_id: int) -> Counters:
    stored = services.campaigns.get(account, campaign_id).counters
    with uow.workspace(account, readonly=True) as unit:
        assert stored == Counters.of(unit.campaign_recipients.statuses(campaign_id))
    return stored


def test_an_invite_campaign_invites_each_member_once_and_completes(
    services: Services,
    uow: UnitOfWorkFactory,
    sandbox: SandboxGateway,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """Four members: four invitations, the counters true, the campaign completed."""
    ids = members(services, account, 4)
    launched = launch(services, account, ids)
    drain(runner, job_queue, clock)

    assert sorted(sandbox.account(linkedin).invited) == sorted(ids)
    assert counters_true(services, uow, account, launched.campaign.id).sent == 4
    assert services.campaigns.get(account, launched.campaign.id).status == "completed"


def test_a_crash_after_an_invitation_went_never_invites_again(
    services: Services,
    uow: UnitOfWorkFactory,
    sandbox: SandboxGateway,
    gateway: CrashingGateway,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """The second invitation's record is lost: it fails `unknown_outcome`, the rest go, none twice."""
    gateway.crash_on = 2
    ids = members(services, account, 3)
    launched = launch(services, account, ids)
    drain(runner, job_queue, clock)

    counters = counters_true(services, uow, account, launched.campaign.id)
    assert len(sandbox.account(linkedin).invited) == 3
    assert (counters.sent, counters.failed) == (2, 1)


def test_a_sequence_sends_every_step_in_order_after_its_wait(
    services: Services,
    uow: UnitOfWorkFactory,
    sandbox: SandboxGateway,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """Three steps, two members: six messages, the second step two days after the first, all follow-ups sent."""
    ids = members(services, account, 2)
    started = clock.now()
    launched = launch(services, account, ids, SequenceStep("One"), SequenceStep("Two", 2), SequenceStep("Three", 1))
    drain(runner, job_queue, clock)

    sent = sandbox.account(linkedin).sent
    second = [s.sent_at for s in sent if s.text == "Two"]
    assert [s.text for s in sent] == ["One", "One", "Two", "Two", "Three", "Three"]
    assert min(second) >= started + timedelta(days=2)
    assert follow_ups(uow, account, launched.campaign.id) == {"sent": 4}
    assert services.campaigns.get(account, launched.campaign.id).status == "completed"


def test_a_reply_stops_the_sequence_for_that_member_only(
    services: Services,
    uow: UnitOfWorkFactory,
    sandbox: SandboxGateway,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """The member who wrote after step one gets nothing more (`replied`); the other gets step two."""
    ids = members(services, account, 2)
    launched = launch(services, account, ids, SequenceStep("One"), SequenceStep("Two", 1))
    campaign_id = launched.campaign.id
    drain(runner, job_queue, clock, until=lambda: follow_ups(uow, account, campaign_id).get("pending") == 2)
    sandbox.inject_message(linkedin, ids[1], "No thanks")
    drain(runner, job_queue, clock)

    with uow.workspace(account, readonly=True) as unit:
        skipped = [f for f in unit.linkedin_campaigns.of_campaign(campaign_id) if f.status == "skipped"]
    assert [s.recipient for s in sandbox.account(linkedin).sent if s.text == "Two"] == [ids[0]]
    assert [f.reason for f in skipped] == ["replied"]


def test_pausing_mid_sequence_holds_the_follow_ups_and_resuming_sends_them_once(
    services: Services,
    uow: UnitOfWorkFactory,
    sandbox: SandboxGateway,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """Paused with both follow-ups due: nothing goes; resumed: each goes once."""
    ids = members(services, account, 2)
    launched = launch(services, account, ids, SequenceStep("One"), SequenceStep("Two", 1))
    campaign_id = launched.campaign.id
    drain(runner, job_queue, clock, until=lambda: follow_ups(uow, account, campaign_id).get("pending") == 2)
    services.campaigns.pause(account, campaign_id)
    clock.advance(days=2)
    drain(runner, job_queue, clock)
    held = len(sandbox.account(linkedin).sent)

    services.campaigns.resume(account, campaign_id)
    drain(runner, job_queue, clock)

    assert held == 2
    assert [s.text for s in sandbox.account(linkedin).sent].count("Two") == 2
    assert follow_ups(uow, account, campaign_id) == {"sent": 2}


class StopsAfter(threading.Event):
    """Reads as set from its `calls + 1`-th look on: a worker asked to stop in the middle of a run."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.calls = calls

    def is_set(self) -> bool:
        self.calls -= 1
        return self.calls < 0


def test_a_follow_up_claimed_by_a_stopping_worker_goes_later_once(
    services: Services,
    uow: UnitOfWorkFactory,
    sandbox: SandboxGateway,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """A worker told to stop between a follow-up's claim and its send gives it back: the next run
    sends it once, with the one message stored for it, never `unknown_outcome`."""
    [member] = members(services, account, 1)
    launched = launch(services, account, (member,), SequenceStep("One"), SequenceStep("Two", 1))
    campaign_id = launched.campaign.id
    drain(runner, job_queue, clock, until=lambda: follow_ups(uow, account, campaign_id) == {"pending": 1})
    clock.advance(days=2)
    send = services.job_handlers()[SEND_JOB]
    stopping = JobRunner(job_queue, {SEND_JOB: lambda context: send(JobContext(context.claim, StopsAfter(1)))}, clock)

    stopping.run_once()
    given_back = follow_ups(uow, account, campaign_id)
    drain(runner, job_queue, clock)

    assert given_back == {"pending": 1}
    assert [s.text for s in sandbox.account(linkedin).sent] == ["One", "Two"]
    assert follow_ups(uow, account, campaign_id) == {"sent": 1}
    with uow.workspace(account, readonly=True) as unit:
        [follow_up] = unit.linkedin_campaigns.of_campaign(campaign_id)
        stored = unit.messages.for_contact(follow_up.contact_id, None, PageRequest()).items
    assert sorted((m.content, m.status) for m in stored) == [("One", "sent"), ("Two", "sent")]


def test_cancelling_mid_sequence_skips_the_follow_ups(
    services: Services,
    uow: UnitOfWorkFactory,
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    account: int,
    linkedin: str,
) -> None:
    """Cancelled after step one: every pending follow-up is `skipped`, and none is sent later."""
    ids = members(services, account, 2)
    launched = launch(services, account, ids, SequenceStep("One"), SequenceStep("Two", 1))
    campaign_id = launched.campaign.id
    drain(runner, job_queue, clock, until=lambda: follow_ups(uow, account, campaign_id).get("pending") == 2)

    services.campaigns.cancel(account, campaign_id)
    clock.advance(days=2)
    drain(runner, job_queue, clock)

    assert follow_ups(uow, account, campaign_id) == {"skipped": 2}


def test_a_step_is_scheduled_once_per_recipient(
    services: Services, uow: UnitOfWorkFactory, clock: FakeClock, account: int, linkedin: str
) -> None:
    """Scheduling the same recipient's step again adds nothing."""
    launched = launch(services, account, members(services, account, 1), SequenceStep("One"), SequenceStep("Two", 1))
    now = clock.now()
    with uow.workspace(account) as unit:
        first = unit.linkedin_campaigns.schedule(launched.campaign.id, 1, 1, 1, now, now)
        again = unit.linkedin_campaigns.schedule(launched.campaign.id, 1, 1, 1, now, now)
        unit.commit()

    assert (first, again) == (True, False)


def test_the_plan_is_read_back_and_goes_with_its_campaign(
    services: Services, uow: UnitOfWorkFactory, account: int, linkedin: str
) -> None:
    """The stored plan equals the launched one; another account does not see it."""
    launched = launch(services, account, members(services, account, 1), SequenceStep("One"), SequenceStep("Two", 3))
    other = services.accounts.create("Other").account.id
    with uow.workspace(account, readonly=True) as unit:
        mine = unit.linkedin_campaigns.plan_of(launched.campaign.id)
    with uow.workspace(other, readonly=True) as unit:
        theirs = unit.linkedin_campaigns.plan_of(launched.campaign.id)

    assert mine == LinkedInPlan("sequence", None, (SequenceStep("One", 0), SequenceStep("Two", 3)))
    assert theirs is None


def test_the_inbox_stats_count_linkedin_conversations_and_unread_messages(
    services: Services, uow: UnitOfWorkFactory, sandbox: SandboxGateway, account: int, linkedin: str
) -> None:
    """Two members write, one twice: two conversations, three unread messages."""
    sandbox.inject_message(linkedin, "m-1", "Hi")
    sandbox.inject_message(linkedin, "m-1", "Hello?")
    sandbox.inject_message(linkedin, "m-2", "Hey")

    with uow.workspace(account, readonly=True) as unit:
        assert unit.linkedin_campaigns.inbox_stats() == (2, 3)
