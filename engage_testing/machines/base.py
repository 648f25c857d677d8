"""What every machine of the kit stands on: the storage it runs over (a :class:`Backend`), made by a
hook a subclass overrides, and a check that a call is refused."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Protocol

from hypothesis.stateful import RuleBasedStateMachine

from engage_core.jobs.ports import JobQueue
from engage_core.kernel.events import DomainEvent
from engage_core.partners.fakes import PartnersTables
from engage_core.testing import InMemoryDeliveryQueue, InMemoryJobQueue, InMemoryUnitOfWorkFactory
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webhooks.ports import DeliveryQueue

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""Where the fake clock of every machine starts."""


class Backend(Protocol):
    """The storage a machine drives the services over: its units of work, and readers of the
    outboxes (each account's events, each partner's), and the queues its workers take from."""

    @property
    def uow(self) -> UnitOfWorkFactory:
        """Units of work over the storage."""
        ...

    def events(self, account_id: int) -> Sequence[DomainEvent]:
        """The events account `account_id` committed, oldest first."""
        ...

    def partner_events(self, partner_id: int) -> Sequence[DomainEvent]:
        """The `partner.client.*` events of partner `partner_id`, oldest first."""
        ...

    def delivery_queue(self) -> DeliveryQueue:
        """The webhook delivery log as a worker's queue."""
        ...

    def job_queue(self) -> JobQueue:
        """The background jobs as a worker's queue."""
        ...


class InMemoryBackend:
    """The in-memory fakes of :mod:`engage_core.testing`: a new, empty store."""

    def __init__(self) -> None:
        self.uow = InMemoryUnitOfWorkFactory()

    def events(self, account_id: int) -> Sequence[DomainEvent]:
        """The events committed to the fake outbox."""
        return self.uow.store.events(account_id)

    def partner_events(self, partner_id: int) -> Sequence[DomainEvent]:
        """The events committed to the fake partner outbox."""
        return [e for owner, e in self.uow.store.state.of(PartnersTables).partner_events if owner == partner_id]

    def delivery_queue(self) -> DeliveryQueue:
        """An :class:`~engage_core.webhooks.fakes.InMemoryDeliveryQueue` over the store."""
        return InMemoryDeliveryQueue(self.uow.store)

    def job_queue(self) -> JobQueue:
        """An :class:`~engage_core.jobs.fakes.InMemoryJobQueue` over the store."""
        return InMemoryJobQueue(self.uow.store)


class EngageMachine(RuleBasedStateMachine):
    """A rule state machine over engage's services. :meth:`make_backend` is the factory hook: the
    in-memory fakes by default; override it to run the same rules and invariants over a real
    database (each machine works in an account of its own, so one database can serve every run)."""

    def make_backend(self) -> Backend:
        """The storage of one run of the machine."""
        return InMemoryBackend()


@contextmanager
def refused(*errors: type[Exception]) -> Iterator[None]:
    """Asserts that the block raises one of `errors` (what the model says the service refuses)."""
    try:
        yield
    except errors:
        return
    raise AssertionError(f"expected {' or '.join(e.__name__ for e in errors)}, but the call was accepted")
