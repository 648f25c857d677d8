"""The campaign service over the fakes: drafts, scheduling in the workspace's timezone, and the start's rules."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from engage_core.campaigns.service import CampaignInput, CampaignPatch
from engage_core.contacts.model import ContactInput
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.fakes import FakeClock
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import InMemoryJobQueue, InMemoryUnitOfWorkFactory


@pytest.fixture
def sandbox(clock: FakeClock) -> SandboxGateway:
    return SandboxGateway(clock)


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, sandbox: SandboxGateway) -> Services:
    built = Services.build(uow, clock, gateway=sandbox, sleep=lambda s: clock.advance(seconds=s) and None)
    sandbox.attach(built.inbox)
    return built


@pytest.fixture
def contact(services: Services, account_id: int) -> int:
    return services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone="+966501234567")).id


@pytest.fixture
def connect(services: Services, sandbox: SandboxGateway, account_id: int) -> Callable[[], str]:
    def run() -> str:
        pid = services.channels.connect_qr(account_id, "whatsapp").channel.provider_account_id or ""
        sandbox.scan(pid)
        return pid

    return run


def _input(contact: int, **fields: Any) -> CampaignInput:
    return CampaignInput("A", "whatsapp", "Hi", (contact,), **fields)


def test_starts_at_without_an_offset_is_read_in_the_workspace_timezone(
    services: Services, account_id: int, contact: int
) -> None:
    """09:00 in Riyadh (UTC+3) is stored as 06:00 UTC; with an offset it is taken as given."""
    services.booking_setup.set_timezone(account_id, "Asia/Riyadh")

    local = services.campaigns.create(
        account_id, CampaignInput("A", "whatsapp", "Hi", (contact,), starts_at="2026-03-01T09:00:00")
    )
    offset = services.campaigns.create(
        account_id, CampaignInput("B", "whatsapp", "Hi", (contact,), starts_at="2026-03-01T09:00:00+01:00")
    )

    assert local.starts_at == datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
    assert offset.starts_at == datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


def test_an_unreadable_starts_at_is_a_422(services: Services, account_id: int, contact: int) -> None:
    """Not ISO 8601: refused on `starts_at`."""
    with pytest.raises(ValidationFailed) as refused:
        services.campaigns.create(account_id, CampaignInput("A", "whatsapp", "Hi", (contact,), starts_at="tomorrow"))

    assert list(refused.value.errors) == ["starts_at"]


def test_every_problem_is_reported_at_once(services: Services, account_id: int) -> None:
    """A blank name, an unknown channel, an empty audience and a rate out of range, together."""
    with pytest.raises(ValidationFailed) as refused:
        services.campaigns.create(account_id, CampaignInput(" ", "fax", "Hi", send_rate=0))

    assert set(refused.value.errors) == {"name", "channel", "audience", "send_rate"}


def test_a_future_start_is_scheduled_and_snapshotted_when_it_comes(
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    account_id: int,
    contact: int,
    connect: Callable[[], str],
    sandbox: SandboxGateway,
) -> None:
    """Scheduled for tomorrow: no recipients yet; at the time, the job snapshots, runs and completes."""
    pid = connect()
    tomorrow = "2026-01-02T12:00:00Z"
    campaign = services.campaigns.create(
        account_id, CampaignInput("A", "whatsapp", "Hi", (contact,), starts_at=tomorrow)
    )

    scheduled = services.campaigns.start(account_id, campaign.id)
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)
    runner.run_once()
    assert (scheduled.status, services.campaigns.get(account_id, campaign.id).counters.total) == ("scheduled", 0)

    clock.set(datetime(2026, 1, 2, 12, 0, tzinfo=UTC))
    while runner.run_once():
        pass

    done = services.campaigns.get(account_id, campaign.id)
    assert (done.status, done.counters.sent, len(sandbox.account(pid).sent)) == ("completed", 1, 1)


def test_a_campaign_whose_channel_is_gone_fails_and_skips_the_rest(
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    account_id: int,
    contact: int,
    connect: Callable[[], str],
) -> None:
    """Telegram disconnected after the start: the job fails the campaign, its recipient skipped `campaign_failed`."""
    pid = services.channels.connect_qr(account_id, "telegram").channel.provider_account_id or ""
    services.dependencies.gateway.scan(pid)  # type: ignore[attr-defined]
    other = services.contacts.create(account_id, ContactInput("Tg", "telegram", phone="+966501234568")).id
    campaign = services.campaigns.create(account_id, CampaignInput("T", "telegram", "Hi", (other,)))
    services.campaigns.start(account_id, campaign.id)
    services.channels.disconnect(account_id, "telegram")

    JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock).run_once()

    failed = services.campaigns.get(account_id, campaign.id)
    assert (failed.status, failed.counters.skipped) == ("failed", 1)
    assert failed.error is not None and "telegram" in failed.error


def test_a_draft_is_edited_and_a_started_one_is_not(
    services: Services, account_id: int, contact: int, connect: Callable[[], str]
) -> None:
    """PUT changes a draft's fields; after the start it is a 422."""
    connect()
    campaign = services.campaigns.create(account_id, CampaignInput("A", "whatsapp", "Hi", (contact,)))

    edited = services.campaigns.update(account_id, campaign.id, CampaignPatch(message="Hello {{name}}", send_rate=30))
    services.campaigns.start(account_id, campaign.id)

    assert (edited.message, edited.send_rate) == ("Hello {{name}}", 30)
    with pytest.raises(ValidationFailed):
        services.campaigns.update(account_id, campaign.id, CampaignPatch(name="B"))
