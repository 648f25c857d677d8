"""Campaigns on every adapter: the snapshot of the audience, the send job through the sandbox
gateway, pause and resume, receipts, crashes of the sender, cancelling, quotas and the channel
guard. Every test checks the counters against the recipients as stored."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from engage_core.campaigns.model import Campaign, Counters, RecipientFilter, RecipientView
from engage_core.campaigns.quotas import Quotas
from engage_core.campaigns.service import SEND_JOB_ATTEMPTS, CampaignInput
from engage_core.contacts.model import Contact
from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.gateway import SentMessage
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    FakeStorePlatform,
)
from engage_core.unit_of_work import UnitOfWorkFactory

ALL = PageRequest(per_page=100)
LEASE = 60.0


class Crash(Exception):
    """The sender's process dying right after the gateway accepted a message."""


class CrashingGateway:
    """The sandbox, except that the send number `crash_on` (counting from 1) is accepted by the
    network and then the sender "dies" before it can record it."""

    def __init__(self, sandbox: SandboxGateway) -> None:
        self.sandbox = sandbox
        self.crash_on: int | None = None
        self.crash_always = False
        self.sends = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sandbox, name)

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        sent = self.sandbox.send(provider_account_id, recipient, text)
        self.sends += 1
        if self.sends == self.crash_on or self.crash_always:
            raise Crash("killed between the gateway call and the record")
        return sent


@pytest.fixture
def gateway(sandbox: SandboxGateway) -> CrashingGateway:
    return CrashingGateway(sandbox)


@pytest.fixture
def quotas() -> Quotas:
    return Quotas()


@pytest.fixture
def services(
    uow: UnitOfWorkFactory, clock: FakeClock, sandbox: SandboxGateway, gateway: CrashingGateway, quotas: Quotas
) -> Services:
    """Every use case, the campaign sender waiting on the fake clock and sending through `gateway`."""
    built = Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        store=FakeStorePlatform(),
        gateway=gateway,  # type: ignore[arg-type]
        hasher=FakePasswordHasher(),
        mailer=FakeMailer(),
        campaign_quotas=quotas,
        job_lease_seconds=LEASE,
        sleep=lambda seconds: clock.advance(seconds=seconds) and None,
    )
    sandbox.attach(built.inbox)
    return built


@pytest.fixture
def runner(services: Services, job_queue: JobQueue, clock: FakeClock) -> JobRunner:
    return JobRunner(job_queue, services.job_handlers(), clock)


@pytest.fixture
def provider(services: Services, sandbox: SandboxGateway, account: int) -> str:
    """The account's WhatsApp channel, connected: its provider account id."""
    started = services.channels.connect_qr(account, "whatsapp")
    pid = started.channel.provider_account_id or ""
    sandbox.scan(pid)
    return pid


def drain(runner: JobRunner, queue: JobQueue, clock: FakeClock, *, until: Callable[[], bool] | None = None) -> None:
    """Run due jobs, moving the clock to the next one deferred, until no job is left unfinished
    (or `until` holds)."""
    for _ in range(500):
        if until is not None and until():
            return
        if runner.run_once():
            continue
        backlog = queue.backlog(clock.now())
        if not any(count for _, count, _ in backlog):
            assert until is None, "the jobs ended before the condition held"
            return
        due = min((at for _, count, at in backlog if count and at is not None), default=None)
        if due is not None and due > clock.now():
            clock.set(due)
        else:
            clock.advance(seconds=LEASE)
    raise AssertionError("the jobs did not settle")


def recipients(services: Services, account: int, campaign_id: int, **filters: Any) -> list[RecipientView]:
    return list(services.campaigns.recipients(account, campaign_id, RecipientFilter(**filters), ALL).items)


def assert_counters_true(services: Services, uow: UnitOfWorkFactory, account: int, campaign: Campaign) -> Counters:
    """The stored counters equal a recount of the recipients; the counters."""
    stored = services.campaigns.get(account, campaign.id).counters
    with uow.workspace(account, readonly=True) as unit:
        counted = Counters.of(unit.campaign_recipients.statuses(campaign.id))
    assert stored == counted
    return stored


