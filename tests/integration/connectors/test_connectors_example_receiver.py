"""examples/webhook_receiver.py: it verifies with verify_signature, deduplicates and answers 2xx."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import trustme
from receiver import server_context

from engage_connectors.secrets import FernetCipher
from engage_connectors.ssrf import AddressPolicy
from engage_connectors.target_guard import DnsTargetGuard
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.contacts.model import ContactInput
from engage_core.kernel.clock import SystemClock
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import InMemoryDeliveryQueue, InMemoryUnitOfWorkFactory
from engage_core.webhooks.delivery import DeliveryWorker, render
from engage_core.webhooks.model import Claim
from engage_core.webhooks.service import WebhookInput
from engage_core.webhooks.signatures import generate_secret

EXAMPLE = Path(__file__).parents[3] / "examples" / "webhook_receiver.py"
Event = dict[str, Any]


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engage_example_webhook_receiver", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def start_example(certificate_authority: trustme.CA) -> Iterator[Callable[..., tuple[str, list[Event], Any]]]:
    """`start_example(secret, tls=False) -> (base url, events handled, server)`: the example's server
    on 127.0.0.1, optionally behind TLS with a certificate of the trusted test CA."""
    servers: list[Any] = []

    def start(secret: str, *, tls: bool = False) -> tuple[str, list[Event], Any]:
        handled: list[Event] = []
        server = load_example().WebhookServer(("127.0.0.1", 0), secret, on_event=handled.append)
        if tls:
            server.socket = server_context(certificate_authority).wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        scheme = "https" if tls else "http"
        return f"{scheme}://127.0.0.1:{server.server_address[1]}/hook", handled, server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def signed(
    secret: str, delivery_id: str = "0b6c1c1e-1111-4c5e-9d1e-000000000001", *, at: float | None = None
) -> dict[str, Any]:
    """httpx.post keyword arguments for a delivery signed with `secret` at time `at` (default now)."""
    claim = Claim(1, "lease", "workspace", 1, 1, "https://x", "", "contact.created", {"id": 7}, delivery_id, 1)
    moment = int(time.time() if at is None else at)
    headers, body = render(claim, secret, moment, "")
    return {"headers": headers, "content": body}


def test_a_real_delivery_is_verified_handled_and_acknowledged(
    start_example: Callable[..., tuple[str, list[Event], Any]], make_sender: Callable[..., HttpWebhookSender]
) -> None:
    """A delivery from the real worker passes the example's check, is handled and answered 204."""
    url, handled, server = start_example("placeholder", tls=True)
    sender = make_sender()
    policy = AddressPolicy.from_setting(Settings.from_env().webhook_allowed_hosts)
    cipher = FernetCipher("a-long-enough-test-secret-key")
    uow = InMemoryUnitOfWorkFactory()
    services = Services.build(uow, SystemClock(), cipher=cipher, guard=DnsTargetGuard(policy))
    account_id = services.accounts.create("Acme").account.id
    server.secret = services.webhooks.create(account_id, WebhookInput(name="Example", url=url)).secret
    services.contacts.create(account_id, ContactInput(name="Ada", type="instagram"))
    webhook_id = services.webhooks.list(account_id)[0].id
    DeliveryWorker(InMemoryDeliveryQueue(uow.store), sender, cipher, SystemClock()).run_once()
    [attempt] = services.webhooks.deliveries(account_id, webhook_id, None, PageRequest()).items
    assert (attempt.status, attempt.response_status_code) == ("delivered", 204)
    assert [event["event"] for event in handled] == ["contact.created"]


def test_a_repeated_delivery_is_acknowledged_but_handled_once(
    start_example: Callable[..., tuple[str, list[Event], Any]],
) -> None:
    """The same delivery_id twice (a retry or redelivery) gets 204 both times and is handled once."""
    secret = generate_secret()
    url, handled, _ = start_example(secret)
    assert httpx.post(url, **signed(secret)).status_code == 204
    assert httpx.post(url, **signed(secret)).status_code == 204
    assert len(handled) == 1


def test_a_forged_delivery_is_refused(start_example: Callable[..., tuple[str, list[Event], Any]]) -> None:
    """A delivery signed with another secret gets 401 and is not handled."""
    url, handled, _ = start_example(generate_secret())
    assert httpx.post(url, **signed(generate_secret())).status_code == 401
    assert handled == []


def test_a_stale_delivery_is_refused(start_example: Callable[..., tuple[str, list[Event], Any]]) -> None:
    """A delivery whose timestamp is more than five minutes old gets 401."""
    secret = generate_secret()
    url, handled, _ = start_example(secret)
    assert httpx.post(url, **signed(secret, at=time.time() - 301)).status_code == 401
    assert handled == []


def test_an_unsigned_delivery_is_refused(start_example: Callable[..., tuple[str, list[Event], Any]]) -> None:
    """A POST without the signature headers gets 401."""
    url, handled, _ = start_example(generate_secret())
    assert httpx.post(url, content=b'{"delivery_id":"x"}').status_code == 401
    assert handled == []
