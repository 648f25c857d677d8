"""Fixtures of the HTTP tests: the app over the in-memory fakes, and factories for what tests need.

Every fixture that makes something is a factory (`make_tenant()`, `make_contact(tenant, ...)`), so a
test states the data it depends on. `api` is a client of the default tenant; `client_for(tenant)`
makes one for any other.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest
from dashboard_support import PASSWORD, PHONE
from http_support import Api, PartnerCaller, Tenant
from starlette.applications import Starlette
from starlette.exceptions import StarletteDeprecationWarning

from engage_connectors.llm.offline import OfflineLanguageModel
from engage_core.bookings.booking_service import BookingInput
from engage_core.bookings.model import Booking
from engage_core.bookings.setup import BookingType, BookingTypeInput, Resource, ResourceInput
from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest, Order
from engage_core.commerce.products import Product, ProductInput
from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact, ContactInput, Note
from engage_core.contacts.segments import Segment
from engage_core.contacts.tags import Tag
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.service import CatalogInput, CatalogResult
from engage_core.knowledge.transcription_fakes import FakeAudioProber, FakeTranscriber
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.channels import QR_CHANNELS, ChannelAccount
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import Ticket
from engage_core.team.model import TeamMember
from engage_core.team.service import MemberInput
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakeMediaProber,
    FakePasswordHasher,
    FakeSender,
    InMemoryBlobStore,
    InMemoryDeliveryQueue,
    InMemoryUnitOfWorkFactory,
)
from engage_core.voice.fakes import FakeCloner, FakeSampleProber, FakeSynthesizer
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.model import RETRY_DELAYS, Attempt, Outcome
from engage_core.webhooks.service import RevealedSecret, WebhookInput
from engage_http import create_app
from engage_http.dashboard import SessionCookies

# Starlette 1.x warns, once, when `starlette.testclient` is imported with httpx rather than httpx2;
# these tests use httpx on purpose. Importing it here first keeps that warning out of every report.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def uow() -> InMemoryUnitOfWorkFactory:
    return InMemoryUnitOfWorkFactory()


@pytest.fixture
def mailer() -> FakeMailer:
    """Records the e-mails the app sends (team invitations)."""
    return FakeMailer()


@pytest.fixture
def sandbox(clock: FakeClock) -> SandboxGateway:
    """The sandbox channel gateway the services send through (attached to their inbox)."""
    return SandboxGateway(clock)


@pytest.fixture
def extractor() -> FakeDocumentExtractor:
    """Reads uploaded documents as UTF-8 text; fails the names it is told to."""
    return FakeDocumentExtractor()


@pytest.fixture
def transcriber() -> FakeTranscriber:
    """Transcribes every voice note as the same English text; fails as it is told to."""
    return FakeTranscriber()


@pytest.fixture
def prober() -> FakeAudioProber:
    """Identifies every voice note as a three-second MP3, or fails as it is told to."""
    return FakeAudioProber()


@pytest.fixture
def blobs() -> InMemoryBlobStore:
    """Where uploaded media are kept (`objects` by key)."""
    return InMemoryBlobStore()


@pytest.fixture
def media_prober() -> FakeMediaProber:
    """Measures every image as 640x480 and every video as a 2 s 1280x720 clip, or fails as told."""
    return FakeMediaProber()


@pytest.fixture
def synthesizer() -> Any:
    """Speaks the built-in voices (fake audio whose length follows the text)."""
    return FakeSynthesizer()


@pytest.fixture
def cloner() -> Any:
    """A cloning provider that clones anything."""
    return FakeCloner()


@pytest.fixture
def sample_prober() -> Any:
    """Reads the samples `engage_core.voice.fakes.fake_sample` makes."""
    return FakeSampleProber()


@pytest.fixture
def services(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    mailer: FakeMailer,
    sandbox: SandboxGateway,
    extractor: FakeDocumentExtractor,
    transcriber: FakeTranscriber,
    prober: FakeAudioProber,
    blobs: InMemoryBlobStore,
    media_prober: Any,
    synthesizer: Any,
    cloner: Any,
    sample_prober: Any,
) -> Services:
    built = Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        hasher=FakePasswordHasher(),
        mailer=mailer,
        gateway=sandbox,
        extractor=extractor,
        transcriber=transcriber,
        prober=prober,
        language_model=OfflineLanguageModel(),
        blobs=blobs,
        media_prober=media_prober,
        synthesizer=synthesizer,
        cloner=cloner,
        sample_prober=sample_prober,
    )
    sandbox.attach(built.inbox)
    return built


@pytest.fixture
def app(services: Services) -> Starlette:
    return create_app(services)


@pytest.fixture
def client(app: Starlette) -> TestClient:
    return TestClient(app)


@pytest.fixture
def make_tenant(services: Services) -> Callable[..., Tenant]:
    """`make_tenant(name="Acme", active=True, origins=())`: a new account and its key."""

    def make(name: str = "Acme", *, active: bool = True, origins: Sequence[str] = ()) -> Tenant:
        issued = services.accounts.create(name)
        if origins:
            services.accounts.set_origins(issued.account.id, origins)
        if not active:
            services.accounts.set_active(issued.account.id, False)
        return Tenant(issued.account.id, issued.api_key)

    return make


@pytest.fixture
def tenant(make_tenant: Callable[..., Tenant]) -> Tenant:
    return make_tenant()


@pytest.fixture
def client_for(client: TestClient) -> Callable[[Tenant], Api]:
    def make(tenant: Tenant) -> Api:
        return Api(client, tenant.headers)

    return make


@pytest.fixture
def api(client_for: Callable[[Tenant], Api], tenant: Tenant) -> Api:
    return client_for(tenant)


@pytest.fixture
def anonymous(client: TestClient) -> Api:
    """A client that sends no key."""
    return Api(client, {})


@pytest.fixture
def make_contact(services: Services) -> Callable[..., Contact]:
    """`make_contact(tenant, name=..., type=..., phone=..., ...)`: a stored contact."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> Contact:
        number = next(counter)
        values: dict[str, Any] = {"name": f"Contact {number}", "type": "instagram"}
        values.update(fields)
        return services.contacts.create(tenant.account_id, ContactInput(**values))

    return make