@pytest.fixture
def audience(services: Services, account: int, make_contact: Callable[..., Contact]) -> dict[str, Any]:
    """Three list members, two segment members (one also in the list), a blacklisted one in the
    list, a Telegram contact in the segment and one named by id: five reachable, two skipped."""
    members = [make_contact(name=f"Listed {n}", company="Acme") for n in range(3)]
    blocked = make_contact(name="Blocked")
    services.contacts.toggle_blacklist(account, blocked.id)
    newsletter = services.lists.create(account, "Newsletter")
    for contact in [*members, blocked]:
        services.contacts.add_to_list(account, contact.id, newsletter.id)
    vip = services.segments.create(account, "VIP")
    segment_members = [members[0], make_contact(name="Segment only"), make_contact(name="Other", type="telegram")]
    for contact in segment_members:
        services.contacts.add_to_segment(account, contact.id, vip.id)
    named = make_contact(name="Named")
    return {"list": newsletter.id, "segment": vip.id, "named": named.id, "blocked": blocked.id}


def create(services: Services, account: int, audience: dict[str, Any], **fields: Any) -> Campaign:
    data: dict[str, Any] = {
        "name": "Spring sale",
        "channel": "whatsapp",
        "message": "Hi {{first_name|there}} from {{company|us}}",
        "contact_ids": (audience["named"],),
        "list_ids": (audience["list"],),
        "segment_ids": (audience["segment"],),
        "send_rate": 6,  # one every 10 s: each run of the job sends one message
    } | fields
    return services.campaigns.create(account, CampaignInput(**data))


def test_the_start_snapshots_each_contact_once_with_skip_reasons(
    services: Services, uow: UnitOfWorkFactory, account: int, provider: str, audience: dict[str, Any]
) -> None:
    """List, segment and ids resolve to seven recipients: five pending, blacklisted and other-channel skipped."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)

    rows = recipients(services, account, campaign.id)
    assert campaign.status == "running"
    assert len(rows) == len({r.contact_id for r in rows}) == 7
    assert sorted((r.status, r.reason) for r in rows if r.status == "skipped") == [
        ("skipped", "blacklisted"),
        ("skipped", "other_channel"),
    ]
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, skipped=2)


def test_the_send_job_sends_each_pending_recipient_once_and_completes(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Five messages go, one per reachable contact, filled in; the campaign completes with its events."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)

    drain(runner, job_queue, clock)

    sent = sandbox.account(provider).sent
    assert len(sent) == len({s.recipient for s in sent}) == 5
    assert "Hi Listed from Acme" in {s.text for s in sent}
    done = services.campaigns.get(account, campaign.id)
    assert done.status == "completed" and done.completed_at is not None
    assert assert_counters_true(services, uow, account, done) == Counters(total=7, sent=5, skipped=2)
    names = [e.name for e in outbox_events(account) if e.name.startswith(("campaign.", "message.sent"))]
    assert names == ["campaign.started", *["message.sent"] * 5, "campaign.completed"]
    sent_events = [e for e in outbox_events(account) if e.name == "message.sent"]
    assert {e.payload["campaign_id"] for e in sent_events} == {campaign.id}
    completed = outbox_events(account)[-1].payload
    assert (completed["status"], completed["total_contacts"], completed["success_count"]) == ("completed", 7, 5)


def test_a_paused_and_resumed_campaign_sends_nobody_twice(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
) -> None:
    """Paused after two sends, nothing more goes until resumed; then the rest, each contact once."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    drain(runner, job_queue, clock, until=lambda: len(sandbox.account(provider).sent) >= 2)

    services.campaigns.pause(account, campaign.id)
    paused_at = len(sandbox.account(provider).sent)
    drain(runner, job_queue, clock)
    assert len(sandbox.account(provider).sent) == paused_at
    assert services.campaigns.get(account, campaign.id).status == "paused"

    services.campaigns.resume(account, campaign.id)
    drain(runner, job_queue, clock)

    sent = sandbox.account(provider).sent
    assert len(sent) == len({s.recipient for s in sent}) == 5
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, sent=5, skipped=2)
    assert services.campaigns.get(account, campaign.id).status == "completed"


