"""The event catalogue of SPEC 6: every event, its trigger, and the payload fields it carries.

`SPEC_EVENTS` is SPEC 6's table, copied row by row: each event name with the `data` fields the
spec lists for it ("same as X" rows spelled out). SPEC 9 speaks of 30 event types, but the table
has 33 workspace events plus `webhook.test`; this file tests the table.

An event whose trigger is built has a test here that drives the real trigger through `Services`
over the in-memory fakes and checks that the queued payload has at least the spec's fields. Every
other event sits in `NOT_YET_BUILT`, and a test checks that this list is exactly the events
without a trigger test: building an area means adding its trigger test here and removing its
events from the list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.setup import BookingTypeInput
from engage_core.commerce.order_service import OrderInput, OrderPatch, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import ProductInput
from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import ContactInput, ContactPatch
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import CATALOGUE, EXTENSIONS, TEST_EVENT
from engage_core.knowledge.service import CatalogInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory
from engage_core.webhooks.fakes import WebhooksTables
from engage_core.webhooks.service import WebhookInput, WebhookService


def fields(spec_text: str) -> tuple[str, ...]:
    """A field list as SPEC 6 writes it: `id, name, email`."""
    return tuple(name.strip() for name in spec_text.split(","))


CONTACT = fields(
    "id, name, email, phone, type, status, is_blacklist, source, company, address, country_id, created_at, updated_at"
)
MESSAGE = fields(
    "id, contact_id, value, message_type, message_by, status, source, header_image, header_video, "
    "header_document, header_audio, campaign_id, created_at"
)
CAMPAIGN = fields("id, name, status, total_contacts, success_count, failed_count, started_at, completed_at, updated_at")
KNOWLEDGE_BASE = fields("id, title, type, status, description, business_description, created_at, updated_at")
PROCESSING = fields("knowledge_base_id, title, type, item_id, error, occurred_at")
"""Always present; a website adds website_url, crawl_status, pages_crawled; a document adds original_name, status."""
TICKET = fields("id, subject, status, priority, department_id, ticket_id, created_at, updated_at")
AI_AGENT = fields("id, name, is_active, is_default, created_at, updated_at")
BOOKING = fields(
    "id, status, customer_name, customer_phone, customer_email, booking_date, start_time, end_time, guest_count, "
    "notes, booking_type_id, booking_resource_id, contact_id, cancelled_at, cancellation_reason, created_at, updated_at"
)
ORDER = fields(
    "id, contact_id, customer_name, customer_phone, customer_email, status, subtotal, total, currency, "
    "shipping_address, notes, created_by, items, created_at, updated_at"
) + fields("cancelled_at, cancellation_reason")
"""The order fields of SPEC 2 (`items` among them) plus cancelled_at, cancellation_reason and items[]."""

SPEC_EVENTS: dict[str, tuple[str, ...]] = {
    "contact.created": CONTACT,
    "contact.updated": CONTACT,
    "contact.deleted": fields("id, name, phone, email, type, deleted_at"),
    "message.received": MESSAGE,
    "message.sent": MESSAGE,
    "channel.connected": fields("channel, channel_id, username, status, connected_at"),
    "channel.disconnected": fields("channel, channel_id, username, status, reason, disconnected_at"),
    "channel.error": fields("channel, channel_id, status, error, occurred_at"),
    "campaign.started": CAMPAIGN,
    "campaign.completed": CAMPAIGN,
    "campaign.paused": CAMPAIGN,
    "campaign.cancelled": CAMPAIGN,
    "campaign.failed": CAMPAIGN,
    "knowledge_base.created": KNOWLEDGE_BASE,
    "knowledge_base.updated": KNOWLEDGE_BASE,
    "knowledge_base.deleted": fields("id, title, type, deleted_at"),
    "knowledge_base.processing.completed": PROCESSING,
    "knowledge_base.processing.failed": PROCESSING,
    "ticket.created": TICKET,
    "ticket.updated": TICKET,
    "ticket.closed": TICKET,
    "ticket.replied": fields("ticket_id, ticket_subject, reply_id, reply, type, user_id, created_at"),
    "ai_agent.created": AI_AGENT,
    "ai_agent.updated": AI_AGENT,
    "ai_agent.deleted": fields("id, name, deleted_at"),
    "booking.created": BOOKING,
    "booking.updated": BOOKING,
    "booking.cancelled": fields(
        "id, status, customer_name, customer_phone, booking_date, start_time, cancelled_at, cancellation_reason, "
        "created_at, updated_at"
    ),
    "booking.completed": BOOKING,
    "order.created": ORDER,
    "order.updated": ORDER,
    "order.cancelled": fields(
        "id, status, customer_name, customer_phone, total, currency, cancelled_at, cancellation_reason, items, "
        "created_at, updated_at"
    ),
    "order.delivered": ORDER,
    "webhook.test": fields("message, webhook_id, webhook_name"),
}
"""SPEC 6, Event catalogue and payload fields: every row, in the spec's order."""

