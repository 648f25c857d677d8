"""Webhook subscriptions and their delivery log through the SQL webhook repository."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest
from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import NotFound
from engage_core.kernel.events import TEST_EVENT
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_core.webhooks.model import Attempt, Subscription
from engage_core.webhooks.service import WebhookInput
from engage_sql import Database
from engage_sql.accounts.tables import accounts
from engage_sql.webhooks.tables import webhook_attempts, webhooks

from .conftest import START

URL = "https://hooks.example.com/engage"
_STATUSES = ("pending", "delivered", "failed")


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with webhooks configured (a fake cipher, and a guard that allows every target)."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(
    database: Database, account: int, name: str = "Hook", events: tuple[str, ...] = (), *, is_active: bool = True
) -> Subscription:
    with database.uow.workspace(account) as uow:
        created = uow.webhooks.add(name, URL, events, is_active, "cipher-1", START)
        uow.commit()
    return created


def _enqueue(
    database: Database, account: int, webhook_id: int, delivery_id: str = "d-1", attempt_number: int = 1
) -> Attempt:
    with database.uow.workspace(account) as uow:
        attempt = uow.webhooks.enqueue(
            webhook_id, "contact.created", {"id": 7, "name": "Ada"}, delivery_id, attempt_number, START, START
        )
        uow.commit()
    return attempt


def _set_status(database: Database, attempt_id: int, status: str) -> None:
    with database.engine.begin() as connection:
        connection.execute(webhook_attempts.update().where(webhook_attempts.c.id == attempt_id).values(status=status))


def test_added_subscription_reads_back_equal(database: Database, account: int) -> None:
    """add() returns the subscription, and get() reads the same back, event filter included."""
    created = _add(database, account, events=("contact.created", "order.created"))

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.webhooks.get(created.id) == created
    assert (created.name, created.url, created.events, created.is_active) == (
        "Hook",
        URL,
        ("contact.created", "order.created"),
        True,
    )


def test_list_is_oldest_first_and_active_leaves_out_disabled(database: Database, account: int) -> None:
    """list() shows every subscription by id; active() only the enabled ones."""
    first = _add(database, account, "First")
    second = _add(database, account, "Second", is_active=False)
    third = _add(database, account, "Third")

    with database.uow.workspace(account, readonly=True) as uow:
        assert (list(uow.webhooks.list()), list(uow.webhooks.active())) == ([first, second, third], [first, third])


def test_update_stores_every_field(database: Database, account: int) -> None:
    """update() stores name, url, events, is_active and updated_at."""
    created = _add(database, account)
    changed = attrs.evolve(
        created,
        name="Renamed",
        url="https://other.example.com/hook",
        events=("order.created",),
        is_active=False,
        updated_at=START + timedelta(hours=1),
    )

    with database.uow.workspace(account) as uow:
        uow.webhooks.update(changed)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.webhooks.get(created.id) == changed


def test_delete_removes_the_subscription_and_its_log(database: Database, account: int) -> None:
    """delete() removes the subscription and every attempt of its log."""
    created = _add(database, account)
    _enqueue(database, account, created.id)

    with database.uow.workspace(account) as uow:
        uow.webhooks.delete(created.id)
        uow.commit()

    with database.engine.connect() as connection:
        left = connection.execute(select(webhook_attempts.c.id)).all()
    with database.uow.workspace(account, readonly=True) as uow:
        assert (uow.webhooks.get(created.id), left) == (None, [])


def test_set_secret_replaces_the_ciphertext(database: Database, account: int) -> None:
    """set_secret() replaces the stored ciphertext that secret_ciphertext() reads."""
    created = _add(database, account)

    with database.uow.workspace(account) as uow:
        before = uow.webhooks.secret_ciphertext(created.id)
        uow.webhooks.set_secret(created.id, "cipher-2", START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert (before, uow.webhooks.secret_ciphertext(created.id)) == ("cipher-1", "cipher-2")


def test_other_accounts_subscription_is_absent(database: Database, account: int, other: int) -> None:
    """Another account's subscription cannot be read, listed, changed, deleted or used."""
    theirs = _add(database, other, "Theirs")

    with database.uow.workspace(account) as uow:
        uow.webhooks.update(attrs.evolve(theirs, name="Mine now"))
        uow.webhooks.set_secret(theirs.id, "stolen", START)
        uow.webhooks.delete(theirs.id)
        assert (uow.webhooks.get(theirs.id), uow.webhooks.list(), uow.webhooks.active()) == (None, [], [])
        with pytest.raises(NotFound):
            uow.webhooks.secret_ciphertext(theirs.id)
        with pytest.raises(NotFound):
            uow.webhooks.enqueue(theirs.id, "contact.created", {}, "d-1", 1, START, START)
        uow.commit()

    with database.uow.workspace(other, readonly=True) as uow:
        assert (uow.webhooks.get(theirs.id), uow.webhooks.secret_ciphertext(theirs.id)) == (theirs, "cipher-1")