def test_receipts_move_recipients_forward_only(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
) -> None:
    """A read receipt moves a recipient to read; a delivered one after it changes nothing."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    drain(runner, job_queue, clock)
    first, second = [s.provider_message_id for s in sandbox.account(provider).sent[:2]]

    sandbox.inject_receipt(provider, first, "read")
    sandbox.inject_receipt(provider, first, "delivered")
    sandbox.inject_receipt(provider, second, "delivered")

    statuses = sorted(r.status for r in recipients(services, account, campaign.id) if r.status != "skipped")
    assert statuses == ["delivered", "read", "sent", "sent", "sent"]
    assert assert_counters_true(services, uow, account, campaign) == Counters(7, 5, 2, 1, 0, 2)


def test_a_crash_after_the_gateway_call_never_sends_twice(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
    gateway: CrashingGateway,
) -> None:
    """The recipient whose send was not recorded ends failed `unknown_outcome`; the others go once."""
    gateway.crash_on = 3
    campaign = services.campaigns.start(account, create(services, account, audience).id)

    drain(runner, job_queue, clock, until=lambda: services.campaigns.get(account, campaign.id).status == "completed")

    sent = sandbox.account(provider).sent
    assert len(sent) == len({s.recipient for s in sent}) == 5
    [unknown] = recipients(services, account, campaign.id, status="failed")
    assert unknown.reason == "unknown_outcome"
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, sent=4, failed=1, skipped=2)


def test_cancel_skips_the_pending_and_allows_delete(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
) -> None:
    """Cancelled after one send, the four left are skipped `cancelled`; then it can be deleted."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    drain(runner, job_queue, clock, until=lambda: len(sandbox.account(provider).sent) >= 1)

    cancelled = services.campaigns.cancel(account, campaign.id)
    drain(runner, job_queue, clock)

    assert cancelled.status == "cancelled"
    assert len(recipients(services, account, campaign.id, reason="cancelled")) == 4
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, sent=1, skipped=6)
    services.campaigns.delete(account, campaign.id)
    with pytest.raises(Exception, match="not found"):
        services.campaigns.get(account, campaign.id)


def test_a_daily_quota_defers_without_failing(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
    quotas: Quotas,
) -> None:
    """With a quota of four a day, four go today and the fifth the next day; none fails."""
    object.__setattr__(quotas, "daily", {"whatsapp": 4})
    campaign = services.campaigns.start(account, create(services, account, audience).id)

    drain(runner, job_queue, clock, until=lambda: len(sandbox.account(provider).sent) >= 4)
    runner.run_once()
    assert len(sandbox.account(provider).sent) == 4
    assert services.campaigns.get(account, campaign.id).counters.failed == 0

    clock.advance(days=1)
    drain(runner, job_queue, clock)
    assert len(sandbox.account(provider).sent) == 5
    assert services.campaigns.get(account, campaign.id).status == "completed"


def test_whatsapp_cannot_be_disconnected_while_a_campaign_is_running_or_paused(
    services: Services, account: int, provider: str, audience: dict[str, Any]
) -> None:
    """Disconnecting is a 422 while running and while paused, and allowed once cancelled."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    with pytest.raises(ValidationFailed):
        services.channels.disconnect(account, "whatsapp")
    services.campaigns.pause(account, campaign.id)
    with pytest.raises(ValidationFailed):
        services.channels.disconnect(account, "whatsapp")
    services.campaigns.cancel(account, campaign.id)

    services.channels.disconnect(account, "whatsapp")


def test_a_segment_by_rules_is_resolved_in_the_snapshot(
    services: Services, account: int, provider: str, make_contact: Callable[..., Contact]
) -> None:
    """A rule segment's members (here: tagged `vip`) are the recipients, evaluated at the start."""
    tagged = [make_contact(tags=["vip"]) for _ in range(3)]
    make_contact()
    segment = services.segments.create(
        account, "Tagged", conditions=({"field": "tag", "operator": "has", "value": "vip"},)
    )
    campaign = services.campaigns.create(
        account, CampaignInput("Rules", "whatsapp", "Hello", segment_ids=(segment.id,))
    )

    started = services.campaigns.start(account, campaign.id)

    assert sorted(r.contact_id for r in recipients(services, account, started.id)) == sorted(c.id for c in tagged)


