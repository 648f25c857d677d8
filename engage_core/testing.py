"""In-memory fakes of every port, shipped so that users can test code built on engage.

`InMemoryStore` holds the rows of every account; `InMemoryUnitOfWorkFactory` opens units of work
over it with the same scoping and transaction semantics as the SQL adapter: changes are applied
to a private copy and become visible only on `commit()`, and a workspace's events are queued for
its webhook subscriptions in the same commit (the outbox). `FakeClock` is a clock tests can move;
`FakeStorePlatform` is a connected store that accepts status changes until told to `reject()`;
`InMemoryIdempotencyStore` keeps the HTTP API's idempotency keys; `InMemoryBlobStore` keeps uploaded
files and `FakeMediaProber` measures media uploads without a decoder.

Each area keeps its fakes in `engage_core.<area>.fakes`; `AREAS` below is where they are
registered. Contract tests (`tests/contract`) run every port family against these fakes and the
SQL adapter alike, so the two cannot drift apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from types import TracebackType
from typing import Any, Self

from engage_core.accounts import fakes as accounts
from engage_core.agents import fakes as agents
from engage_core.bookings import fakes as bookings
from engage_core.campaigns import fakes as campaigns
from engage_core.commerce import fakes as commerce
from engage_core.commerce.fakes import FakeStorePlatform, StorePush
from engage_core.contacts import fakes as contacts
from engage_core.jobs import fakes as jobs
from engage_core.jobs.fakes import InMemoryJobQueue
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.fakes import FakeClock, FakeMailer, InMemoryBlobStore
from engage_core.kernel.idempotency import InMemoryIdempotencyStore
from engage_core.kernel.memory import FakeArea, MemoryStore, State
from engage_core.knowledge import fakes as knowledge
from engage_core.knowledge import search_fakes as knowledge_search
from engage_core.knowledge import website_fakes as knowledge_websites
from engage_core.linkedin import fakes as linkedin
from engage_core.media import fakes as media
from engage_core.media.fakes import FakeMediaProber
from engage_core.messaging import fakes as messaging
from engage_core.partners import fakes as partners
from engage_core.partners.fakes import PartnerAttempt, PartnersTables
from engage_core.plans import fakes as plans
from engage_core.support import fakes as support
from engage_core.team import fakes as team
from engage_core.team.fakes import FakePasswordHasher
from engage_core.unit_of_work import AdminUnitOfWork, PartnerUnitOfWork, WorkspaceUnitOfWork
from engage_core.voice import fakes as voice
from engage_core.webchat import fakes as webchat
from engage_core.webhooks import fakes as webhooks
from engage_core.webhooks.fakes import (
    AllowAllTargets,
    FakeCipher,
    FakeSender,
    InMemoryDeliveryQueue,
    RecordedEvent,
    SentRequest,
    WebhooksTables,
)

AREAS: tuple[FakeArea, ...] = (
    accounts.AREA,
    contacts.AREA,
    messaging.AREA,
    bookings.AREA,
    commerce.AREA,
    knowledge.AREA,
    knowledge_search.AREA,
    knowledge_websites.AREA,
    campaigns.AREA,
    linkedin.AREA,
    media.AREA,
    voice.AREA,
    support.AREA,
    team.AREA,
    agents.AREA,
    webhooks.AREA,
    plans.AREA,
    partners.AREA,
    jobs.AREA,
    webchat.AREA,
)
"""Every area's fakes: its tables and the repositories it hands to each kind of unit of work."""


class InMemoryStore(MemoryStore):
    """The rows of every area and every account, committed."""

    def __init__(self, areas: Iterable[FakeArea] = AREAS) -> None:
        self.areas = tuple(areas)
        super().__init__(area.tables for area in self.areas)

    def events(self, account_id: int | None = None) -> list[DomainEvent]:
        """Events committed to the outbox, oldest first."""
        recorded = self.state.of(WebhooksTables).events
        return [r.event for r in recorded if account_id is None or r.account_id == account_id]


class _InMemoryUnitOfWork:
    """Works on a copy of the state; `commit()` swaps it in. Holds the store lock throughout,
    which makes every transaction serialisable (like SQLite's single writer)."""

    KIND = ""
    """Which repositories of each area it hands out: `workspace`, `admin` or `partners`."""

    def __init__(self, store: InMemoryStore, account_id: int = 0) -> None:
        self.store = store
        self.account_id = account_id
        self._state: State | None = None

    def __enter__(self) -> Self:
        self.store.lock.acquire()
        self._open(self.store.state.copy())
        return self

    def _open(self, state: State) -> None:
        self._state = state
        for area in self.store.areas:
            for name, make in getattr(area, self.KIND).items():
                setattr(self, name, make(self.store, state, self.account_id))

    def _commit_state(self) -> State:
        assert self._state is not None, "the unit of work is not open: use it in a `with` block"
        self.store.state = self._state
        self._state = self._state.copy()
        return self.store.state

    def __getattr__(self, name: str) -> Any:
        # Reached only for attributes not set: a repository asked for outside the `with` block.
        raise AttributeError(f"{type(self).__name__!r} has no open repository {name!r}: use it in a `with` block")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._state = None
        self.store.lock.release()