NOT_YET_BUILT: frozenset[str] = frozenset(
    {
        "campaign.started",
        "campaign.completed",
        "campaign.paused",
        "campaign.cancelled",
        "campaign.failed",
        "knowledge_base.updated",
        "knowledge_base.deleted",
        "knowledge_base.processing.completed",
        "knowledge_base.processing.failed",
        "ai_agent.created",
        "ai_agent.updated",
        "ai_agent.deleted",
    }
)
"""Events of areas not built yet. Later issues add a trigger below and remove the event from here."""


class World:
    """One account subscribed to every event, over the in-memory fakes."""

    def __init__(self) -> None:
        self.uow = InMemoryUnitOfWorkFactory()
        self.store: InMemoryStore = self.uow.store
        clock = FakeClock()
        self.sandbox = SandboxGateway(clock)
        self.services = Services.build(
            self.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), gateway=self.sandbox
        )
        self.sandbox.attach(self.services.inbox)
        self.account = self.services.accounts.create("Acme").account.id
        self.webhook = self.services.webhooks.create(
            self.account, WebhookInput(name="All", url="https://hooks.example.com/in")
        ).subscription.id

    def queued(self, event: str) -> list[Mapping[str, Any]]:
        """The payloads queued for delivery of `event`, oldest first."""
        rows = sorted(self.store.state.of(WebhooksTables).attempts.values(), key=lambda r: r.attempt.id)
        return [r.payload for r in rows if r.attempt.event_type == event]

    def contact(self) -> int:
        return self.services.contacts.create(
            self.account, ContactInput(name="Ada", type="whatsapp", phone="+966501234567")
        ).id

    def product(self) -> int:
        catalog = CatalogInput(title="Menu", products=[ProductInput("Tea", price="3.50", stock_quantity=10)])
        return self.services.knowledge_base.create_catalog(self.account, catalog).products[0].id

    def order(self, *statuses: str) -> int:
        """A new API order for the contact, moved through `statuses`."""
        items = [ItemRequest(self.product(), 2)]
        order_id = self.services.orders.create(self.account, OrderInput(items, contact_id=self.contact())).order.id
        for status in statuses:
            self.services.orders.update(self.account, order_id, OrderPatch(status=status))
        return order_id


def _contact_created(world: World) -> None:
    world.contact()


def _contact_updated(world: World) -> None:
    world.services.contacts.update(world.account, world.contact(), ContactPatch(name="Ada L."))


def _contact_blacklisted(world: World) -> None:
    world.services.contacts.toggle_blacklist(world.account, world.contact())


def _contact_tagged(world: World) -> None:
    world.services.contacts.assign_tag(world.account, world.contact(), TagAssignment(title="VIP"))


def _contact_deleted(world: World) -> None:
    world.services.contacts.delete(world.account, world.contact())


def _webhook_tested(world: World) -> None:
    world.services.webhooks.send_test(world.account, world.webhook)


def _catalog_created(world: World) -> None:
    world.product()


def _catalog_uploaded(world: World) -> None:
    catalog = CatalogInput(title="Menu", csv_file="name,price\nTea,3\n")
    world.services.knowledge_base.create_catalog(world.account, catalog)


def _order_placed(world: World) -> None:
    world.order()


def _store_order_imported(world: World) -> None:
    items = [StoreOrderItemInput("Tea", 1, "3.50")]
    world.services.orders.import_store_order(world.account, StoreOrderInput("shop-1", "Ada", items))


def _order_confirmed(world: World) -> None:
    world.order("confirmed")


def _order_noted(world: World) -> None:
    world.services.orders.update(world.account, world.order(), OrderPatch(notes="Ring twice"))


def _order_items_replaced(world: World) -> None:
    order_id = world.order()
    world.services.orders.replace_items(world.account, order_id, [ItemRequest(world.product(), 1)])


def _order_cancelled(world: World) -> None:
    world.services.orders.cancel(world.account, world.order(), "Changed mind")


def _order_cancelled_by_update(world: World) -> None:
    order_id = world.order("confirmed", "processing")
    world.services.orders.update(world.account, order_id, OrderPatch(status="cancelled", cancellation_reason="Damaged"))