def test_usage_counts_campaigns_their_sends_and_the_paused(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
) -> None:
    """The usage report counts every campaign, the campaign messages sent in the period, and the paused ones."""
    done = services.campaigns.start(account, create(services, account, audience).id)
    drain(runner, job_queue, clock)
    paused = services.campaigns.start(account, create(services, account, audience, name="Second").id)
    services.campaigns.pause(account, paused.id)
    create(services, account, audience, name="Draft")

    with uow.workspace(account, readonly=True) as unit:
        usage = unit.usage.report(done.created_at - timedelta(days=1), clock.now() + timedelta(days=1))

    assert (usage.campaigns_total, usage.campaigns_sent, usage.campaigns_paused) == (3, 5, 1)


def statuses(uow: UnitOfWorkFactory, account: int, campaign_id: int) -> dict[str, int]:
    with uow.workspace(account, readonly=True) as unit:
        return dict(unit.campaign_recipients.statuses(campaign_id))


def test_a_claim_takes_at_most_its_limit_lowest_ids_first(
    services: Services, uow: UnitOfWorkFactory, account: int, provider: str, audience: dict[str, Any], clock: FakeClock
) -> None:
    """Two claims of two take the four pending recipients of lowest id, each once, in order."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    pending = [r.id for r in recipients(services, account, campaign.id, status="pending")]

    with uow.workspace(account) as unit:
        first = unit.campaign_recipients.claim(campaign.id, 2, clock.now())
        second = unit.campaign_recipients.claim(campaign.id, 2, clock.now())
        unit.commit()

    assert [r.id for r in [*first, *second]] == pending[:4]
    assert {r.status for r in [*first, *second]} == {"sending"}
    assert all(r.handed_at is None for r in [*first, *second])


def test_a_claim_is_handed_to_the_gateway_once(
    services: Services, uow: UnitOfWorkFactory, account: int, provider: str, audience: dict[str, Any], clock: FakeClock
) -> None:
    """The first hand-off of a claim succeeds and counts an attempt; a second is refused."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    with uow.workspace(account) as unit:
        [claimed] = unit.campaign_recipients.claim(campaign.id, 1, clock.now())
        handed = [unit.campaign_recipients.hand(claimed.id, clock.now()) for _ in range(2)]
        stored = unit.campaign_recipients.get(claimed.id)
        unit.commit()

    assert handed == [True, False]
    assert stored is not None and stored.handed_at == clock.now() and stored.attempts == 1


def test_a_pause_gives_back_the_claims_not_yet_handed(
    services: Services, uow: UnitOfWorkFactory, account: int, provider: str, audience: dict[str, Any], clock: FakeClock
) -> None:
    """Of three claims, the two not handed go back to pending at the pause and can no longer be handed."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    with uow.workspace(account) as unit:
        claimed = unit.campaign_recipients.claim(campaign.id, 3, clock.now())
        unit.campaign_recipients.hand(claimed[0].id, clock.now())
        unit.commit()

    services.campaigns.pause(account, campaign.id)

    assert statuses(uow, account, campaign.id) == {"pending": 4, "sending": 1, "skipped": 2}
    with uow.workspace(account) as unit:
        assert not unit.campaign_recipients.hand(claimed[1].id, clock.now())


def test_a_cancel_skips_the_claims_not_yet_handed(
    services: Services, uow: UnitOfWorkFactory, account: int, provider: str, audience: dict[str, Any], clock: FakeClock
) -> None:
    """Claims not handed end skipped `cancelled` with the pending; the handed one stays in flight."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    with uow.workspace(account) as unit:
        claimed = unit.campaign_recipients.claim(campaign.id, 3, clock.now())
        unit.campaign_recipients.hand(claimed[0].id, clock.now())
        unit.commit()

    services.campaigns.cancel(account, campaign.id)

    assert statuses(uow, account, campaign.id) == {"sending": 1, "skipped": 6}
    assert {r.reason for r in recipients(services, account, campaign.id, status="skipped")} >= {"cancelled"}
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, skipped=6)