@pytest.fixture
def make_tag(services: Services) -> Callable[..., Tag]:
    def make(tenant: Tenant, title: str = "VIP") -> Tag:
        return services.tags.create(tenant.account_id, title)

    return make


@pytest.fixture
def make_list(services: Services) -> Callable[..., ContactList]:
    def make(tenant: Tenant, name: str = "Newsletter") -> ContactList:
        return services.lists.create(tenant.account_id, name)

    return make


@pytest.fixture
def make_segment(services: Services) -> Callable[..., Segment]:
    """`make_segment(tenant, name=..., match=..., conditions=[...])`."""

    def make(tenant: Tenant, name: str = "Segment", **fields: Any) -> Segment:
        return services.segments.create(tenant.account_id, name, **fields)

    return make


@pytest.fixture
def make_note(services: Services) -> Callable[..., Note]:
    def make(tenant: Tenant, contact: Contact, content: str = "Called back.") -> Note:
        return services.contacts.add_note(tenant.account_id, contact.id, content)

    return make


@pytest.fixture
def wrong_key() -> str:
    """A well-formed key (right length, prefix and checksum) that no account has."""
    from engage_core.accounts.keys import generate_key

    return generate_key().plaintext


@pytest.fixture
def services_rotate(services: Services) -> Callable[[int], str]:
    """`services_rotate(account_id)`: rotate the account's key and return the new one."""

    def rotate(account_id: int) -> str:
        return services.accounts.rotate_key(account_id).api_key

    return rotate


@pytest.fixture
def services_add_to_list(services: Services) -> Callable[..., int]:
    """`services_add_to_list(tenant, contacts)`: a new list holding the contacts; its id."""

    def make(tenant: Tenant, contacts: Sequence[Contact], name: str = "Members") -> int:
        created = services.lists.create(tenant.account_id, name)
        for contact in contacts:
            services.contacts.add_to_list(tenant.account_id, contact.id, created.id)
        return created.id

    return make


@pytest.fixture
def services_blacklist(services: Services) -> Callable[..., None]:
    """`services_blacklist(tenant, contact)`: toggle the contact's blacklist flag."""

    def toggle(tenant: Tenant, contact: Contact) -> None:
        services.contacts.toggle_blacklist(tenant.account_id, contact.id)

    return toggle