class InMemoryWorkspaceUnitOfWork(_InMemoryUnitOfWork):
    """:class:`.WorkspaceUnitOfWork` over an :class:`InMemoryStore`: one account's repositories, with the
    webhook outbox written on commit."""

    KIND = "workspace"

    def __enter__(self) -> Self:
        self._pending: list[DomainEvent] = []
        return super().__enter__()

    def emit(self, event: DomainEvent) -> None:
        """Hold `event` until :meth:`commit` (:meth:`.WorkspaceUnitOfWork.emit`)."""
        self._pending.append(event)

    def commit(self) -> None:
        """Record the held events, queue one delivery attempt per active subscription that wants each, and
        make the state the store's."""
        assert self._state is not None, "the unit of work is not open: use it in a `with` block"
        self._state.of(WebhooksTables).events.extend(RecordedEvent(self.account_id, e) for e in self._pending)
        repository = webhooks.InMemoryWebhookRepository(self.store, self._state, self.account_id)
        for event in self._pending:  # the transactional outbox: deliveries commit with the change
            for subscription in repository.active():
                if subscription.wants(event.name):
                    repository.enqueue(
                        subscription.id,
                        event.name,
                        event.payload,
                        str(uuid.uuid4()),
                        1,
                        event.occurred_at,
                        event.occurred_at,
                    )
        self._pending = []
        self._commit_state()


class InMemoryAdminUnitOfWork(_InMemoryUnitOfWork):
    """:class:`.AdminUnitOfWork` over an :class:`InMemoryStore`: the repositories across accounts."""

    KIND = "admin"

    def commit(self) -> None:
        """Make the state the store's."""
        self._commit_state()


class InMemoryPartnerUnitOfWork(_InMemoryUnitOfWork):
    """:class:`.PartnerUnitOfWork` over an :class:`InMemoryStore`, with the partner outbox written on
    commit."""

    KIND = "partners"

    def __enter__(self) -> Self:
        self._pending: list[tuple[int, DomainEvent]] = []
        return super().__enter__()

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        """Hold `event` of partner `partner_id` until :meth:`commit` (:meth:`.PartnerUnitOfWork.emit`)."""
        self._pending.append((partner_id, event))

    def commit(self) -> None:
        """Record the held partner events, queue one attempt per subscription of the partner that wants
        each, and make the state the store's."""
        assert self._state is not None, "the unit of work is not open: use it in a `with` block"
        tables = self._state.of(PartnersTables)
        subscriptions = partners.InMemoryPartnerWebhookRepository(self.store, self._state)
        for partner_id, event in self._pending:  # the outbox: deliveries commit with the change
            tables.partner_events.append((partner_id, event))
            for subscription in subscriptions.list(partner_id):
                if subscription.wants(event.name):
                    tables.partner_attempts.append(
                        PartnerAttempt(
                            partner_id, subscription.id, str(uuid.uuid4()), event.name, event.payload, event.occurred_at
                        )
                    )
        self._pending = []
        self._commit_state()


class InMemoryUnitOfWorkFactory:
    """`engage_core.unit_of_work.UnitOfWorkFactory` over an `InMemoryStore` (a new one by default)."""

    def __init__(self, store: InMemoryStore | None = None) -> None:
        self.store = store or InMemoryStore()

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork:
        """An :class:`InMemoryWorkspaceUnitOfWork` of account `account_id` (`readonly` changes nothing
        here)."""
        return InMemoryWorkspaceUnitOfWork(self.store, account_id)

    def admin(self, *, readonly: bool = False) -> AdminUnitOfWork:
        """An :class:`InMemoryAdminUnitOfWork` (`readonly` changes nothing here)."""
        return InMemoryAdminUnitOfWork(self.store)

    def partners(self, *, readonly: bool = False) -> PartnerUnitOfWork:
        """An :class:`InMemoryPartnerUnitOfWork` (`readonly` changes nothing here)."""
        return InMemoryPartnerUnitOfWork(self.store)


__all__ = [
    "AREAS",
    "AllowAllTargets",
    "FakeCipher",
    "FakeClock",
    "FakeMailer",
    "FakeMediaProber",
    "FakePasswordHasher",
    "FakeSender",
    "FakeStorePlatform",
    "InMemoryBlobStore",
    "InMemoryDeliveryQueue",
    "InMemoryIdempotencyStore",
    "InMemoryJobQueue",
    "InMemoryStore",
    "InMemoryUnitOfWorkFactory",
    "SentRequest",
    "StorePush",
]
