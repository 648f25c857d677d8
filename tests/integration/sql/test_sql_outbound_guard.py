"""The write lane's rule, checked: an outbound port called in the middle of a batch raises at once.

A job of a write-lane batch must do nothing outside the database before its batch commits (its
request is answered only then; `engage_sql.write_lane`), and on PostgreSQL a short request run on
the event loop must not wait on anything but the database (`engage_sql.loop_calls`). Every outbound
port the composition root hands out is wrapped by `Database.outbound_guard()`; these tests hold
each kind of port to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from engage_core.commerce.orders import Order
from engage_core.kernel.mail import MailMessage
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.testing import AllowAllTargets, FakeClock, FakeMailer, FakeSender, FakeStorePlatform
from engage_sql import Database
from engage_sql.write_lane import OutboundCallInBatch, OutboundCallOnLoop

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)


def _order() -> Order:
    return Order(
        id=1, contact_id=None, customer_name="Ada", customer_phone=None, customer_email=None, status="pending",
        subtotal=0, total=0, currency="USD", shipping_address=None, notes=None, created_by="store_platform",
        items=(), cancelled_at=None, cancellation_reason=None, created_at=MOMENT, updated_at=MOMENT,
    )  # fmt: skip


PORTS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
    "mailer": (FakeMailer, lambda port: port.send(MailMessage("ada@example.com", "Hello", "Hi"))),
    "channel gateway": (lambda: SandboxGateway(FakeClock()), lambda port: port.start_qr("whatsapp")),
    "store platform": (FakeStorePlatform, lambda port: port.push_status(1, _order(), "processing")),
    "webhook sender": (FakeSender, lambda port: port.send("https://hooks.example.com/", {}, b"{}")),
    "target guard": (AllowAllTargets, lambda port: port.refusal("https://hooks.example.com/")),
}
"""Each kind of outbound port: how to make one, and one call of it."""


@pytest.mark.parametrize("name", sorted(PORTS))
def test_an_outbound_call_in_a_batch_raises(name: str, database: Database, batch: Any) -> None:
    """Called in the middle of a batch, the guarded port refuses at once."""
    make, call = PORTS[name]
    guarded = database.outbound_guard()(make(), name)

    with batch(), pytest.raises(OutboundCallInBatch, match=name):
        call(guarded)


class _Spy:
    """A port of any kind that records the names of the methods called on it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: self.calls.append(name)


@pytest.mark.parametrize("name", sorted(PORTS))
def test_an_outbound_call_refused_in_a_batch_never_reaches_the_port(name: str, database: Database, batch: Any) -> None:
    """The refused call does not reach the port."""
    port = _Spy()
    guarded = database.outbound_guard()(port, name)

    with batch(), pytest.raises(OutboundCallInBatch):
        PORTS[name][1](guarded)

    assert port.calls == []


@pytest.mark.parametrize("name", sorted(PORTS))
def test_an_outbound_call_outside_a_batch_goes_through(name: str, database: Database) -> None:
    """Outside a batch, the guarded port passes the call on."""
    port = _Spy()

    PORTS[name][1](database.outbound_guard()(port, name))

    assert len(port.calls) == 1


@pytest.mark.parametrize("name", sorted(PORTS))
def test_an_outbound_call_on_the_event_loop_raises_on_postgresql(name: str, database: Database, backend: str) -> None:
    """On PostgreSQL, a port called by a short request running on the event loop refuses at once."""
    if backend != "postgres":
        pytest.skip("SQLite runs no request on the loop that could call out")
    port = _Spy()
    guarded = database.outbound_guard()(port, name)
    calls = database.loop_calls()
    assert calls is not None

    async def on_the_loop() -> None:
        await calls.run(PORTS[name][1], guarded)

    with pytest.raises(OutboundCallOnLoop, match=name):
        asyncio.run(on_the_loop())
    calls.close()
    assert port.calls == []
