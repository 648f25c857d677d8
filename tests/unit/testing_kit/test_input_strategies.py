"""The kit's input strategies against the real services over the in-memory fakes: every value a
valid strategy draws is accepted, every value drawn with `invalid=True` is refused with a 422."""

from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engage_core.bookings.setup import BookingTypeInput
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.knowledge.service import CatalogInput
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    InMemoryUnitOfWorkFactory,
)
from engage_core.voice.model import check_text
from engage_core.webchat.sessions import VisitorDetails
from engage_testing import strategies as kit

from ..factories import START

FAST = settings(max_examples=40, deadline=None)


class World:
    """A fresh account over the fakes, with the rows the strategies over ids draw from."""

    def __init__(self) -> None:
        self.clock = FakeClock(START)
        self.services = Services.build(
            InMemoryUnitOfWorkFactory(),
            self.clock,
            cipher=FakeCipher(),
            guard=AllowAllTargets(),
            hasher=FakePasswordHasher(),
            mailer=FakeMailer(),
        )
        self.account = self.services.accounts.create("Acme").account.id

    def partner(self) -> int:
        return self.services.partners.create("Reseller", "ops@reseller.example", client_seats_max=5).partner.id

    def contacts(self, count: int = 2) -> list[int]:
        return [
            self.services.contacts.create(
                self.account, ContactInput(name=f"C{n}", type="whatsapp", phone=f"+96659{n:07d}")
            ).id
            for n in range(count)
        ]

    def products(self) -> list[int]:
        data = CatalogInput(
            "Menu", products=[ProductInput(f"P{n}", price="2.50", stock_quantity=100) for n in range(3)]
        )
        return [p.id for p in self.services.knowledge_base.create_catalog(self.account, data).products]


def _accepts(use: Callable[[World], Callable[[object], object]]) -> Callable[[object], None]:
    def check(value: object) -> None:
        world = World()
        use(world)(value)

    return check


def _refuses(use: Callable[[World], Callable[[object], object]]) -> Callable[[object], None]:
    def check(value: object) -> None:
        world = World()
        call = use(world)
        with pytest.raises(ValidationFailed):
            call(value)

    return check


def _segment(world: World) -> Callable[[kit.SegmentRulesInput], object]:
    return lambda r: world.services.segments.create(
        world.account, r.name, description=r.description, match=r.match, conditions=list(r.conditions)
    )


def _patch_contact(world: World) -> Callable[[object], object]:
    contact = world.contacts(1)[0]
    return lambda patch: world.services.contacts.update(world.account, contact, patch)  # type: ignore[arg-type]


def _order(world: World, lines_only: bool = False) -> Callable[[object], object]:
    from engage_core.commerce.order_service import OrderInput

    if lines_only:
        return lambda items: world.services.orders.create(world.account, OrderInput(items, customer_name="Ada"))  # type: ignore[arg-type]
    return lambda data: world.services.orders.create(world.account, data)  # type: ignore[arg-type]


def _reply(world: World) -> Callable[[object], object]:
    ticket = world.services.tickets.create(world.account, TicketInput("Help", "It broke.")).id
    return lambda text: world.services.tickets.reply(world.account, ticket, text)  # type: ignore[arg-type]


def _new_client(world: World) -> Callable[[object], object]:
    partner = world.partner()
    return lambda data: world.services.partner_clients.create(partner, data)  # type: ignore[arg-type]


def _patch_client(world: World) -> Callable[[object], object]:
    partner = world.partner()
    data = ClientInput("Bakery", "starter", AdminInput("Ada", "Lovelace", "ada@bakery.example"))
    client = world.services.partner_clients.create(partner, data).client.id
    return lambda patch: world.services.partner_clients.update(partner, client, patch)  # type: ignore[arg-type]


def _visitor_message(world: World) -> Callable[[object], object]:
    token = world.services.web_chat.start(world.account, VisitorDetails()).token
    return lambda text: world.services.web_chat.visitor_send(world.account, token, text)  # type: ignore[arg-type]


def _memory(world: World) -> Callable[[object], object]:
    contact = world.contacts(1)[0]
    return lambda fact: world.services.contact_memories.add(world.account, contact, fact)  # type: ignore[arg-type]


