"""Strategies for the events of the catalogue (SPEC 6), as a webhook receiver gets them.

Each event is produced by the real services over the in-memory fakes, from inputs the kit's
strategies draw (a contact created from :func:`~engage_testing.strategies.contacts.contact_inputs`, an order
moved along its states, ...), so a payload has exactly the shape and values engage delivers. A
:class:`Delivery` is then rendered and signed by engage's own delivery code with the secret you
give, headers and body bytes as they go over the wire.

Use :func:`domain_events` for the events themselves, :func:`deliveries` to property-test a receiver::

    @given(deliveries(SECRET))
    def test_my_receiver_accepts_every_event(delivery):
        assert my_app.post("/hooks", content=delivery.body, headers=delivery.headers).status_code == 200
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from hypothesis import strategies as st

from engage_core.agents.model import AgentPatch
from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.campaigns.service import CampaignInput
from engage_core.commerce.order_service import OrderInput, OrderPatch
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import ContactPatch
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.events import CATALOGUE, DomainEvent
from engage_core.knowledge.documents import DocumentInput, DocumentUpload
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.model import KnowledgeBasePatch
from engage_core.knowledge.service import CatalogInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.support.ticket_service import TicketPatch
from engage_core.support.tickets import PRIORITIES
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeStorePlatform,
    InMemoryJobQueue,
    InMemoryUnitOfWorkFactory,
)
from engage_core.webhooks.delivery import render
from engage_core.webhooks.model import Claim

from .strategies import (
    agent_settings,
    booking_type_inputs,
    contact_inputs,
    contact_patches,
    knowledge_entries,
    messages,
    phones,
    ticket_inputs,
    ticket_replies,
)
from .strategies._text import texts

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""Where the clock of every world the events are made in starts."""
UNREADABLE = "scanned-contract.pdf"
"""The document name the worlds' extractor refuses, as it would an encrypted PDF."""


class EventWorld:
    """One account over the in-memory fakes, with a sandbox messaging provider and a job runner:
    where the events are made."""

    def __init__(self, start: datetime = START) -> None:
        self.clock = FakeClock(start)
        self.uow = InMemoryUnitOfWorkFactory()
        self.sandbox = SandboxGateway(self.clock)
        self.services = Services.build(
            self.uow,
            self.clock,
            cipher=FakeCipher(),
            guard=AllowAllTargets(),
            gateway=self.sandbox,
            store=FakeStorePlatform(),
            sleep=self._sleep,
            extractor=FakeDocumentExtractor(
                failures={UNREADABLE: "The PDF is encrypted; upload it without a password."}
            ),
        )
        self.sandbox.attach(self.services.inbox)
        self.jobs = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        self.contacts_made = 0
        self.provider = ""

    def _sleep(self, seconds: float) -> None:
        """Waits of the send job (its rate) pass on the fake clock."""
        self.clock.advance(seconds=seconds)

    def events(self, name: str | None = None) -> list[DomainEvent]:
        """The events the account's changes committed to the outbox, oldest first."""
        return [e for e in self.uow.store.events(self.account) if name is None or e.name == name]

    def contact(self, draw: st.DrawFn) -> int:
        """A WhatsApp contact (so it can be messaged) with a phone of its own, its other fields drawn."""
        self.contacts_made += 1
        data = attrs.evolve(draw(contact_inputs()), type="whatsapp", phone=f"+96650{self.contacts_made:07d}")
        return self.services.contacts.create(self.account, data).id

    def whatsapp(self) -> str:
        """Connect WhatsApp through the sandbox (QR, scanned); the provider account id."""
        provider = self.services.channels.connect_qr(self.account, "whatsapp").channel.provider_account_id or ""
        self.sandbox.scan(provider)
        self.provider = provider
        return provider


Trigger = Callable[[EventWorld, st.DrawFn], object]
"""Makes an event in the world, with inputs it draws (what it returns is not used)."""


def _contact_updated(world: EventWorld, draw: st.DrawFn) -> None:
    contact = world.contact(draw)
    world.services.contacts.update(
        world.account, contact, attrs.evolve(draw(contact_patches()), phone=ContactPatch().phone)
    )
    if not world.events("contact.updated"):  # the patch changed nothing
        world.services.contacts.toggle_blacklist(world.account, contact)


