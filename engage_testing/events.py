"""Strategies for the events of the catalogue (SPEC 6), as a webhook receiver gets them.

Each event is produced by the real services over the in-memory fakes, from inputs the kit's
strategies draw (a contact created from :func:`~engage_testing.strategies.contacts.contact_inputs`, an order
moved along its states, ...), so a payload has exactly the shape and values engage delivers. A
:class:`Delivery` is then rendered and signed by engage's own delivery code with the secret you
give, headers and body bytes as they go over the wire.

The catalogue's events are the default (`PRODUCED`); those beyond it (`EXTENDED`) are drawn when
named. Partner-level events (`partner.client.*`) have :func:`partner_events` and
:func:`partner_deliveries`, in the partner envelope and signature.

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
from engage_core.kernel.events import CATALOGUE, EXTENSIONS, PARTNER_CATALOGUE, DomainEvent
from engage_core.knowledge.documents import DocumentInput, DocumentUpload
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.model import KnowledgeBasePatch
from engage_core.knowledge.service import CatalogInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.handling import REASON_MAX
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.partners.fakes import PartnersTables
from engage_core.partners.model import Client
from engage_core.services import Services
from engage_core.support.ticket_service import TicketPatch
from engage_core.support.tickets import PRIORITIES
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    FakeStorePlatform,
    InMemoryJobQueue,
    InMemoryUnitOfWorkFactory,
)
from engage_core.webhooks.delivery import render
from engage_core.webhooks.model import Claim

from .strategies import (
    agent_settings,
    booking_type_inputs,
    client_inputs,
    client_patches,
    contact_inputs,
    contact_patches,
    knowledge_entries,
    messages,
    phones,
    ticket_inputs,
    ticket_replies,
    visitor_details,
    visitor_messages,
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
            hasher=FakePasswordHasher(),
            mailer=FakeMailer(),
        )
        self.sandbox.attach(self.services.inbox)
        self.jobs = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        self.contacts_made = 0
        self.provider = ""
        self.partner_id = 0

    def _sleep(self, seconds: float) -> None:
        """Waits of the send job (its rate) pass on the fake clock."""
        self.clock.advance(seconds=seconds)

    def events(self, name: str | None = None) -> list[DomainEvent]:
        """The events the account's changes committed to the outbox, oldest first."""
        return [e for e in self.uow.store.events(self.account) if name is None or e.name == name]

    def partner_events(self, name: str | None = None) -> list[DomainEvent]:
        """The partner-level events committed to the partner outbox, oldest first."""
        outbox = self.uow.store.state.of(PartnersTables).partner_events
        return [e for _, e in outbox if name is None or e.name == name]

    def client(self, draw: st.DrawFn) -> Client:
        """A client workspace provisioned by a new partner (`partner_id`) from drawn fields."""
        self.partner_id = self.services.partners.create("Reseller", "ops@reseller.example").partner.id
        return self.services.partner_clients.create(self.partner_id, draw(client_inputs())).client

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
    current = world.services.bookings.get(world.account, booking).notes
    # Notes that change: blank ones are stored as none, and equal ones are no update.
    notes = draw(texts(1000).filter(lambda text: bool(text.strip()) and text.strip() != current))
    world.services.bookings.update(world.account, booking, BookingPatch(notes=notes))


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


def _handed_over(world: EventWorld, draw: st.DrawFn) -> None:
    world.services.conversation_handling.hand_over(world.account, world.contact(draw), draw(texts(REASON_MAX)))


def _released(world: EventWorld, draw: st.DrawFn) -> None:
    contact = world.contact(draw)
    world.services.conversation_handling.take_over(world.account, contact)
    world.services.conversation_handling.release(world.account, contact)


def _chat(world: EventWorld, draw: st.DrawFn) -> str:
    """A web chat session started by a visitor with drawn details; the visitor's token."""
    return world.services.web_chat.start(world.account, draw(visitor_details())).token


