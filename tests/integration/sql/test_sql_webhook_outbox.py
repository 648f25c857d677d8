"""The transactional outbox on SQL: committed events fanned out to the rows of `webhook_attempts`, on the
unit of work's connection, in bulk, and within write-lane batches (the fan-out as every adapter does it,
read through the delivery log, is in tests/contract/test_contract_webhooks.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import insert, select

from engage_core.contacts.model import Contact, ContactDraft, ContactInput
from engage_core.kernel.events import DomainEvent
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_core.webhooks.model import Subscription
from engage_core.webhooks.service import WebhookInput, WebhookPatch
from engage_sql import Database
from engage_sql.contacts.tables import contacts
from engage_sql.webhooks import outbox
from engage_sql.webhooks.tables import webhook_attempts, webhooks

from .conftest import START

URL = "https://hooks.example.com/engage"


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with webhooks configured (a fake cipher, and a guard that allows every target)."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())


@pytest.fixture
def subscribe(services: Services, account: int) -> Callable[..., Subscription]:
    """`subscribe(*events, is_active=True, account_id=account) -> Subscription`."""

    def make(*events: str, is_active: bool = True, account_id: int | None = None) -> Subscription:
        owner = account if account_id is None else account_id
        data = WebhookInput(f"Hook {'+'.join(events) or 'all'}", URL, list(events), is_active)
        return services.webhooks.create(owner, data).subscription

    return make


def _attempts(database: Database) -> list[dict[str, Any]]:
    with database.engine.connect() as connection:
        rows = connection.execute(select(webhook_attempts).order_by(webhook_attempts.c.id))
        return [dict(row._mapping) for row in rows]


def _create_contact(services: Services, account: int, name: str = "Ada") -> Contact:
    return services.contacts.create(account, ContactInput(name=name, type="whatsapp", phone="+966501234567"))


def test_one_attempt_per_active_subscription_that_wants_the_event(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """A contact.created reaches subscriptions to every event and to contact.created, nothing else."""
    everything = subscribe()
    wanting = subscribe("contact.created", "contact.deleted")
    subscribe("order.created")
    subscribe("contact.created", is_active=False)

    _create_contact(services, account)

    assert sorted((a["webhook_id"], a["event_type"]) for a in _attempts(database)) == [
        (everything.id, "contact.created"),
        (wanting.id, "contact.created"),
    ]


def test_first_attempt_is_pending_and_due_when_the_event_occurred(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """Attempt 1 is pending, due at the event's time, owned by the account, with the event payload."""
    subscribe()

    contact = _create_contact(services, account)

    (attempt,) = _attempts(database)
    assert {k: attempt[k] for k in ("kind", "owner_id", "account_id", "attempt_number", "status", "due_at")} == {
        "kind": "workspace",
        "owner_id": account,
        "account_id": account,
        "attempt_number": 1,
        "status": "pending",
        "due_at": START,
    }
    assert attempt["payload"] == contact.event_payload()
    assert (attempt["leased_until"], attempt["lease_token"], attempt["completed_at"]) == (None, None, None)