def _order(world: EventWorld, draw: st.DrawFn, *statuses: str) -> int:
    price = draw(st.decimals(min_value=0, max_value=1000, places=2))
    catalog = CatalogInput("Menu", products=[ProductInput(draw(texts(255)), price=price, stock_quantity=10)])
    product = world.services.knowledge_base.create_catalog(world.account, catalog).products[0].id
    contact = world.contact(draw) if draw(st.booleans()) else None
    data = OrderInput(
        [ItemRequest(product, draw(st.integers(1, 10)))], customer_name=draw(texts(255)), contact_id=contact
    )
    order = world.services.orders.create(world.account, data).order.id
    for status in statuses:
        world.services.orders.update(world.account, order, OrderPatch(status=status))
    return order


def _order_updated(world: EventWorld, draw: st.DrawFn) -> None:
    moves = draw(st.sampled_from([("confirmed",), ("confirmed", "processing"), ("confirmed", "processing", "shipped")]))
    _order(world, draw, *moves)


def _order_cancelled(world: EventWorld, draw: st.DrawFn) -> None:
    order = _order(world, draw, *draw(st.sampled_from([(), ("confirmed",)])))
    world.services.orders.cancel(world.account, order, draw(st.none() | texts(1000)))


def _ticket(world: EventWorld, draw: st.DrawFn) -> int:
    return world.services.tickets.create(world.account, draw(ticket_inputs())).id


def _ticket_updated(world: EventWorld, draw: st.DrawFn) -> None:
    ticket = world.services.tickets.create(world.account, draw(ticket_inputs()))
    if draw(st.booleans()):
        world.services.tickets.reply(world.account, ticket.id, draw(ticket_replies()), type="admin")
    else:
        other = draw(st.sampled_from([p for p in PRIORITIES if p != ticket.priority]))
        world.services.tickets.update(world.account, ticket.id, TicketPatch(priority=other))


def _ticket_replied(world: EventWorld, draw: st.DrawFn) -> None:
    kind = draw(st.sampled_from(["client", "admin"]))
    world.services.tickets.reply(world.account, _ticket(world, draw), draw(ticket_replies()), type=kind)


def _booking(world: EventWorld, draw: st.DrawFn) -> int:
    kind = world.services.booking_setup.create_type(world.account, draw(booking_type_inputs())).id
    # The next day from 00:00 to 19:45 UTC (the default hours' zone): a type of up to 4 hours ends that day.
    day = world.clock.now().replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    starts_at = day + timedelta(minutes=15 * draw(st.integers(0, 79)))
    data = BookingInput(world.contact(draw), kind, starts_at, notes=draw(st.none() | texts(1000)))
    return world.services.bookings.create(world.account, data).id


def _booking_updated(world: EventWorld, draw: st.DrawFn) -> None:
    booking = _booking(world, draw)
    world.services.bookings.update(world.account, booking, BookingPatch(notes=draw(texts(1000))))


def _booking_completed(world: EventWorld, draw: st.DrawFn) -> None:
    booking = world.services.bookings.get(world.account, _booking(world, draw))
    world.clock.set(booking.starts_at)
    world.services.bookings.complete(world.account, booking.id)


def _message_received(world: EventWorld, draw: st.DrawFn) -> None:
    world.sandbox.inject_message(world.whatsapp(), draw(phones), draw(texts(1000)))


def _message_sent(world: EventWorld, draw: st.DrawFn) -> None:
    world.whatsapp()
    world.services.messages.send(world.account, SendInput(world.contact(draw), draw(texts(1000))))


def _channel_connected(world: EventWorld, draw: st.DrawFn) -> None:
    if draw(st.booleans()):
        world.whatsapp()
    else:
        world.services.channels.connect_credentials(world.account, "instagram", CredentialsInput("acme", "secret"))


def _channel_disconnected(world: EventWorld, draw: st.DrawFn) -> None:
    world.whatsapp()
    world.services.channels.disconnect(world.account, "whatsapp")