def test_other_accounts_log_is_absent(database: Database, account: int, other: int) -> None:
    """Another account's attempts are not in the log, in a delivery, nor readable as a payload."""
    theirs = _add(database, other, "Theirs")
    attempt = _enqueue(database, other, theirs.id)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (
            uow.webhooks.attempts(theirs.id, None, PageRequest()).total,
            uow.webhooks.delivery(theirs.id, "d-1"),
        ) == (
            0,
            [],
        )
        with pytest.raises(NotFound):
            uow.webhooks.payload(attempt.id)


def test_enqueue_queues_a_pending_attempt(database: Database, account: int) -> None:
    """enqueue() returns a pending attempt with no outcome yet, and keeps its payload."""
    created = _add(database, account)

    attempt = _enqueue(database, account, created.id, "d-1", 2)

    with database.uow.workspace(account, readonly=True) as uow:
        payload = uow.webhooks.payload(attempt.id)
    assert attempt == Attempt(
        attempt.id, created.id, "d-1", "contact.created", 2, "pending", None, None, None, START, START, None
    )
    assert payload == {"id": 7, "name": "Ada"}


def test_log_is_newest_first_and_paginated(database: Database, account: int) -> None:
    """attempts() pages through the log newest first, with the total of every page."""
    created = _add(database, account)
    ids = [_enqueue(database, account, created.id, f"d-{n}").id for n in range(5)]

    with database.uow.workspace(account, readonly=True) as uow:
        first = uow.webhooks.attempts(created.id, None, PageRequest(page=1, per_page=2))
        last = uow.webhooks.attempts(created.id, None, PageRequest(page=3, per_page=2))
        beyond = uow.webhooks.attempts(created.id, None, PageRequest(page=4, per_page=2))

    assert [a.id for a in first.items] == ids[::-1][:2]
    assert ([a.id for a in last.items], last.total, beyond.items, beyond.total) == ([ids[0]], 5, [], 5)


def test_log_status_filter(database: Database, account: int) -> None:
    """attempts(status=...) shows only the attempts in that status, and counts only those."""
    created = _add(database, account)
    failed, pending, delivered = (_enqueue(database, account, created.id, f"d-{n}") for n in range(3))
    _set_status(database, failed.id, "failed")
    _set_status(database, delivered.id, "delivered")

    with database.uow.workspace(account, readonly=True) as uow:
        pages = {status: uow.webhooks.attempts(created.id, status, PageRequest()) for status in _STATUSES}
    found = {status: ([a.id for a in page.items], page.total) for status, page in pages.items()}

    assert found == {"pending": ([pending.id], 1), "delivered": ([delivered.id], 1), "failed": ([failed.id], 1)}


def test_delivery_lists_its_attempts_oldest_first(database: Database, account: int) -> None:
    """delivery() returns the attempts of one delivery_id only, oldest first."""
    created = _add(database, account)
    first = _enqueue(database, account, created.id, "d-1", 1)
    _enqueue(database, account, created.id, "d-2", 1)
    second = _enqueue(database, account, created.id, "d-1", 2)

    with database.uow.workspace(account, readonly=True) as uow:
        assert [a.id for a in uow.webhooks.delivery(created.id, "d-1")] == [first.id, second.id]


def test_deleting_the_account_deletes_its_subscriptions(database: Database, account: int) -> None:
    """Subscriptions and their log go with their account."""
    created = _add(database, account)
    _enqueue(database, account, created.id)

    with database.engine.begin() as connection:
        connection.execute(delete(accounts).where(accounts.c.id == account))
        left = (
            connection.execute(select(webhooks.c.id)).all(),
            connection.execute(select(webhook_attempts.c.id)).all(),
        )

    assert left == ([], [])


def test_schema_refuses_a_workspace_attempt_of_another_accounts_subscription(
    database: Database, account: int, other: int
) -> None:
    """A workspace attempt must name its own account as owner, and a subscription of that account."""
    theirs = _add(database, other, "Theirs")
    row = {
        "kind": "workspace",
        "owner_id": account,
        "account_id": account,
        "webhook_id": theirs.id,
        "delivery_id": "d-1",
        "event_type": "contact.created",
        "payload": {},
        "attempt_number": 1,
        "status": "pending",
        "due_at": START,
        "created_at": START,
    }

    for broken in (row, row | {"webhook_id": theirs.id, "owner_id": account, "account_id": other}):
        with pytest.raises(IntegrityError), database.engine.begin() as connection:
            connection.execute(insert(webhook_attempts).values(broken))


def test_send_test_queues_a_test_delivery(services: Services, account: int) -> None:
    """The `webhook.test` delivery is queued whatever the subscription's event filter."""
    created = services.webhooks.create(account, WebhookInput("Hook", URL, ["order.created"])).subscription

    queued = services.webhooks.send_test(account, created.id)

    page = services.webhooks.deliveries(account, created.id, None, PageRequest())
    assert ([a.id for a in page.items], queued.event_type, queued.status) == ([queued.id], TEST_EVENT, "pending")