def test_every_delivery_has_its_own_uuid(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """Each event and subscription pair is a delivery of its own, named by a fresh UUID."""
    subscribe()
    subscribe()

    with database.uow.workspace(account) as uow:
        uow.emit(DomainEvent("contact.created", {"id": 1}, START))
        uow.emit(DomainEvent("contact.updated", {"id": 1}, START))
        uow.commit()

    delivery_ids = [a["delivery_id"] for a in _attempts(database)]
    assert len(set(delivery_ids)) == 4
    assert all(str(uuid.UUID(d)) == d for d in delivery_ids)


def test_a_lone_events_deliveries_each_have_their_own_uuid(
    database: Database, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """A commit of one event (queued in SQL on PostgreSQL) names each of its deliveries by a fresh UUID."""
    subscribe()
    subscribe()

    with database.uow.workspace(account) as uow:
        uow.emit(DomainEvent("contact.created", {"id": 1}, START))
        uow.commit()

    delivery_ids = [a["delivery_id"] for a in _attempts(database)]
    assert len(set(delivery_ids)) == 2 and all(str(uuid.UUID(d)) == d for d in delivery_ids)


def test_an_extension_event_reaches_only_the_subscriptions_that_list_it(
    database: Database, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """An opt-in event (conversation.handed_over) skips a subscription to every event and reaches one listing it."""
    subscribe()
    listing = subscribe("conversation.handed_over")
    subscribe("contact.created")

    with database.uow.workspace(account) as uow:
        uow.emit(DomainEvent("conversation.handed_over", {"id": 1}, START))
        uow.commit()

    assert [(a["webhook_id"], a["payload"]) for a in _attempts(database)] == [(listing.id, {"id": 1})]


def test_attempts_follow_the_order_the_events_were_emitted(
    database: Database, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """Attempt ids grow with the order of the events, then of the subscriptions."""
    first, second = subscribe(), subscribe()
    names = ["contact.created", "contact.updated", "contact.deleted"]

    with database.uow.workspace(account) as uow:
        for name in names:
            uow.emit(DomainEvent(name, {"id": 1}, START))
        uow.commit()

    assert [(a["event_type"], a["webhook_id"]) for a in _attempts(database)] == [
        (name, hook.id) for name in names for hook in (first, second)
    ]


def test_disabled_subscription_gets_nothing_until_enabled(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """Events of the time a subscription was disabled are never queued for it; later ones are."""
    hook = subscribe(is_active=False)
    _create_contact(services, account, "While off")

    services.webhooks.update(account, hook.id, WebhookPatch(is_active=True))
    services.contacts.create(account, ContactInput(name="While on", type="instagram"))

    assert [a["payload"]["name"] for a in _attempts(database)] == ["While on"]


def test_other_accounts_events_do_not_reach_this_account(
    database: Database, services: Services, make_account: Callable[..., int], subscribe: Callable[..., Subscription]
) -> None:
    """A subscription receives the events of its own account only."""
    other = make_account("Other")
    subscribe()

    _create_contact(services, other)

    assert _attempts(database) == []


def test_rollback_queues_nothing(database: Database, account: int, subscribe: Callable[..., Subscription]) -> None:
    """A unit of work left without commit() queues no delivery."""
    subscribe()

    with database.uow.workspace(account) as uow:
        uow.emit(DomainEvent("contact.created", {"id": 1}, START))

    assert _attempts(database) == []


def test_fan_out_is_part_of_the_changes_transaction(
    database: Database, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """The attempts are written on the unit of work's connection: rolled back with its change."""
    subscribe()

    with database.uow.workspace(account) as uow:
        uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        outbox.record(uow.connection, account, [DomainEvent("contact.created", {"id": 1}, START)], START)
        # leaving without commit()

    with database.engine.connect() as connection:
        left = connection.execute(select(contacts.c.id)).all()
    assert (left, _attempts(database)) == ([], [])


def test_change_and_its_deliveries_are_committed_together(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription]
) -> None:
    """After a service commits a change, its delivery attempts exist too."""
    hook = subscribe("contact.created")

    contact = _create_contact(services, account)

    (attempt,) = _attempts(database)
    assert (attempt["webhook_id"], attempt["payload"]["id"]) == (hook.id, contact.id)


def test_one_subscription_query_and_one_insert_per_commit(
    database: Database, account: int, subscribe: Callable[..., Subscription], statements: list[str]
) -> None:
    """However many events a commit carries, it reads the subscriptions once and inserts the attempts in bulk."""
    subscribe()
    subscribe()
    statements.clear()

    with database.uow.workspace(account) as uow:
        for n in range(5):
            uow.emit(DomainEvent("contact.updated", {"id": n}, START))
        uow.commit()

    reads = [s for s in statements if "FROM webhooks" in s]
    inserts = [s for s in statements if s.startswith("INSERT INTO webhook_attempts")]
    assert (len(reads), len(inserts), len(_attempts(database))) == (1, 1, 10)


def test_commit_without_events_reads_no_subscriptions(
    database: Database, account: int, subscribe: Callable[..., Subscription], statements: list[str]
) -> None:
    """A commit that carries no event costs no webhook query."""
    subscribe()
    statements.clear()

    with database.uow.workspace(account) as uow:
        uow.lists.add("Newsletter", START)
        uow.commit()

    assert [s for s in statements if "webhook" in s] == []


def _note(services: Services, account: int, name: str) -> None:
    """A change that emits one event (`contact.created`) in a unit of work of its own."""
    services.contacts.create(account, ContactInput(name=name, type="instagram"))


def _attempted_hooks(database: Database) -> list[int]:
    return [attempt["webhook_id"] for attempt in _attempts(database)]


def test_a_subscription_created_in_a_batch_gets_the_events_after_it(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription], batch: Any
) -> None:
    """In one transaction, an event before a new subscription is not sent to it; one after it is."""
    with batch():
        _note(services, account, "Before")
        hook = subscribe()
        _note(services, account, "After")

    assert _attempted_hooks(database) == [hook.id]


def test_a_subscription_deleted_in_a_batch_gets_nothing_after_it(
    database: Database, services: Services, account: int, subscribe: Callable[..., Subscription], batch: Any
) -> None:
    """In one transaction, an event after the subscription's deletion queues nothing for it."""
    hook = subscribe()
    with batch():
        _note(services, account, "Before")
        services.webhooks.delete(account, hook.id)
        _note(services, account, "After")

    assert _attempted_hooks(database) == []


def test_a_subscription_of_a_unit_of_work_rolled_back_in_a_batch_gets_nothing(
    database: Database, services: Services, account: int, batch: Any
) -> None:
    """A subscription created, used and undone inside one unit of work of a batch is gone for the next."""

    def subscribe_then_fail() -> None:
        with database.uow.workspace(account) as uow:
            uow.webhooks.add("Undone", URL, (), True, "secret", START)
            outbox.record(uow.connection, account, [DomainEvent("contact.deleted", {"id": 1}, START)], START)
            raise ValueError("boom")

    with batch():
        _note(services, account, "Before")
        with pytest.raises(ValueError, match="boom"):
            subscribe_then_fail()
        _note(services, account, "After")

    assert _attempted_hooks(database) == []


def test_a_subscription_written_by_another_transaction_is_seen_by_the_next(
    database: Database, services: Services, account: int
) -> None:
    """The subscriptions read for one transaction are not reused by the next one."""
    _note(services, account, "Before")
    with database.engine.begin() as connection:  # another writer, outside the repositories
        connection.execute(
            insert(webhooks).values(
                account_id=account, name="Raw", url=URL, events=[], is_active=True,
                secret_ciphertext="x", created_at=START, updated_at=START,
            )
        )  # fmt: skip
        hook_id = connection.execute(select(webhooks.c.id)).scalar_one()
    _note(services, account, "After")

    assert _attempted_hooks(database) == [hook_id]
