"""A workspace wired to the sandbox gateway, for the channel and message tests: the real
`Services` over the in-memory fakes, with the sandbox calling back into the services' inbox."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from engage_core.contacts.model import Contact, ContactInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.plans.features import LINKEDIN_ACCESS
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory

from ..factories import START

PHONE = "+966501234567"
PASSWORD = "secret"
"""A sandbox password that logs in without 2FA."""


class CountingBytes:
    """Deterministic stand-in for `secrets.token_bytes`: every call returns new bytes."""

    def __init__(self) -> None:
        self._next = itertools.count()

    def __call__(self, size: int) -> bytes:
        return bytes(next(self._next) % 256 for _ in range(size))


class ScriptedCampaigns:
    """A campaign guard whose answer the test sets."""

    def __init__(self) -> None:
        self.active: set[tuple[int, str]] = set()

    def active_on(self, account_id: int, channel: str) -> bool:
        return (account_id, channel) in self.active


class ScriptedFeatures:
    """A feature gate that refuses the features the test lists."""

    def __init__(self) -> None:
        self.refused: set[str] = set()

    def allows(self, account_id: int, feature: str) -> bool:
        return feature not in self.refused


class Messaging:
    """One account, the sandbox, and helpers that connect channels and make contacts."""

    def __init__(self, *, callbacks: bool = True) -> None:
        """`callbacks=False`: the sandbox calls nothing back (a provider whose webhooks never come)."""
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.store: InMemoryStore = self.uow.store
        self.sandbox = SandboxGateway(self.clock, token_bytes=CountingBytes())
        self.campaigns = ScriptedCampaigns()
        self.features = ScriptedFeatures()
        self.services = Services.build(
            self.uow, self.clock, gateway=self.sandbox, campaigns=self.campaigns, features=self.features
        )
        if callbacks:
            self.sandbox.attach(self.services.inbox)
        self.account = self.services.accounts.create("Acme").account.id

    def connect_qr(self, channel: str = "whatsapp", username: str | None = None) -> ChannelAccount:
        """Connect a QR channel: start, scan, poll."""
        started = self.services.channels.connect_qr(self.account, channel)
        self.sandbox.scan(started.channel.provider_account_id or "", username)
        return self.services.channels.status(self.account, channel)

    def connect_credentials(self, channel: str = "instagram", password: str = PASSWORD) -> ChannelAccount:
        """Connect a credentials channel whose password needs no 2FA."""
        data = CredentialsInput(username="acme.shop", password=password)
        return self.services.channels.connect_credentials(self.account, channel, data).channel

    def contact(self, type: str = "whatsapp", phone: str | None = PHONE, name: str = "Ada") -> Contact:
        return self.services.contacts.create(self.account, ContactInput(name=name, type=type, phone=phone))

    def channel(self, channel: str) -> ChannelAccount:
        return self.services.channels.status(self.account, channel)

    def events(self, name: str) -> list[Mapping[str, Any]]:
        """Payloads of the committed events called `name`, oldest first."""
        return [e.payload for e in self.store.events(self.account) if e.name == name]

    def refuse_linkedin(self) -> None:
        self.features.refused.add(LINKEDIN_ACCESS)