def _chat_updated(world: EventWorld, draw: st.DrawFn) -> None:
    """The visitor asks for a person, or a team member takes the session over."""
    started = world.services.web_chat.start(world.account, draw(visitor_details()))
    if draw(st.booleans()):
        world.services.web_chat.request_human(world.account, started.token)
    else:
        world.services.web_chat.take_over(world.account, started.session.session_id)


def _chat_message(world: EventWorld, draw: st.DrawFn) -> None:
    world.services.web_chat.visitor_send(world.account, _chat(world, draw), draw(visitor_messages()))


def _client_updated(world: EventWorld, draw: st.DrawFn) -> None:
    """A drawn patch that changes something: a new company name, with any other fields."""
    client = world.client(draw)
    patch = draw(client_patches())
    renamed = attrs.evolve(patch, company_name=f"{client.company_name} {draw(st.integers(2, 99))}")
    world.services.partner_clients.update(world.partner_id, client.id, renamed)


def _client_suspended(world: EventWorld, draw: st.DrawFn) -> Client:
    client = world.client(draw)
    world.services.partner_clients.suspend(world.partner_id, client.id, draw(st.none() | texts(500)))
    return client


def _client_reactivated(world: EventWorld, draw: st.DrawFn) -> None:
    client = _client_suspended(world, draw)
    world.services.partner_clients.reactivate(world.partner_id, client.id)


def _client_deleted(world: EventWorld, draw: st.DrawFn) -> None:
    client = world.client(draw)
    world.services.partner_clients.delete(world.partner_id, client.id)


def _client_channel(world: EventWorld, draw: st.DrawFn, *, disconnect: bool) -> None:
    """The client workspace connects WhatsApp through the sandbox (and disconnects it)."""
    client = world.client(draw).id
    provider = world.services.channels.connect_qr(client, "whatsapp").channel.provider_account_id or ""
    world.sandbox.scan(provider)
    if disconnect:
        world.services.channels.disconnect(client, "whatsapp")


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
    # Beyond SPEC 6 (a subscription receives them only when it names them).
    "conversation.handed_over": _handed_over,
    "conversation.resolved": lambda w, draw: w.services.conversation_handling.resolve(w.account, w.contact(draw)),
    "conversation.taken_over": lambda w, draw: w.services.conversation_handling.take_over(w.account, w.contact(draw)),
    "conversation.released": _released,
    "web_chat.session.started": _chat,
    "web_chat.session.updated": _chat_updated,
    "web_chat.session.ended": lambda w, draw: w.services.web_chat.visitor_end(w.account, _chat(w, draw)),
    "web_chat.message.created": _chat_message,
}
"""For each workspace event, the real actions that make it, with drawn inputs."""

PARTNER_TRIGGERS: Mapping[str, Trigger] = {
    "partner.client.created": lambda w, draw: w.client(draw),
    "partner.client.updated": _client_updated,
    "partner.client.suspended": _client_suspended,
    "partner.client.reactivated": _client_reactivated,
    "partner.client.deleted": _client_deleted,
    "partner.client.channel.connected": lambda w, draw: _client_channel(w, draw, disconnect=False),
    "partner.client.channel.disconnected": lambda w, draw: _client_channel(w, draw, disconnect=True),
}
"""For each partner-level event, the real actions that make it, with drawn inputs."""

PRODUCED: tuple[str, ...] = tuple(name for name in CATALOGUE if name in TRIGGERS)
"""The events of the catalogue (SPEC 6) the kit makes: every one. The default of the strategies:
a subscription with an empty `events` list receives exactly these."""
EXTENDED: tuple[str, ...] = tuple(name for name in EXTENSIONS if name in TRIGGERS)
"""The workspace events beyond SPEC 6 the kit makes (every one of `EXTENSIONS`): the AI/human
hand-over and the web chat. Ask for them by name: they reach only subscriptions that name them."""
PARTNER_PRODUCED: tuple[str, ...] = tuple(name for name in PARTNER_CATALOGUE if name in PARTNER_TRIGGERS)
"""The partner-level events (SPEC 6, Partner events) the kit makes: every one."""


