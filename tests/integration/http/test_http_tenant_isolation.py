"""Tenant isolation (SPEC 1.7), generated from the route table.

For every operation with an id in its path, a request naming another account's resource answers 404
and changes nothing in the store. `SCENARIOS` says which resource each path parameter names and what
body to send (valid for the intruder, so that the only reason to refuse is tenancy); the meta-test
fails when an operation with an id parameter has no scenario.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import attrs
import pytest
from http_support import Api, Tenant

from engage_core.agents.model import AgentInput
from engage_core.bookings.model import Booking
from engage_core.bookings.setup import BookingType, Resource
from engage_core.campaigns.service import CampaignInput
from engage_core.commerce.orders import Order
from engage_core.contacts.model import Contact
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.service import CatalogResult
from engage_core.knowledge.websites import WebsiteInput
from engage_core.media.model import MediaUpload
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.support.tickets import Ticket
from engage_core.team.model import TeamMember
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_core.webchat.sessions import VisitorDetails
from engage_core.webhooks.model import Attempt
from engage_core.webhooks.service import RevealedSecret
from engage_http.areas import OPERATIONS
from engage_http.operations import Operation

PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
"""A PNG as the fake prober sees it (by its signature)."""
ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""


@attrs.frozen
class Resources:
    """One account's resources, by kind: a contact (tagged, in the list and the segment, with a note),
    its tag, a list, a segment, a webhook and a failed delivery of it (by `delivery_id`), a product
    catalogue with one product, and a pending order of that product; an open support ticket and a
    team member; a booking type, a resource, a confirmed booking of the contact on it that has
    started (so it can be completed) and a pending one tomorrow; an AI agent that is not the default
    (so it can be deleted); a media file; a web chat session; a memory of the contact."""

    contact: int
    tag: int
    list: int
    segment: int
    webhook: int
    delivery: str
    catalog: int
    product: int
    website: int
    text: int
    chunk: int
    order: int
    ticket: int
    member: int
    booking_type: int
    resource: int
    booking: int
    pending_booking: int
    agent: int
    campaign: int
    running_campaign: int
    paused_campaign: int
    media: int
    web_chat_session: str
    memory: int


@attrs.frozen
class Scenario:
    """Which kind of resource each path parameter names, and the body (built from the intruder's own)."""

    params: Mapping[str, str]
    body: Callable[[Resources], Any] | None = None


CONTACT = {"id": "contact"}
WEBHOOK = {"id": "webhook"}
TEXT = {"id": "text"}
CHUNK = {"id": "text", "chunk_id": "chunk"}
ORDER = {"id": "order"}
TICKET = {"id": "ticket"}
MEMBER = {"id": "member"}
BOOKING = {"id": "booking"}
BOOKING_TYPE = {"id": "booking_type"}
RESOURCE = {"id": "resource"}
AGENT = {"id": "agent"}
CAMPAIGN = {"id": "campaign"}
WEB_CHAT = {"session_id": "web_chat_session"}
WEB_CHAT_SESSION = "/web-chat/sessions/{session_id:web_chat_session}"
OPENING_HOURS = {"weekly": {"monday": [{"opens": "09:00", "closes": "17:00"}]}}
SCENARIOS: Mapping[tuple[str, str], Scenario] = {
    ("GET", "/contacts/{id:id}"): Scenario(CONTACT),
    ("PUT", "/contacts/{id:id}"): Scenario(CONTACT, lambda own: {"name": "Hijacked"}),
    ("DELETE", "/contacts/{id:id}"): Scenario(CONTACT),
    ("POST", "/contacts/{id:id}/blacklist"): Scenario(CONTACT),
    ("GET", "/contacts/{id:id}/notes"): Scenario(CONTACT),
    ("POST", "/contacts/{id:id}/notes"): Scenario(CONTACT, lambda own: {"content": "Hijacked"}),
    ("GET", "/contacts/{id:id}/memories"): Scenario(CONTACT),
    ("POST", "/contacts/{id:id}/memories"): Scenario(CONTACT, lambda own: {"fact": "Lives in Riyadh"}),
    ("DELETE", "/contacts/{id:id}/memories/{memory_id:id}"): Scenario({"id": "contact", "memory_id": "memory"}),
    ("POST", "/contacts/{id:id}/lists"): Scenario(CONTACT, lambda own: {"list_id": own.list}),
    ("DELETE", "/contacts/{id:id}/lists/{list_id:id}"): Scenario({"id": "contact", "list_id": "list"}),
    ("POST", "/contacts/{id:id}/segments"): Scenario(CONTACT, lambda own: {"segment_id": own.segment}),
    ("DELETE", "/contacts/{id:id}/segments/{segment_id:id}"): Scenario({"id": "contact", "segment_id": "segment"}),
    ("POST", "/contacts/{id:id}/tags"): Scenario(CONTACT, lambda own: {"tag_id": own.tag}),
    ("DELETE", "/contacts/{id:id}/tags/{tag_id:id}"): Scenario({"id": "contact", "tag_id": "tag"}),
    ("GET", "/tags/{id:id}"): Scenario({"id": "tag"}),
    ("PUT", "/tags/{id:id}"): Scenario({"id": "tag"}, lambda own: {"title": "Hijacked"}),
    ("DELETE", "/tags/{id:id}"): Scenario({"id": "tag"}),
    ("GET", "/contacts/lists/{id:id}"): Scenario({"id": "list"}),
    ("PUT", "/contacts/lists/{id:id}"): Scenario({"id": "list"}, lambda own: {"name": "Hijacked", "status": 0}),
    ("DELETE", "/contacts/lists/{id:id}"): Scenario({"id": "list"}),
    ("GET", "/contacts/lists/{id:id}/members"): Scenario({"id": "list"}),
    ("GET", "/contacts/segments/{id:id}"): Scenario({"id": "segment"}),
    ("PUT", "/contacts/segments/{id:id}"): Scenario({"id": "segment"}, lambda own: {"name": "Hijacked"}),
    ("DELETE", "/contacts/segments/{id:id}"): Scenario({"id": "segment"}),
    ("GET", "/contacts/segments/{id:id}/members"): Scenario({"id": "segment"}),
    ("GET", "/webhooks/{id:id}"): Scenario(WEBHOOK),
    ("PUT", "/webhooks/{id:id}"): Scenario(WEBHOOK, lambda own: {"name": "Hijacked", "is_active": False}),
    ("DELETE", "/webhooks/{id:id}"): Scenario(WEBHOOK),
    ("POST", "/webhooks/{id:id}/test"): Scenario(WEBHOOK),
    ("GET", "/webhooks/{id:id}/deliveries"): Scenario(WEBHOOK),
    ("POST", "/webhooks/{id:id}/regenerate-secret"): Scenario(WEBHOOK),
    ("POST", "/webhooks/{id:id}/deliveries/{delivery_id:uuid}/redeliver"): Scenario(
        {"id": "webhook", "delivery_id": "delivery"}
    ),
    ("POST", "/knowledge-base/{id:id}/products"): Scenario(
        {"id": "catalog"}, lambda own: {"products": [{"product_name": "Hijacked"}]}
    ),
    ("DELETE", "/knowledge-base/{id:id}/products/{product_id:id}"): Scenario(
        {"id": "catalog", "product_id": "product"}
    ),
    ("POST", "/knowledge-base/{id:id}/recrawl"): Scenario({"id": "website"}),
    ("GET", "/knowledge-base/{id:id}"): Scenario(TEXT),
    ("PUT", "/knowledge-base/{id:id}"): Scenario(TEXT, lambda own: {"title": "Hijacked", "content": "Hijacked"}),
    ("DELETE", "/knowledge-base/{id:id}"): Scenario(TEXT),
    ("GET", "/knowledge-base/{id:id}/chunks"): Scenario(TEXT),
    ("POST", "/knowledge-base/{id:id}/chunks"): Scenario(TEXT, lambda own: {"content": "Hijacked"}),
    ("GET", "/knowledge-base/{id:id}/chunks/{chunk_id:id}"): Scenario(CHUNK),
    ("PUT", "/knowledge-base/{id:id}/chunks/{chunk_id:id}"): Scenario(CHUNK, lambda own: {"content": "Hijacked"}),
    ("DELETE", "/knowledge-base/{id:id}/chunks/{chunk_id:id}"): Scenario(CHUNK),
    ("GET", "/knowledge-base/{id:id}/status"): Scenario({"id": "website"}),
    ("GET", "/orders/{id:id}"): Scenario(ORDER),
    ("PUT", "/orders/{id:id}"): Scenario(ORDER, lambda own: {"status": "confirmed", "notes": "Hijacked"}),
    ("POST", "/orders/{id:id}/cancel"): Scenario(ORDER, lambda own: {"reason": "Hijacked"}),
    ("PUT", "/orders/{id:id}/items"): Scenario(
        ORDER, lambda own: {"items": [{"product_id": own.product, "quantity": 1}]}
    ),
    ("GET", "/tickets/{id:id}"): Scenario(TICKET),
    ("POST", "/tickets/{id:id}/reply"): Scenario(TICKET, lambda own: {"reply": "Hijacked"}),
    ("POST", "/tickets/{id:id}/close"): Scenario(TICKET),
    ("GET", WEB_CHAT_SESSION): Scenario(WEB_CHAT),
    ("POST", WEB_CHAT_SESSION + "/take-over"): Scenario(WEB_CHAT),
    ("POST", WEB_CHAT_SESSION + "/release"): Scenario(WEB_CHAT),
    ("POST", WEB_CHAT_SESSION + "/messages"): Scenario(WEB_CHAT, lambda own: {"message": "Hijacked"}),
    ("POST", WEB_CHAT_SESSION + "/end"): Scenario(WEB_CHAT),
    ("GET", "/team/{id:id}"): Scenario(MEMBER),
    ("PUT", "/team/{id:id}"): Scenario(MEMBER, lambda own: {"name": "Hijacked", "role": "admin"}),
    ("DELETE", "/team/{id:id}"): Scenario(MEMBER),
    ("GET", "/bookings/{id:id}"): Scenario(BOOKING),
    ("PUT", "/bookings/{id:id}"): Scenario(BOOKING, lambda own: {"notes": "Hijacked"}),
    ("POST", "/bookings/{id:id}/cancel"): Scenario(BOOKING, lambda own: {"reason": "Hijacked"}),
    ("POST", "/bookings/{id:id}/confirm"): Scenario({"id": "pending_booking"}),
    ("POST", "/bookings/{id:id}/complete"): Scenario(BOOKING),
    ("GET", "/bookings/types/{id:id}"): Scenario(BOOKING_TYPE),
    ("PUT", "/bookings/types/{id:id}"): Scenario(BOOKING_TYPE, lambda own: {"name": "Hijacked"}),
    ("POST", "/bookings/types/{id:id}/deactivate"): Scenario(BOOKING_TYPE),
    ("GET", "/bookings/resources/{id:id}"): Scenario(RESOURCE),
    ("PUT", "/bookings/resources/{id:id}"): Scenario(RESOURCE, lambda own: {"name": "Hijacked"}),
    ("POST", "/bookings/resources/{id:id}/deactivate"): Scenario(RESOURCE),
    ("GET", "/bookings/resources/{id:id}/working-hours"): Scenario(RESOURCE),
    ("PUT", "/bookings/resources/{id:id}/working-hours"): Scenario(RESOURCE, lambda own: OPENING_HOURS),
    ("DELETE", "/bookings/resources/{id:id}/working-hours"): Scenario(RESOURCE),
    ("GET", "/ai-agents/{id:id}"): Scenario(AGENT),
    ("PUT", "/ai-agents/{id:id}"): Scenario(AGENT, lambda own: {"name": "Hijacked", "is_active": False}),
    ("DELETE", "/ai-agents/{id:id}"): Scenario(AGENT),
    ("POST", "/ai-agents/{id:id}/set-default"): Scenario(AGENT),
    ("POST", "/ai-agents/{id:id}/assign"): Scenario(AGENT, lambda own: {"contact_ids": [own.contact]}),
    ("GET", "/media/{id:id}"): Scenario({"id": "media"}),
    ("PUT", "/media/{id:id}"): Scenario({"id": "media"}, lambda own: {"name": "Hijacked"}),
    ("DELETE", "/media/{id:id}"): Scenario({"id": "media"}),
    ("GET", "/contacts/{contact_id:id}/messages"): Scenario({"contact_id": "contact"}),
    ("GET", "/campaigns/{id:id}"): Scenario(CAMPAIGN),
    ("PUT", "/campaigns/{id:id}"): Scenario(CAMPAIGN, lambda own: {"name": "Hijacked"}),
    ("DELETE", "/campaigns/{id:id}"): Scenario(CAMPAIGN),
    ("POST", "/campaigns/{id:id}/start"): Scenario(CAMPAIGN),
    ("POST", "/campaigns/{id:id}/pause"): Scenario({"id": "running_campaign"}),
    ("POST", "/campaigns/{id:id}/resume"): Scenario({"id": "paused_campaign"}),
    ("POST", "/campaigns/{id:id}/cancel"): Scenario({"id": "running_campaign"}),
    ("GET", "/campaigns/{id:id}/contacts"): Scenario({"id": "running_campaign"}),
    ("POST", "/conversations/{contact_id:id}/read"): Scenario({"contact_id": "contact"}),
    ("GET", "/conversations/{contact_id:id}/handling"): Scenario({"contact_id": "contact"}),
    ("POST", "/conversations/{contact_id:id}/take-over"): Scenario(
        {"contact_id": "contact"}, lambda own: {"team_member_id": own.member}
    ),
    ("POST", "/conversations/{contact_id:id}/release"): Scenario({"contact_id": "contact"}),
}

WITH_IDS = [op for op in OPERATIONS if op.path_params]


def label(operation: Operation) -> str:
    return f"{operation.method} {operation.openapi_path}"


def _crawled_website(services: Services, tenant: Tenant, clock: FakeClock) -> int:
    """A website entry whose crawl has ended (so its owner may crawl it again)."""
    created = services.websites.create(
        tenant.account_id, WebsiteInput(title="Site", website_url="https://example.com/")
    )
    with services.dependencies.uow.workspace(tenant.account_id) as uow:
        uow.knowledge_websites.save(
            attrs.evolve(created.website, crawl_status="completed", progress_pct=100), clock.now()
        )
        uow.commit()
    return created.knowledge_base.id


@pytest.fixture
def make_resources(
    services: Services,
    make_contact: Callable[..., Contact],
    make_webhook: Callable[..., RevealedSecret],
    make_failed_delivery: Callable[[Tenant, int], Attempt],
    make_catalog: Callable[..., CatalogResult],
    make_order: Callable[..., Order],
    make_ticket: Callable[..., Ticket],
    make_member: Callable[..., TeamMember],
    make_booking_type: Callable[..., BookingType],
    make_resource: Callable[..., Resource],
    make_booking: Callable[..., Booking],
    clock: FakeClock,
    sandbox: SandboxGateway,
) -> Callable[[Tenant], Resources]:
    def campaigns(tenant: Tenant, contact: int) -> tuple[int, int, int]:
        """A draft, a running and a paused campaign of the contact, on a connected WhatsApp channel."""
        sandbox.scan(services.channels.connect_qr(tenant.account_id, "whatsapp").channel.provider_account_id or "")
        made = [
            services.campaigns.create(tenant.account_id, CampaignInput(f"C{n}", "whatsapp", "Hi", (contact,))).id
            for n in range(3)
        ]
        services.campaigns.start(tenant.account_id, made[1])
        services.campaigns.start(tenant.account_id, made[2])
        services.campaigns.pause(tenant.account_id, made[2])
        return made[0], made[1], made[2]

    def make(tenant: Tenant) -> Resources:
        contact = make_contact(tenant, tags=["VIP"])
        [tag] = services.tags.list(tenant.account_id, ALL_TAGS).items
        contact_list = services.lists.create(tenant.account_id, "Newsletter")
        segment = services.segments.create(tenant.account_id, "Manual")
        services.contacts.add_to_list(tenant.account_id, contact.id, contact_list.id)
        services.contacts.add_to_segment(tenant.account_id, contact.id, segment.id)
        services.contacts.add_note(tenant.account_id, contact.id, "Private")
        webhook = make_webhook(tenant).subscription
        failed = make_failed_delivery(tenant, webhook.id)
        catalog = make_catalog(tenant, products=[{"product_name": "Kettle", "price": 30, "stock_quantity": 10}])
        [product] = catalog.products
        order = make_order(tenant, [(product.id, 1)], contact_id=contact.id)
        booking_type, resource = make_booking_type(tenant), make_resource(tenant)
        booking = make_booking(tenant, contact.id, booking_type.id, clock.now())  # starts now: completable
        pending = make_booking(tenant, contact.id, booking_type.id, clock.now() + timedelta(days=1), status="pending")
        text = services.knowledge_entries.create_text(tenant.account_id, TextInput("Returns", "Refunds in 30 days."))
        draft, running, paused = campaigns(tenant, contact.id)
        return Resources(
            contact=contact.id,
            tag=tag.id,
            list=contact_list.id,
            segment=segment.id,
            webhook=webhook.id,
            delivery=failed.delivery_id,
            catalog=catalog.knowledge_base.id,
            product=product.id,
            website=_crawled_website(services, tenant, clock),
            text=text.id,
            chunk=services.knowledge_chunks.list(tenant.account_id, text.id).chunks[0].id,
            order=order.id,
            ticket=make_ticket(tenant).id,
            member=make_member(tenant, email="same@example.com").id,
            booking_type=booking_type.id,
            resource=resource.id,
            booking=booking.id,
            pending_booking=pending.id,
            agent=services.ai_agents.create(tenant.account_id, AgentInput("Concierge", "Be kind.")).id,
            campaign=draft,
            running_campaign=running,
            paused_campaign=paused,
            media=services.media.upload(tenant.account_id, MediaUpload("logo.png", [PNG])).id,
            web_chat_session=services.web_chat.start(tenant.account_id, VisitorDetails()).session.session_id,
            memory=services.contact_memories.add(tenant.account_id, contact.id, "Prefers e-mail").id,
        )

    return make


@pytest.fixture
def owner(make_tenant: Callable[..., Tenant]) -> Tenant:
    return make_tenant("Owner")


@pytest.fixture
def intruder(make_tenant: Callable[..., Tenant]) -> Tenant:
    return make_tenant("Intruder")


def request_for(operation: Operation, target: Resources, own: Resources) -> tuple[str, dict[str, Any]]:
    """The path naming `target`'s resources, and the keyword arguments (body) built from `own`."""
    scenario = SCENARIOS[(operation.method, operation.path)]
    path = operation.openapi_path.format(**{name: getattr(target, kind) for name, kind in scenario.params.items()})
    kwargs = {} if scenario.body is None else {"json": scenario.body(own)}
    return path, kwargs


@pytest.mark.parametrize("operation", WITH_IDS, ids=label)
def test_another_accounts_resource_is_404_and_untouched(
    operation: Operation,
    owner: Tenant,
    intruder: Tenant,
    make_resources: Callable[[Tenant], Resources],
    client_for: Callable[[Tenant], Api],
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """An id of another account answers 404 and leaves every stored row and event as it was."""
    theirs, mine = make_resources(owner), make_resources(intruder)
    path, kwargs = request_for(operation, target=theirs, own=mine)
    before = copy.deepcopy(uow.store.state)

    response = client_for(intruder).request(operation.method, path, **kwargs)

    assert response.status_code == 404, response.text
    assert response.json()["success"] is False
    assert uow.store.state == before


@pytest.mark.parametrize("operation", WITH_IDS, ids=label)
def test_the_same_request_succeeds_for_the_owner(
    operation: Operation,
    owner: Tenant,
    make_resources: Callable[[Tenant], Resources],
    client_for: Callable[[Tenant], Api],
) -> None:
    """Each isolation scenario is a valid request for the resources' owner (so its 404 is tenancy alone)."""
    mine = make_resources(owner)
    path, kwargs = request_for(operation, target=mine, own=mine)

    response = client_for(owner).request(operation.method, path, **kwargs)

    assert 200 <= response.status_code < 300, response.text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/contacts/{contact}/lists", lambda theirs: {"list_id": theirs.list}),
        ("/contacts/{contact}/segments", lambda theirs: {"segment_id": theirs.segment}),
        ("/contacts/{contact}/tags", lambda theirs: {"tag_id": theirs.tag}),
    ],
)
def test_a_body_reference_to_another_account_is_404(
    path: str,
    body: Callable[[Resources], dict[str, int]],
    owner: Tenant,
    intruder: Tenant,
    make_resources: Callable[[Tenant], Resources],
    client_for: Callable[[Tenant], Api],
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """Naming another account's list, segment or tag in a body answers 404 and changes nothing."""
    theirs, mine = make_resources(owner), make_resources(intruder)
    before = copy.deepcopy(uow.store.state)

    response = client_for(intruder).post(path.format(contact=mine.contact), json=body(theirs))

    assert response.status_code == 404
    assert uow.store.state == before


def test_every_operation_with_an_id_has_an_isolation_scenario() -> None:
    """The route table and `SCENARIOS` name the same operations with id parameters."""
    in_table = {(op.method, op.path) for op in WITH_IDS}

    assert in_table - set(SCENARIOS) == set(), "operations without an isolation scenario"
    assert set(SCENARIOS) - in_table == set(), "scenarios for operations that no longer exist"


def test_every_scenario_names_each_path_parameter() -> None:
    """A scenario gives a resource kind for exactly the path parameters of its operation."""
    for op in WITH_IDS:
        assert set(SCENARIOS[(op.method, op.path)].params) == set(op.path_params), label(op)
