"""Fixtures of the connector tests: webhook senders configured the way `engage serve` configures
them (from the environment).

`make_sender()` sets `SSL_CERT_FILE` to the test CA and `ENGAGE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1`
(unless told not to) and builds a real `HttpWebhookSender` from `Settings.from_env()`. The test CA
and the HTTPS receivers (`make_receiver`) come from `tests/conftest.py`. Everything is closed after
the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engage_connectors.ssrf import AddressPolicy
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.settings import Settings

MakeSender = Callable[..., HttpWebhookSender]


@pytest.fixture
def make_sender(monkeypatch: pytest.MonkeyPatch, ca_file: Path) -> Iterator[MakeSender]:
    """`make_sender(timeout=5.0, trust_test_ca=True, allowed_hosts="127.0.0.1") -> HttpWebhookSender`,
    configured from the environment exactly as the server configures it."""
    made: list[HttpWebhookSender] = []

    def make(
        *, timeout: float = 5.0, trust_test_ca: bool = True, allowed_hosts: str = "127.0.0.1"
    ) -> HttpWebhookSender:
        if trust_test_ca:
            monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
        else:
            monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        monkeypatch.setenv("ENGAGE_WEBHOOK_ALLOWED_HOSTS", allowed_hosts)
        policy = AddressPolicy.from_setting(Settings.from_env().webhook_allowed_hosts)
        sender = HttpWebhookSender(policy, timeout=timeout)
        made.append(sender)
        return sender

    yield make
    for sender in made:
        sender.close()