def _channel_error(world: EventWorld, draw: st.DrawFn) -> None:
    provider = world.services.channels.connect_qr(world.account, "telegram").channel.provider_account_id or ""
    world.sandbox.fail(provider)


def _campaign(world: EventWorld, draw: st.DrawFn, *moves: str) -> int:
    world.whatsapp()
    contacts = tuple(world.contact(draw) for _ in range(draw(st.integers(1, 3))))
    data = CampaignInput(draw(texts(255)), "whatsapp", draw(messages), contacts)
    campaign = world.services.campaigns.create(world.account, data).id
    for move in moves:
        getattr(world.services.campaigns, move)(world.account, campaign)
    return campaign


def _campaign_completed(world: EventWorld, draw: st.DrawFn) -> None:
    _campaign(world, draw, "start")
    while not world.events("campaign.completed") and world.jobs.run_once():
        pass


def _campaign_failed(world: EventWorld, draw: st.DrawFn) -> None:
    """The provider stops the WhatsApp account while the campaign runs: nothing more can be sent."""
    _campaign(world, draw, "start")
    world.sandbox.set_status(world.provider, "STOPPED", "The phone was logged out.")
    while not world.events("campaign.failed") and world.jobs.run_once():
        pass


def _document(world: EventWorld, draw: st.DrawFn, *, readable: bool) -> None:
    """A document entry of one file, read (`.completed`) or refused by the extractor (`.failed`)."""
    entry = draw(knowledge_entries())
    name = draw(st.sampled_from(["price-list.txt", "faq.txt", "handbook.txt"])) if readable else UNREADABLE
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload"
        path.write_text(entry.content, encoding="utf-8")
        data = DocumentInput(entry.title, [DocumentUpload(name, path)])
        world.services.knowledge_documents.create(world.account, data)


def _entry(world: EventWorld, draw: st.DrawFn) -> int:
    return world.services.knowledge_entries.create_text(world.account, draw(knowledge_entries())).id


def _entry_updated(world: EventWorld, draw: st.DrawFn) -> None:
    entry = world.services.knowledge_entries.get(world.account, _entry(world, draw)).entry
    patch = KnowledgeBasePatch(title=f"Updated {entry.title[:200]}", content=draw(texts(5000, max_words=40)))
    world.services.knowledge_entries.update(world.account, entry.id, patch)


def _agent(world: EventWorld, draw: st.DrawFn) -> int:
    return world.services.ai_agents.create(world.account, draw(agent_settings())).id


def _agent_updated(world: EventWorld, draw: st.DrawFn) -> None:
    agent = world.services.ai_agents.get(world.account, _agent(world, draw))
    world.services.ai_agents.update(world.account, agent.id, AgentPatch(name=f"Renamed {agent.name[:200]}"))


def _agent_deleted(world: EventWorld, draw: st.DrawFn) -> None:
    world.services.ai_agents.create(
        world.account, attrs.evolve(draw(agent_settings()), is_default=True, is_active=True)
    )
    world.services.ai_agents.delete(world.account, _agent(world, draw))