@pytest.fixture
def make_webhook(services: Services) -> Callable[..., RevealedSecret]:
    """`make_webhook(tenant, name=..., url=..., events=(), is_active=True)`: a subscription with its secret."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> RevealedSecret:
        number = next(counter)
        values: dict[str, Any] = {"name": f"Hook {number}", "url": f"https://hooks.example.com/{number}"}
        values.update(fields)
        return services.webhooks.create(tenant.account_id, WebhookInput(**values))

    return make


@pytest.fixture
def deliver_due(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, services: Services) -> Callable[..., FakeSender]:
    """`deliver_due(status_code=200)`: a worker, which asks the plans as the app's does, sends every
    attempt now due, once; the receiver answers `status_code`. Returns the fake receiver (its `sent`
    requests)."""

    def run(status_code: int = 200) -> FakeSender:
        sender = FakeSender(lambda _request: Outcome(status_code, f"answer {status_code}", None))
        queue = InMemoryDeliveryQueue(uow.store)
        DeliveryWorker(queue, sender, FakeCipher(), clock, gate=services.entitlements).run_once()
        return sender

    return run


@pytest.fixture
def make_failed_delivery(
    services: Services, clock: FakeClock, deliver_due: Callable[..., FakeSender]
) -> Callable[[Tenant, int], Attempt]:
    """`make_failed_delivery(tenant, webhook_id)`: a test delivery whose every attempt failed (the clock
    moves through the retry schedule); its last attempt."""

    def make(tenant: Tenant, webhook_id: int) -> Attempt:
        queued = services.webhooks.send_test(tenant.account_id, webhook_id)
        for delay in (timedelta(0), *RETRY_DELAYS):
            clock.advance(seconds=delay.total_seconds())
            deliver_due(500)
        log = services.webhooks.deliveries(tenant.account_id, webhook_id, None, PageRequest(1, 100))
        return next(a for a in log.items if a.delivery_id == queued.delivery_id)  # newest first

    return make


@pytest.fixture
def make_catalog(services: Services) -> Callable[..., CatalogResult]:
    """`make_catalog(tenant, title=..., products=[{...}], csv_file=None)`: a product catalogue whose
    products are given as JSON product objects (`{"product_name": ..., "price": ...}`)."""

    def make(
        tenant: Tenant,
        title: str = "Catalogue",
        products: Sequence[dict[str, Any]] = (),
        csv_file: str | None = None,
    ) -> CatalogResult:
        data = CatalogInput(title=title, products=[ProductInput(**p) for p in products], csv_file=csv_file)
        return services.knowledge_base.create_catalog(tenant.account_id, data)

    return make


@pytest.fixture
def make_product(make_catalog: Callable[..., CatalogResult]) -> Callable[..., Product]:
    """`make_product(tenant, product_name=..., price=..., stock_quantity=..., ...)`: a priced product
    (10.00 USD, 100 in stock unless told otherwise) in a catalogue of its own."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> Product:
        values: dict[str, Any] = {"product_name": f"Product {next(counter)}", "price": "10.00", "stock_quantity": 100}
        values.update(fields)
        [product] = make_catalog(tenant, products=[values]).products
        return product

    return make


@pytest.fixture
def make_order(services: Services) -> Callable[..., Order]:
    """`make_order(tenant, [(product_id, quantity), ...], customer_name=..., contact_id=..., ...)`: a
    pending order placed through the API's own service (`created_by` `api`)."""

    def make(tenant: Tenant, lines: Sequence[tuple[int, int]], **fields: Any) -> Order:
        values: dict[str, Any] = {"customer_name": "Ada Lovelace"}
        values.update(fields)
        items = [ItemRequest(product_id=product_id, quantity=quantity) for product_id, quantity in lines]
        return services.orders.create(tenant.account_id, OrderInput(items=items, **values)).order

    return make


@pytest.fixture
def make_ticket(services: Services) -> Callable[..., Ticket]:
    """`make_ticket(tenant, subject=..., body=..., priority=..., department_id=...)`: an open ticket."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> Ticket:
        values: dict[str, Any] = {"subject": f"Ticket {next(counter)}", "body": "Something is wrong."}
        values.update(fields)
        return services.tickets.create(tenant.account_id, TicketInput(**values))

    return make


@pytest.fixture
def make_member(services: Services) -> Callable[..., TeamMember]:
    """`make_member(tenant, name=..., email=..., role="agent", password=...)`: a team member with a fresh
    address each time unless one is given."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> TeamMember:
        number = next(counter)
        values: dict[str, Any] = {
            "name": f"Member {number}",
            "email": f"member{number}@example.com",
            "role": "agent",
            "password": "password123",
        }
        values.update(fields)
        return services.team.create(tenant.account_id, MemberInput(**values)).member

    return make


@pytest.fixture
def connect_channel(services: Services, sandbox: SandboxGateway) -> Callable[..., ChannelAccount]:
    """`connect_channel(tenant, "whatsapp")`: the tenant's channel connected through the sandbox (a QR
    code scanned, or a login with no 2FA); the setting afterwards."""

    def connect(tenant: Tenant, channel: str = "whatsapp", username: str | None = None) -> ChannelAccount:
        if channel in QR_CHANNELS:
            started = services.channels.connect_qr(tenant.account_id, channel)
            assert started.channel.provider_account_id is not None
            sandbox.scan(started.channel.provider_account_id, username)
            return services.channels.status(tenant.account_id, channel)
        login = CredentialsInput(username=username or f"{channel}.owner", password="secret")
        return services.channels.connect_credentials(tenant.account_id, channel, login).channel

    return connect


