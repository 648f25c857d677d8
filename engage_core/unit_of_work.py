"""The units of work: one transaction each, handing out the repositories of every area.

This is the one place that names every area's repositories; adapters build theirs from their
own registries (`engage_sql.areas`, `engage_core.testing`)."""

from __future__ import annotations

from collections.abc import Hashable, MutableMapping
from types import TracebackType
from typing import Any, Protocol, Self

from engage_core.accounts.ports import AccountRepository
from engage_core.bookings.ports import (
    BookingRepository,
    BookingTypeRepository,
    ResourceRepository,
    WorkingHoursRepository,
)
from engage_core.commerce.ports import OrderRepository, ProductRepository
from engage_core.contacts.ports import (
    ContactListRepository,
    ContactRepository,
    NoteRepository,
    SegmentRepository,
    TagRepository,
)
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.ports import KnowledgeBaseRepository
from engage_core.messaging.ports import (
    ChannelAccountRepository,
    ChannelDirectory,
    ContactHandleRepository,
    MessageRepository,
)
from engage_core.partners.ports import (
    ClientRepository,
    ImpersonationRepository,
    PartnerRepository,
    PartnerWebhookRepository,
)
from engage_core.plans.ports import PlanRepository, UsageRepository
from engage_core.support.ports import DepartmentRepository, TicketRepository
from engage_core.team.ports import TeamMemberRepository
from engage_core.webhooks.ports import WebhookRepository


class WorkspaceUnitOfWork(Protocol):
    """One transaction inside one account. Leaving the block without `commit()` rolls back."""

    @property
    def account_id(self) -> int: ...

    @property
    def contacts(self) -> ContactRepository: ...

    @property
    def tags(self) -> TagRepository: ...

    @property
    def lists(self) -> ContactListRepository: ...

    @property
    def segments(self) -> SegmentRepository: ...

    @property
    def notes(self) -> NoteRepository: ...

    @property
    def webhooks(self) -> WebhookRepository: ...

    @property
    def knowledge_base(self) -> KnowledgeBaseRepository: ...

    @property
    def products(self) -> ProductRepository: ...

    @property
    def orders(self) -> OrderRepository: ...

    @property
    def channels(self) -> ChannelAccountRepository: ...

    @property
    def messages(self) -> MessageRepository: ...

    @property
    def handles(self) -> ContactHandleRepository: ...

    @property
    def departments(self) -> DepartmentRepository: ...

    @property
    def tickets(self) -> TicketRepository: ...

    @property
    def team(self) -> TeamMemberRepository: ...

    @property
    def bookings(self) -> BookingRepository: ...

    @property
    def booking_types(self) -> BookingTypeRepository: ...

    @property
    def resources(self) -> ResourceRepository: ...

    @property
    def working_hours(self) -> WorkingHoursRepository: ...

    @property
    def usage(self) -> UsageRepository: ...

    def emit(self, event: DomainEvent) -> None:
        """Record an event. `commit()` writes it to the outbox and queues one delivery attempt for
        every active subscription that wants it, in the same transaction as the change."""

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class AdminUnitOfWork(Protocol):
    """One transaction across accounts, for administration and authentication."""

    @property
    def accounts(self) -> AccountRepository: ...

    @property
    def channel_directory(self) -> ChannelDirectory: ...

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class UnitOfWorkFactory(Protocol):
    """Opens units of work. `readonly` lets the adapter skip write locks for pure reads."""

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork: ...

    def admin(self, *, readonly: bool = False) -> AdminUnitOfWork: ...

    def partners(self, *, readonly: bool = False) -> PartnerUnitOfWork: ...

    def transaction_memo(self) -> MutableMapping[Hashable, Any] | None:
        """What the transaction this thread is in the middle of (a batch of units of work sharing
        one transaction) has memoised, to reuse until it ends or writes any of it; None outside
        such a transaction. The adapter empties it when the transaction ends, whenever a unit of
        work of the batch writes what may be memoised (accounts, partner clients, plans, webhook
        subscriptions) and whenever one is rolled back to its savepoint."""


class PartnerUnitOfWork(Protocol):
    """One transaction across partners, their clients, plans and accounts. Leaving the block
    without `commit()` rolls back."""

    @property
    def partners(self) -> PartnerRepository: ...

    @property
    def clients(self) -> ClientRepository: ...

    @property
    def plans(self) -> PlanRepository: ...

    @property
    def accounts(self) -> AccountRepository: ...

    @property
    def impersonations(self) -> ImpersonationRepository: ...

    @property
    def partner_webhooks(self) -> PartnerWebhookRepository: ...

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        """Record a partner-level event. `commit()` writes it to the outbox and queues one delivery
        attempt (kind `partner`, owner the partner) for each of the partner's active subscriptions
        that wants it, in the same transaction as the change."""

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...
