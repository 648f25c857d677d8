"""Webhook subscriptions on SQL only: the delivery log read from its table, its statuses set in it, the
cascades of deletes and the schema's checks (the rest is in tests/contract/test_contract_webhooks.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_core.webhooks.model import Attempt, Subscription
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


def _set_status(database: Database, attempt_id: int, status: str) -> None:
    with database.engine.begin() as connection:
        connection.execute(webhook_attempts.update().where(webhook_attempts.c.id == attempt_id).values(status=status))


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