@pytest.fixture
def make_booking_type(services: Services) -> Callable[..., BookingType]:
    """`make_booking_type(tenant, name=..., duration_minutes=60, description=None, is_active=True)`."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> BookingType:
        values: dict[str, Any] = {"name": f"Type {next(counter)}", "duration_minutes": 60}
        values.update(fields)
        return services.booking_setup.create_type(tenant.account_id, BookingTypeInput(**values))

    return make


@pytest.fixture
def make_resource(services: Services) -> Callable[..., Resource]:
    """`make_resource(tenant, name=..., type="staff", is_active=True)`."""
    counter = iter(range(1, 10_000))

    def make(tenant: Tenant, **fields: Any) -> Resource:
        values: dict[str, Any] = {"name": f"Resource {next(counter)}", "type": "staff"}
        values.update(fields)
        return services.booking_setup.create_resource(tenant.account_id, ResourceInput(**values))

    return make


@pytest.fixture
def make_booking(services: Services) -> Callable[..., Booking]:
    """`make_booking(tenant, contact_id, booking_type_id, starts_at, resource_id=None, notes=None,
    status="confirmed")`: a booking made through the service (so every booking rule applies)."""

    def make(tenant: Tenant, contact_id: int, booking_type_id: int, starts_at: Any, **fields: Any) -> Booking:
        data = BookingInput(contact_id, booking_type_id, starts_at, **fields)
        return services.bookings.create(tenant.account_id, data)

    return make


@pytest.fixture
def make_partner(services: Services, client: TestClient) -> Callable[..., PartnerCaller]:
    """`make_partner(company="Agency", seats=None)`: a new partner and a client sending its `X-Partner-Key`."""
    counter = iter(range(1, 10_000))

    def make(company: str = "Agency", *, seats: int | None = None) -> PartnerCaller:
        issued = services.partners.create(company, f"partner{next(counter)}@example.com", client_seats_max=seats)
        return PartnerCaller(issued.partner.id, issued.partner_key, Api(client, {"X-Partner-Key": issued.partner_key}))

    return make


@pytest.fixture
def make_client_workspace(services: Services) -> Callable[..., int]:
    """`make_client_workspace(partner, company="Acme", plan="pro", email=None)`: a client, made through the service."""
    counter = iter(range(1, 10_000))

    def make(partner: PartnerCaller, company: str = "Acme", *, plan: str = "pro", email: str | None = None) -> int:
        n = next(counter)
        admin = AdminInput("Ada", "Admin", email or f"admin{n}.{partner.partner_id}@example.com")
        data = ClientInput(company_name=company, plan=plan, admin=admin, skip_invite=True)
        return services.partner_clients.create(partner.partner_id, data).client.id

    return make


@pytest.fixture
def disposals(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Records every `engage_sql.Database.dispose()` call (the databases disposed of, in order)."""
    from engage_sql import Database

    calls: list[Database] = []
    original = Database.dispose

    def dispose(self: Database) -> None:
        calls.append(self)
        original(self)

    monkeypatch.setattr(Database, "dispose", dispose)
    return calls


@pytest.fixture
def browser(services: Services, clock: FakeClock) -> TestClient:
    """A client of the app with the dashboard served; it keeps cookies like a browser and does not
    follow redirects."""
    return TestClient(create_app(services, sessions=SessionCookies(FakeCipher(), clock)), follow_redirects=False)


@pytest.fixture
def add_member(services: Services) -> Callable[..., int]:
    """`add_member(tenant, email="ada@example.com", role="admin")`: an active member whose password is
    `dashboard_support.PASSWORD`; its id."""

    def add(tenant: Tenant, email: str = "ada@example.com", role: str = "admin") -> int:
        return services.team.create(tenant.account_id, MemberInput("Ada", email, role, PASSWORD)).member.id

    return add


@pytest.fixture
def conversation(
    tenant: Tenant, connect_channel: Callable[..., ChannelAccount], sandbox: SandboxGateway, services: Services
) -> int:
    """A WhatsApp conversation of the tenant: Grace (`dashboard_support.PHONE`) asked about a kettle;
    the contact's id."""
    channel = connect_channel(tenant, "whatsapp")
    assert channel.provider_account_id is not None
    sandbox.inject_message(channel.provider_account_id, PHONE, "Is the blue kettle in stock?", sender_name="Grace")
    found = services.messages.conversations(tenant.account_id, ConversationFilter(), PageRequest())
    return found.items[0].contact_id
