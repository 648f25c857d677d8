"""The channels' inbox tells the live feed of what it stored (`ChannelInbox`, `INBOX_TOPIC`), so the
dashboard's inbox refreshes without looking again."""

from __future__ import annotations

import pytest

from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.gateway import InboundMessage
from engage_core.messaging.inbox_service import INBOX_TOPIC
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_core.webchat.fakes import RecordingLiveFeed

PHONE = "+14155550123"


@pytest.fixture
def world(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock
) -> tuple[Services, SandboxGateway, RecordingLiveFeed, int, str]:
    """Services over the sandbox with a recording live feed; a workspace with WhatsApp connected."""
    sandbox, live = SandboxGateway(clock), RecordingLiveFeed()
    services = Services.build(uow, clock, gateway=sandbox, live=live)
    sandbox.attach(services.inbox)
    account = services.accounts.create("Acme").account.id
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid)
    services.channels.status(account, "whatsapp")
    return services, sandbox, live, account, pid


def test_an_inbound_message_is_told_under_the_inbox_topic(
    world: tuple[Services, SandboxGateway, RecordingLiveFeed, int, str],
) -> None:
    """A stored inbound message publishes (account, `inbox`) once."""
    _, sandbox, live, account, pid = world
    sandbox.inject_message(pid, PHONE, "Hello")
    assert live.published == [(account, INBOX_TOPIC)]


def test_a_receipt_is_told_too(world: tuple[Services, SandboxGateway, RecordingLiveFeed, int, str]) -> None:
    """A delivery receipt of a sent message publishes the inbox topic as well."""
    services, sandbox, live, account, pid = world
    sandbox.inject_message(pid, PHONE, "Hello")
    contact = services.messages.conversations(account, ConversationFilter(), PageRequest()).items[0].contact_id
    sent = services.messages.send(account, SendInput(contact, "Hi back")).message
    sandbox.inject_receipt(pid, sent.provider_message_id or "", "delivered")
    assert live.published == [(account, INBOX_TOPIC), (account, INBOX_TOPIC)]


def test_a_message_for_no_workspace_tells_nobody(
    world: tuple[Services, SandboxGateway, RecordingLiveFeed, int, str],
) -> None:
    """A callback no workspace owns stores nothing and publishes nothing."""
    services, _, live, _, _ = world
    services.inbox.receive(InboundMessage("unknown-account", "m-1", PHONE, "Hello", FakeClock().now()))
    assert live.published == []