@st.composite
def _event(draw: st.DrawFn, names: Sequence[str], *, partner: bool) -> DomainEvent:
    name = draw(st.sampled_from(list(names)))
    world = EventWorld()
    (PARTNER_TRIGGERS if partner else TRIGGERS)[name](world, draw)
    made = world.partner_events(name) if partner else world.events(name)
    assert made, f"the trigger of {name} made no such event"
    return made[-1]


def domain_events(names: Sequence[str] = PRODUCED) -> st.SearchStrategy[DomainEvent]:
    """Workspace events (those of the catalogue by default; any of `PRODUCED` and `EXTENDED` by
    name), each made by the real services from drawn inputs: its `name`, its `payload` (the `data`
    of a delivery) and when it occurred."""
    _check(names, TRIGGERS)
    return _event(names, partner=False)


def partner_events(names: Sequence[str] = PARTNER_PRODUCED) -> st.SearchStrategy[DomainEvent]:
    """Partner-level events (`partner.client.*`, all or those `names`), made by the real services: a
    partner provisions a client workspace from drawn fields, and changes, suspends, reactivates or
    deletes it, or the workspace connects or disconnects a channel."""
    _check(names, PARTNER_TRIGGERS)
    return _event(names, partner=True)


def _check(names: Sequence[str], triggers: Mapping[str, Trigger]) -> None:
    unknown = sorted(set(names) - set(triggers))
    if unknown:
        raise ValueError(f"no trigger for {', '.join(unknown)}; the kit makes {', '.join(triggers)}")


@attrs.frozen
class Delivery:
    """One webhook delivery as a receiver gets it: the event, the exact headers and body bytes."""

    event: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def document(self) -> dict[str, Any]:
        """The body parsed: `{"event", "delivery_id", "timestamp", "data"}` for a workspace delivery,
        `{"event", "timestamp", "partner_id", "data"}` for a partner-level one (SPEC 6)."""
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


def deliver(
    event: DomainEvent,
    secret: str,
    *,
    sent_at: datetime,
    delivery_id: str,
    attempt: int = 1,
    partner_id: int | None = None,
) -> Delivery:
    """`event` rendered and signed by engage's delivery code, as attempt `attempt` at `sent_at`: to a
    workspace's webhook, or with `partner_id` to that partner's (the partner envelope, signed in
    `X-Service-Signature`)."""
    claim = Claim(
        attempt_id=0,
        lease_token="",
        kind="workspace" if partner_id is None else "partner",
        owner_id=0 if partner_id is None else partner_id,
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
    return _deliveries(domain_events(names), secret, sent_at, partner=False)


def partner_deliveries(
    secret: str, names: Sequence[str] = PARTNER_PRODUCED, *, sent_at: datetime | None = None
) -> st.SearchStrategy[Delivery]:
    """Deliveries of the partner-level events `names` to a partner's webhook, signed with `secret`
    (`X-Service-Signature` and the Standard Webhooks headers), as :func:`deliveries` draws them."""
    return _deliveries(partner_events(names), secret, sent_at, partner=True)


def _deliveries(
    events: st.SearchStrategy[DomainEvent], secret: str, sent_at: datetime | None, *, partner: bool
) -> st.SearchStrategy[Delivery]:
    @st.composite
    def delivery(draw: st.DrawFn) -> Delivery:
        event = draw(events)
        moment = sent_at or datetime.now(UTC)
        delivery_id = str(uuid.UUID(int=draw(st.integers(0, 2**128 - 1)), version=4))
        partner_id = draw(st.integers(1, 10_000)) if partner else None
        attempt = draw(st.integers(1, 3))
        return deliver(event, secret, sent_at=moment, delivery_id=delivery_id, attempt=attempt, partner_id=partner_id)

    return delivery()