SIMPLE: dict[str, tuple[Callable[..., st.SearchStrategy[object]], Callable[[World], Callable[[object], object]]]] = {
    "contact": (kit.contact_inputs, lambda w: lambda d: w.services.contacts.create(w.account, d)),
    "contact patch": (kit.contact_patches, _patch_contact),
    "tag": (kit.tag_titles, lambda w: lambda t: w.services.tags.create(w.account, t)),
    "segment": (kit.segment_rules, _segment),
    "product": (
        kit.product_inputs,
        lambda w: lambda p: w.services.knowledge_base.create_catalog(w.account, CatalogInput("Menu", products=[p])),
    ),
    "catalog": (kit.catalog_inputs, lambda w: lambda c: w.services.knowledge_base.create_catalog(w.account, c)),
    "catalog csv": (
        kit.catalog_csv_files,
        lambda w: lambda f: w.services.knowledge_base.create_catalog(w.account, CatalogInput("Menu", csv_file=f)),
    ),
    "booking type": (kit.booking_type_inputs, lambda w: lambda d: w.services.booking_setup.create_type(w.account, d)),
    "working hours": (
        kit.working_hours_inputs,
        lambda w: lambda d: w.services.booking_setup.set_working_hours(w.account, d),
    ),
    "ticket": (kit.ticket_inputs, lambda w: lambda d: w.services.tickets.create(w.account, d)),
    "ticket reply": (kit.ticket_replies, _reply),
    "webhook": (kit.webhook_inputs, lambda w: lambda d: w.services.webhooks.create(w.account, d)),
    "knowledge entry": (
        kit.knowledge_entries,
        lambda w: lambda d: w.services.knowledge_entries.create_text(w.account, d),
    ),
    "agent": (kit.agent_settings, lambda w: lambda d: w.services.ai_agents.create(w.account, d)),
    "memory fact": (kit.memory_facts, _memory),
    "partner client": (kit.client_inputs, _new_client),
    "partner client patch": (kit.client_patches, _patch_client),
    "voice settings": (kit.voice_patches, lambda w: lambda p: w.services.voice.update(w.account, p)),
    # The text rule of POST /voice/tts; speaking it needs a synthesizer and a plan with minutes.
    "speech text": (kit.speech_texts, lambda w: check_text),
    "web chat visitor": (kit.visitor_details, lambda w: lambda d: w.services.web_chat.start(w.account, d)),
    "web chat message": (kit.visitor_messages, _visitor_message),
    "web chat widget": (kit.widget_patches, lambda w: lambda p: w.services.web_chat.update_widget(w.account, p)),
}


@pytest.mark.parametrize("name", sorted(SIMPLE))
def test_valid_inputs_are_accepted(name: str) -> None:
    """Every value a valid strategy draws is accepted by its service."""
    strategy, use = SIMPLE[name]
    FAST(given(strategy())(_accepts(use)))()


@pytest.mark.parametrize("name", sorted(SIMPLE))
def test_invalid_inputs_are_refused(name: str) -> None:
    """Every value drawn with invalid=True is refused with a ValidationFailed (422)."""
    strategy, use = SIMPLE[name]
    FAST(given(strategy(invalid=True))(_refuses(use)))()


# Strategies over existing rows draw from the ids of the world's rows, known once it is made.


@FAST
@given(data=st.data(), invalid=st.booleans())
def test_order_items_over_existing_products(data: st.DataObject, invalid: bool) -> None:
    """Valid order items over existing products place an order; invalid ones are refused with a 422."""
    world = World()
    items = data.draw(kit.order_items(world.products(), invalid=invalid))
    _expect(not invalid, lambda: _order(world, lines_only=True)(items))


@FAST
@given(data=st.data(), invalid=st.booleans())
def test_orders_over_existing_products_and_contacts(data: st.DataObject, invalid: bool) -> None:
    """Valid orders over existing products and contacts are placed; invalid ones are refused."""
    world = World()
    contacts, products = world.contacts(), world.products()
    _expect(
        not invalid, lambda: _order(world)(data.draw(kit.order_inputs(products, contact_ids=contacts, invalid=invalid)))
    )


@FAST
@given(data=st.data(), invalid=st.booleans())
def test_booking_requests(data: st.DataObject, invalid: bool) -> None:
    """A valid booking request is accepted in an empty calendar under the default hours; an invalid
    one is refused."""
    world = World()
    contacts = world.contacts()
    kind = world.services.booking_setup.create_type(world.account, BookingTypeInput("Visit", 30)).id
    request = data.draw(kit.booking_requests(contacts, [kind], after=world.clock.now(), invalid=invalid))
    _expect(not invalid, lambda: world.services.bookings.create(world.account, request))


@FAST
@given(data=st.data(), invalid=st.booleans())
def test_campaigns_over_existing_audiences(data: st.DataObject, invalid: bool) -> None:
    """A valid campaign over existing contacts, lists and segments is created as a draft; an invalid
    one is refused."""
    world = World()
    contacts = world.contacts()
    lists = [world.services.lists.create(world.account, "Regulars").id]
    segments = [world.services.segments.create(world.account, "Everyone").id]
    campaign = data.draw(kit.campaign_inputs(contacts, lists, segments, invalid=invalid))
    _expect(not invalid, lambda: world.services.campaigns.create(world.account, campaign))


@FAST
@given(data=st.data())
def test_booking_requests_start_on_a_quarter_hour_from_after(data: st.DataObject) -> None:
    """Valid booking requests start after the moment given, on a quarter hour, by 19:45 local time."""
    request = data.draw(kit.booking_requests([1], [1], after=START, timezone="Asia/Kolkata"))
    local = request.starts_at.astimezone(ZoneInfo("Asia/Kolkata"))
    assert request.starts_at > START
    assert local.minute % 15 == 0 and local.second == 0 and local.hour < 20


def _expect(accepted: bool, call: Callable[[], object]) -> None:
    if accepted:
        call()
    else:
        with pytest.raises(ValidationFailed):
            call()