TRIGGERS: Mapping[str, Trigger] = {
    "contact.created": lambda w, draw: w.contact(draw),
    "contact.updated": _contact_updated,
    "contact.deleted": lambda w, draw: w.services.contacts.delete(w.account, w.contact(draw)),
    "message.received": _message_received,
    "message.sent": _message_sent,
    "channel.connected": _channel_connected,
    "channel.disconnected": _channel_disconnected,
    "channel.error": _channel_error,
    "campaign.started": lambda w, draw: _campaign(w, draw, "start"),
    "campaign.completed": _campaign_completed,
    "campaign.paused": lambda w, draw: _campaign(w, draw, "start", "pause"),
    "campaign.cancelled": lambda w, draw: _campaign(w, draw, "start", "cancel"),
    "campaign.failed": _campaign_failed,
    "knowledge_base.processing.completed": lambda w, draw: _document(w, draw, readable=True),
    "knowledge_base.processing.failed": lambda w, draw: _document(w, draw, readable=False),
    "knowledge_base.created": lambda w, draw: _entry(w, draw),
    "knowledge_base.updated": _entry_updated,
    "knowledge_base.deleted": lambda w, draw: w.services.knowledge_entries.delete(w.account, _entry(w, draw)),
    "ticket.created": lambda w, draw: _ticket(w, draw),
    "ticket.updated": _ticket_updated,
    "ticket.closed": lambda w, draw: w.services.tickets.close(w.account, _ticket(w, draw)),
    "ticket.replied": _ticket_replied,
    "ai_agent.created": lambda w, draw: _agent(w, draw),
    "ai_agent.updated": _agent_updated,
    "ai_agent.deleted": _agent_deleted,
    "booking.created": lambda w, draw: _booking(w, draw),
    "booking.updated": _booking_updated,
    "booking.cancelled": lambda w, draw: w.services.bookings.cancel(
        w.account, _booking(w, draw), draw(st.none() | texts(1000))
    ),
    "booking.completed": _booking_completed,
    "order.created": lambda w, draw: _order(w, draw),
    "order.updated": _order_updated,
    "order.cancelled": _order_cancelled,
    "order.delivered": lambda w, draw: _order(w, draw, "confirmed", "processing", "shipped", "delivered"),
}
"""For each event, the real actions that make it, with drawn inputs."""

PRODUCED: tuple[str, ...] = tuple(name for name in CATALOGUE if name in TRIGGERS)
"""The events of the catalogue the kit makes: every one."""


@st.composite
def _event(draw: st.DrawFn, names: Sequence[str]) -> DomainEvent:
    name = draw(st.sampled_from(list(names)))
    world = EventWorld()
    TRIGGERS[name](world, draw)
    made = world.events(name)
    assert made, f"the trigger of {name} made no such event"
    return made[-1]


def domain_events(names: Sequence[str] = PRODUCED) -> st.SearchStrategy[DomainEvent]:
    """Events of the catalogue (all the kit makes, or those `names`), each made by the real services
    from drawn inputs: its `name`, its `payload` (the `data` of a delivery) and when it occurred."""
    unknown = sorted(set(names) - set(TRIGGERS))
    if unknown:
        raise ValueError(f"no trigger for {', '.join(unknown)}; the kit makes {', '.join(PRODUCED)}")
    return _event(names)


@attrs.frozen
class Delivery:
    """One webhook delivery as a receiver gets it: the event, the exact headers and body bytes."""

    event: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def document(self) -> dict[str, Any]:
        """The body parsed: `{"event", "delivery_id", "timestamp", "data"}` (SPEC 6, Envelope)."""
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


def deliver(event: DomainEvent, secret: str, *, sent_at: datetime, delivery_id: str, attempt: int = 1) -> Delivery:
    """`event` rendered and signed by engage's delivery code, as attempt `attempt` at `sent_at`."""
    claim = Claim(
        attempt_id=0,
        lease_token="",
        kind="workspace",
        owner_id=0,
        webhook_id=0,
        url="",
        secret_ciphertext="",
        event_type=event.name,
        payload=event.payload,
        delivery_id=delivery_id,
        attempt_number=attempt,
    )
    headers, body = render(claim, secret, int(sent_at.timestamp()), format_timestamp(sent_at))
    return Delivery(event.name, headers, body)


def deliveries(
    secret: str, names: Sequence[str] = PRODUCED, *, sent_at: datetime | None = None
) -> st.SearchStrategy[Delivery]:
    """Deliveries of the events `names`, signed with `secret` (both the `X-Service-Signature-256`
    and the Standard Webhooks headers), sent at `sent_at` (default: now, so a receiver's
    five-minute timestamp check passes) as attempt 1 to 3, each with a new delivery id."""

    @st.composite
    def delivery(draw: st.DrawFn) -> Delivery:
        event = draw(domain_events(names))
        moment = sent_at or datetime.now(UTC)
        delivery_id = str(uuid.UUID(int=draw(st.integers(0, 2**128 - 1)), version=4))
        return deliver(event, secret, sent_at=moment, delivery_id=delivery_id, attempt=draw(st.integers(1, 3)))

    return delivery()