def _order_delivered(world: World) -> None:
    world.order("confirmed", "processing", "shipped", "delivered")


def _open_ticket(world: World) -> int:
    return world.services.tickets.create(world.account, TicketInput("Login fails", "Since this morning.")).id


def _ticket_opened(world: World) -> None:
    _open_ticket(world)


def _ticket_replied_by_client(world: World) -> None:
    world.services.tickets.reply(world.account, _open_ticket(world), "More details.")


def _ticket_answered_by_operator(world: World) -> None:
    world.services.tickets.reply(world.account, _open_ticket(world), "Fixed.", type="admin")


def _ticket_reprioritised(world: World) -> None:
    world.services.tickets.update(world.account, _open_ticket(world), TicketPatch(priority="high"))


def _ticket_closed(world: World) -> None:
    world.services.tickets.close(world.account, _open_ticket(world))


def _booking(world: World) -> int:
    """A confirmed booking starting now (the world's clock stands still; the default hours are
    open around the clock), so it can also be completed at once."""
    booking_type = world.services.booking_setup.create_type(world.account, BookingTypeInput("Visit", 30)).id
    data = BookingInput(contact_id=world.contact(), booking_type_id=booking_type, starts_at=FakeClock().now())
    return world.services.bookings.create(world.account, data).id


def _booking_made(world: World) -> None:
    _booking(world)


def _booking_rescheduled(world: World) -> None:
    booking = world.services.bookings.get(world.account, _booking(world))
    world.services.bookings.update(world.account, booking.id, BookingPatch(starts_at=booking.ends_at))


def _booking_cancelled(world: World) -> None:
    world.services.bookings.cancel(world.account, _booking(world))


def _booking_completed(world: World) -> None:
    world.services.bookings.complete(world.account, _booking(world))


def _whatsapp_connected(world: World) -> str:
    """Connect WhatsApp through the sandbox (QR, scan); the provider account id."""
    pid = world.services.channels.connect_qr(world.account, "whatsapp").channel.provider_account_id or ""
    world.sandbox.scan(pid)
    return pid


def _channel_connected(world: World) -> None:
    _whatsapp_connected(world)


def _channel_logged_in(world: World) -> None:
    world.services.channels.connect_credentials(world.account, "instagram", CredentialsInput("acme", "secret"))


def _channel_lost(world: World) -> None:
    world.sandbox.set_status(_whatsapp_connected(world), "CREDENTIALS", "Logged out on the phone")


def _channel_disconnected(world: World) -> None:
    _whatsapp_connected(world)
    world.services.channels.disconnect(world.account, "whatsapp")


def _qr_refused(world: World) -> None:
    pid = world.services.channels.connect_qr(world.account, "telegram").channel.provider_account_id or ""
    world.sandbox.fail(pid)


def _login_refused(world: World) -> None:
    with pytest.raises(ValidationFailed):
        world.services.channels.connect_credentials(world.account, "instagram", CredentialsInput("acme", "wrong"))


def _message_received(world: World) -> None:
    world.sandbox.inject_message(_whatsapp_connected(world), "+966501234567", "Hello")


def _message_sent(world: World) -> None:
    _whatsapp_connected(world)
    world.services.messages.send(world.account, SendInput(world.contact(), "Hello"))


TRIGGERS: dict[str, list[Callable[[World], None]]] = {
    "contact.created": [_contact_created],
    "contact.updated": [_contact_updated, _contact_blacklisted, _contact_tagged],
    "contact.deleted": [_contact_deleted],
    "webhook.test": [_webhook_tested],
    "knowledge_base.created": [_catalog_created, _catalog_uploaded],
    "order.created": [_order_placed, _store_order_imported],
    "order.updated": [_order_confirmed, _order_noted, _order_items_replaced],
    "order.cancelled": [_order_cancelled, _order_cancelled_by_update],
    "order.delivered": [_order_delivered],
    "booking.created": [_booking_made],
    "booking.updated": [_booking_rescheduled, _booking_cancelled, _booking_completed],
    "booking.cancelled": [_booking_cancelled],
    "booking.completed": [_booking_completed],
    "ticket.created": [_ticket_opened],
    "ticket.updated": [_ticket_answered_by_operator, _ticket_reprioritised],
    "ticket.closed": [_ticket_closed],
    "ticket.replied": [_ticket_replied_by_client, _ticket_answered_by_operator],
    "message.received": [_message_received],
    "message.sent": [_message_sent],
    "channel.connected": [_channel_connected, _channel_logged_in],
    "channel.disconnected": [_channel_lost, _channel_disconnected],
    "channel.error": [_qr_refused, _login_refused],
}
"""For each built event, the real actions that must emit it."""

