"""Fixtures of the LinkedIn tests: services over the fakes with the sandbox gateway, a connected
LinkedIn account, and a worker that runs the campaign jobs until nothing is due."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.jobs.runner import JobRunner
from engage_core.kernel.fakes import FakeClock
from engage_core.messaging.channel_service import CredentialsInput
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
def linkedin(services: Services, account_id: int) -> str:
    """The provider account id of the workspace's connected LinkedIn account."""
    outcome = services.channels.connect_credentials(account_id, "linkedin", CredentialsInput("ada@example.com", "pw"))
    return outcome.channel.provider_account_id or ""  # type: ignore[union-attr]


@pytest.fixture
def drain(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, services: Services) -> Callable[[], None]:
    """Run the due jobs until none is left due now."""
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)

    def run() -> None:
        while runner.run_once():
            pass

    return run
