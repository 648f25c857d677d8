"""A partner's client connecting or losing a channel reaches the partner as `partner.client.channel.*`."""

from __future__ import annotations

import pytest

from engage_core.messaging.sandbox import SandboxGateway
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.partners.fakes import PartnersTables
from engage_core.services import Services
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    InMemoryUnitOfWorkFactory,
)


@pytest.fixture
def world() -> tuple[Services, SandboxGateway, InMemoryUnitOfWorkFactory]:
    clock = FakeClock()
    uow = InMemoryUnitOfWorkFactory()
    sandbox = SandboxGateway(clock)
    services = Services.build(
        uow,
        clock,
        gateway=sandbox,
        hasher=FakePasswordHasher(),
        mailer=FakeMailer(),
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
    )
    sandbox.attach(services.inbox)
    return services, sandbox, uow


def partner_event_names(uow: InMemoryUnitOfWorkFactory) -> list[str]:
    return [
        event.name
        for _, event in uow.store.state.of(PartnersTables).partner_events
        if event.name.startswith("partner.client.channel")
    ]


def test_a_client_connecting_whatsapp_tells_its_partner(
    world: tuple[Services, SandboxGateway, InMemoryUnitOfWorkFactory],
) -> None:
    """Scanning the QR code of a client's WhatsApp emits partner.client.channel.connected once."""
    services, sandbox, uow = world
    partner = services.partners.create("Reseller", "ops@reseller.example").partner.id
    client = services.partner_clients.create(
        partner, ClientInput("Client", "business", AdminInput("Ada", "Lovelace", "ada@client.example"))
    ).client.id

    started = services.channels.connect_qr(client, "whatsapp")
    sandbox.scan(started.channel.provider_account_id or "", None)
    services.channels.status(client, "whatsapp")

    assert partner_event_names(uow) == ["partner.client.channel.connected"]


def test_a_client_disconnecting_tells_its_partner(
    world: tuple[Services, SandboxGateway, InMemoryUnitOfWorkFactory],
) -> None:
    """Disconnecting a client's channel emits partner.client.channel.disconnected after the connect."""
    services, sandbox, uow = world
    partner = services.partners.create("Reseller", "ops@reseller.example").partner.id
    client = services.partner_clients.create(
        partner, ClientInput("Client", "business", AdminInput("Ada", "Lovelace", "ada@client.example"))
    ).client.id
    started = services.channels.connect_qr(client, "whatsapp")
    sandbox.scan(started.channel.provider_account_id or "", None)

    services.channels.disconnect(client, "whatsapp")

    assert partner_event_names(uow) == ["partner.client.channel.connected", "partner.client.channel.disconnected"]


def test_a_workspace_without_a_partner_relays_nothing(
    world: tuple[Services, SandboxGateway, InMemoryUnitOfWorkFactory],
) -> None:
    """A workspace created without a partner connects its channel and no partner event is written."""
    services, sandbox, uow = world
    account = services.accounts.create("Solo").account.id
    started = services.channels.connect_qr(account, "whatsapp")
    sandbox.scan(started.channel.provider_account_id or "", None)

    assert partner_event_names(uow) == []