TRIGGER_CASES = [
    pytest.param(event, trigger, id=f"{event}-{trigger.__name__.strip('_')}")
    for event, triggers in TRIGGERS.items()
    for trigger in triggers
]


@pytest.fixture
def make_world() -> Callable[[], World]:
    """`make_world() -> World`."""
    return World


def test_the_table_has_every_row_of_spec_6() -> None:
    """33 workspace events and webhook.test, none twice."""
    assert len(SPEC_EVENTS) == 34
    assert sum(1 for name in SPEC_EVENTS if name != TEST_EVENT) == 33


def test_the_catalogue_is_the_spec_list() -> None:
    """engage_core.kernel.events.CATALOGUE lists SPEC 6's workspace events, in the spec's order."""
    assert list(CATALOGUE) == [name for name in SPEC_EVENTS if name != TEST_EVENT]


def test_the_events_endpoint_lists_the_spec_events() -> None:
    """GET /webhooks/events offers the events of SPEC 6's table, in its order, then only the extensions."""
    assert WebhookService.event_names() == [*SPEC_EVENTS, *EXTENSIONS]


def test_not_yet_built_is_exactly_the_events_without_a_trigger_test() -> None:
    """Every event is either triggered by a test below or listed as not yet built, never both."""
    assert set(SPEC_EVENTS) - set(TRIGGERS) == NOT_YET_BUILT
    assert not (NOT_YET_BUILT & set(TRIGGERS))


def test_every_trigger_names_a_spec_event() -> None:
    """No trigger test is written for an event the spec does not have."""
    assert set(TRIGGERS) <= set(SPEC_EVENTS)


@pytest.mark.parametrize(("event", "trigger"), TRIGGER_CASES)
def test_the_trigger_emits_the_event(
    make_world: Callable[[], World], event: str, trigger: Callable[[World], None]
) -> None:
    """The real action queues a delivery of the event for a subscriber to everything."""
    world = make_world()
    before = len(world.queued(event))
    trigger(world)
    assert len(world.queued(event)) == before + 1


@pytest.mark.parametrize(("event", "trigger"), TRIGGER_CASES)
def test_the_payload_has_the_spec_fields(
    make_world: Callable[[], World], event: str, trigger: Callable[[World], None]
) -> None:
    """The queued `data` carries at least every field SPEC 6 lists for the event."""
    world = make_world()
    trigger(world)
    payload = world.queued(event)[-1]
    missing = set(SPEC_EVENTS[event]) - set(payload)
    assert not missing, f"{event} lacks {sorted(missing)}"


def test_a_blacklist_toggle_reports_is_blacklist() -> None:
    """contact.updated after POST /contacts/{id}/blacklist carries is_blacklist true."""
    world = World()
    _contact_blacklisted(world)
    assert world.queued("contact.updated")[-1]["is_blacklist"] is True


def test_a_deleted_contact_reports_when() -> None:
    """contact.deleted carries deleted_at as an ISO 8601 UTC timestamp."""
    world = World()
    _contact_deleted(world)
    assert world.queued("contact.deleted")[-1]["deleted_at"].endswith("Z")


def test_a_cancelled_order_reports_why_and_when() -> None:
    """order.cancelled carries the reason and cancelled_at."""
    world = World()
    _order_cancelled(world)
    payload = world.queued("order.cancelled")[-1]
    assert (payload["status"], payload["cancellation_reason"]) == ("cancelled", "Changed mind")
    assert payload["cancelled_at"].endswith("Z")


def test_a_delivered_order_reports_delivered() -> None:
    """order.delivered carries status delivered and the items."""
    world = World()
    _order_delivered(world)
    payload = world.queued("order.delivered")[-1]
    assert (payload["status"], payload["items"][0]["quantity"]) == ("delivered", 2)


def test_a_closed_ticket_reports_closed() -> None:
    """ticket.closed carries status closed and the ticket's reference."""
    world = World()
    _ticket_closed(world)
    payload = world.queued("ticket.closed")[-1]
    assert (payload["status"], payload["ticket_id"]) == ("closed", "TKT-000001")


def test_an_operator_reply_reports_its_type() -> None:
    """ticket.replied of an operator reply carries type admin and no user."""
    world = World()
    _ticket_answered_by_operator(world)
    payload = world.queued("ticket.replied")[-1]
    assert (payload["type"], payload["user_id"], payload["reply"]) == ("admin", None, "Fixed.")