def test_a_fast_campaign_records_every_send_of_its_batches(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """At 1,000 a second the five sends share a batch: each is recorded sent with its message and event."""
    campaign = services.campaigns.start(account, create(services, account, audience, send_rate=60_000).id)

    drain(runner, job_queue, clock)

    sent = sandbox.account(provider).sent
    assert len(sent) == len({s.recipient for s in sent}) == 5
    rows = recipients(services, account, campaign.id, status="sent")
    assert len({r.message_id for r in rows}) == 5 and None not in {r.message_id for r in rows}
    assert len([e for e in outbox_events(account) if e.name == "message.sent"]) == 5
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, sent=5, skipped=2)


def test_a_crash_mid_batch_leaves_unknown_only_what_the_gateway_was_handed(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    sandbox: SandboxGateway,
    gateway: CrashingGateway,
) -> None:
    """A crash at the second send of a batch of five: those two end `unknown_outcome`, the three
    never handed go to the next run, and nobody gets the campaign twice."""
    gateway.crash_on = 2
    campaign = services.campaigns.start(account, create(services, account, audience, send_rate=60_000).id)

    drain(runner, job_queue, clock, until=lambda: services.campaigns.get(account, campaign.id).status == "completed")

    sent = sandbox.account(provider).sent
    assert len(sent) == len({s.recipient for s in sent}) == 5
    unknown = recipients(services, account, campaign.id, status="failed")
    assert {r.reason for r in unknown} == {"unknown_outcome"}
    assert {r.phone for r in unknown} == {s.recipient for s in sent[:2]}
    assert assert_counters_true(services, uow, account, campaign) == Counters(total=7, sent=3, failed=2, skipped=2)


def test_a_campaign_failed_by_its_last_run_leaves_nobody_in_flight(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    provider: str,
    audience: dict[str, Any],
    runner: JobRunner,
    job_queue: JobQueue,
    clock: FakeClock,
    gateway: CrashingGateway,
    make_contact: Callable[..., Contact],
) -> None:
    """When every run dies after a send, the campaign fails and the last run's hand-off ends
    `unknown_outcome` with the others: no recipient stays `sending`, the counters add up."""
    for n in range(SEND_JOB_ATTEMPTS):  # more recipients than the job has runs
        services.contacts.add_to_list(account, make_contact(name=f"More {n}").id, audience["list"])
    gateway.crash_always = True
    campaign = services.campaigns.start(account, create(services, account, audience, send_rate=60_000).id)

    drain(runner, job_queue, clock, until=lambda: services.campaigns.get(account, campaign.id).status == "failed")

    assert services.campaigns.get(account, campaign.id).error.startswith("Sending failed")
    assert statuses(uow, account, campaign.id).get("sending", 0) == 0
    assert {r.reason for r in recipients(services, account, campaign.id, status="failed")} == {"unknown_outcome"}
    counters = assert_counters_true(services, uow, account, campaign)
    assert counters.failed == gateway.sends and counters.failed + counters.skipped == counters.total


def test_mark_sent_moves_only_the_claims_still_in_flight(
    services: Services, uow: UnitOfWorkFactory, account: int, provider: str, audience: dict[str, Any], clock: FakeClock
) -> None:
    """Of two claims marked sent, the one a takeover already failed is left; the other moves with its message."""
    campaign = services.campaigns.start(account, create(services, account, audience).id)
    with uow.workspace(account) as unit:
        first, second = unit.campaign_recipients.claim(campaign.id, 2, clock.now())
        unit.campaign_recipients.move(first.id, "failed", clock.now(), reason="unknown_outcome")
        moved = unit.campaign_recipients.mark_sent(
            [(first.id, 901, clock.now()), (second.id, 902, clock.now())], clock.now()
        )
        stored = unit.campaign_recipients.get(second.id)
        unit.commit()

    assert list(moved) == [second.id]
    assert stored is not None and (stored.status, stored.message_id, stored.sent_at) == ("sent", 902, clock.now())
