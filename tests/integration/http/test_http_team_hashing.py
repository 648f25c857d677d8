"""Password hashing under load: a request that would queue beyond the hasher's bound answers 503 with
`Retry-After` (the core's Unavailable) instead of holding another 64 MiB hash in memory."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import attrs
import pytest
from gated_hasher import GatedHasher
from http_support import Api, Tenant

from engage_connectors.passwords import BoundedHasher
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.team.model import TeamMember
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakeMailer, InMemoryUnitOfWorkFactory
from engage_http.operations import Operation
from engage_http.team import OPERATIONS

PASSWORD = "a new password"
HASHING = [op for op in OPERATIONS if op.body is not None and "password" in attrs.fields_dict(op.body)]
"""The team operations that take a password, from the operation table."""


@pytest.fixture
def gated() -> GatedHasher:
    hasher = GatedHasher()
    hasher.gate.set()  # open while the test sets up; each test closes it
    return hasher


@pytest.fixture
def bounded(gated: GatedHasher) -> BoundedHasher:
    """One hash at a time, none waiting."""
    return BoundedHasher(gated, 1, queue=0)


@pytest.fixture
def services(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    mailer: FakeMailer,
    sandbox: SandboxGateway,
    bounded: BoundedHasher,
) -> Services:
    return Services.build(
        uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), hasher=bounded, mailer=mailer, gateway=sandbox
    )


@pytest.fixture
def occupy(bounded: BoundedHasher, gated: GatedHasher) -> Iterator[Callable[[], None]]:
    """`occupy()` takes the hasher's one slot with a hash that runs until the test ends."""
    threads: list[threading.Thread] = []

    def start() -> None:
        gated.gate.clear()
        threads.append(threading.Thread(target=bounded.hash, args=("occupying the slot",)))
        threads[0].start()
        gated.wait_until_running(1)

    yield start
    gated.gate.set()
    for thread in threads:
        thread.join()


def test_the_table_has_hashing_operations() -> None:
    """Adding and updating a member both take a password (the parametrised test below needs them)."""
    assert {(op.method, op.path) for op in HASHING} == {("POST", "/team"), ("PUT", "/team/{id:id}")}


@pytest.mark.parametrize("operation", HASHING, ids=lambda op: f"{op.method} {op.path}")
def test_a_password_beyond_the_hashing_queue_answers_503_with_retry_after(
    api: Api,
    tenant: Tenant,
    make_member: Callable[..., TeamMember],
    occupy: Callable[[], None],
    operation: Operation,
) -> None:
    """With every hashing slot and queue place taken, a request with a password is 503 + Retry-After."""
    path = operation.path.replace("{id:id}", str(make_member(tenant).id))
    body = {"name": "Grace", "email": "grace@example.com", "role": "agent", "password": PASSWORD}
    occupy()

    response = api.request(operation.method, path, json=body)

    assert response.status_code == 503, response.text
    assert int(response.headers["Retry-After"]) > 0
    assert response.json()["success"] is False
