"""The app against its own OpenAPI document: schemathesis with every default check.

Each generated case runs on a freshly seeded store (so one case's writes, such as a tag title, cannot
collide with the next). The seed holds instagram contacts with phones, tags, a list, a segment and a
webhook with a failed and a pending delivery, so small generated ids resolve. Phones are drawn from
libphonenumber's example numbers (the `phone` format of the document), which never collide with the
seeded ones. Webhook targets are not resolved (`AllowAllTargets`): the SSRF guard is a run-time check
the document cannot state, so generated `https://` URLs must be accepted.

The seed also holds a product catalogue (priced, in stock, one currency) and pending orders of it.
Catalogue CSV files are drawn as small valid files (the `product-catalog-csv` format). Operations
that declare 422 in their `errors` (stock, status moves, a delivery that has not failed: rules no
schema can state) may answer 422 to schema-valid data; every other check applies to them unchanged.
Team members and support tickets are seeded too; passwords are hashed by the fast fake hasher.
"""

from __future__ import annotations

import re
import string

import phonenumbers
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import ContactInput
from engage_core.knowledge.service import CatalogInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.partners.partner_service import PartnerWebhookInput
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.team.service import MemberInput
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    FakeSender,
    InMemoryDeliveryQueue,
    InMemoryStore,
    InMemoryUnitOfWorkFactory,
)
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.model import RETRY_DELAYS, Outcome
from engage_core.webhooks.service import WebhookInput
from engage_http import create_app
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.fields import E164_PATTERN
from engage_http.knowledge.schemas import CSV_FORMAT

SEED_PHONES = ("+14155552671", "+442071838750", "+966501234567")


def _example_phones() -> list[str]:
    found = set()
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE):
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None:
                found.add(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))
    return sorted(p for p in found if re.fullmatch(E164_PATTERN, p) and p not in SEED_PHONES)


def _catalog_csv() -> st.SearchStrategy[str]:
    """Small product CSV files the catalogue accepts: a name, a price and a stock per row."""
    name = st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=30).map(str.strip).filter(bool)
    row = st.tuples(name, st.integers(0, 99_999), st.integers(0, 1000))
    rows = st.lists(row.map(lambda r: f"{r[0]},{r[1] / 100:.2f},{r[2]}"), min_size=1, max_size=5)
    return rows.map(lambda lines: "product_name,price,stock\n" + "\n".join(lines) + "\n")


schemathesis.openapi.format("phone", st.sampled_from(_example_phones()))
schemathesis.openapi.format(CSV_FORMAT, _catalog_csv())

RULE_BOUND = [op.operation_id for op in (*OPERATIONS, *PARTNER_OPERATIONS) if 422 in op.errors]
"""Operations whose 422 also stands for rules beyond the document (see the module docstring)."""
CONFIG = schemathesis.Config.from_dict(
    {
        # The document excludes NUL from every string (patterns, and `propertyNames` in free-form
        # values), but schemathesis reads a recursive `$ref` (the free-form `JsonValue`) as any value
        # past its first level, so it would draw NUL keys there and call their refusal a failure.
        # test_http_nul.py checks the refusal of NUL everywhere instead.
        "generation": {"allow-x00": False},
        "operations": [
            {
                "include-operation-id": RULE_BOUND,
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
                    }
                },
            }
        ],
    }
)

UOW = InMemoryUnitOfWorkFactory()
CLOCK = FakeClock()
SANDBOX = SandboxGateway(CLOCK)
SERVICES = Services.build(
    UOW,
    CLOCK,
    cipher=FakeCipher(),
    guard=AllowAllTargets(),
    hasher=FakePasswordHasher(),
    mailer=FakeMailer(),
    gateway=SANDBOX,
)
SANDBOX.attach(SERVICES.inbox)
APP = create_app(SERVICES)
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", APP, config=CONFIG)


def seed_store() -> str:
    """Replace the store with a fresh one holding a few resources; return the account's key."""
    UOW.store = InMemoryStore()
    issued = SERVICES.accounts.create("Schemathesis")
    account_id = issued.account.id
    contacts = [
        SERVICES.contacts.create(
            account_id, ContactInput(name=f"Seed {n}", type="instagram", phone=phone, tags=[f"Seed tag {n}"])
        )
        for n, phone in enumerate(SEED_PHONES)
    ]
    SERVICES.tags.create(account_id, "Seed spare tag")
    seeded_list = SERVICES.lists.create(account_id, "Seed list")
    segment = SERVICES.segments.create(
        account_id, "Seed segment", conditions=[{"field": "name", "operator": "contains", "value": "Seed"}]
    )
    for contact in contacts:
        SERVICES.contacts.add_to_list(account_id, contact.id, seeded_list.id)
        SERVICES.contacts.add_note(account_id, contact.id, "Seed note")
    SERVICES.contacts.add_to_segment(account_id, contacts[0].id, segment.id)
    seed_webhook(account_id)
    seed_orders(account_id, contacts[0].id)
    seed_tickets_and_team(account_id)
    return issued.api_key


def seed_partner() -> str:
    """A partner with two clients (one suspended) and a webhook of its own; return its key (X-Partner-Key)."""
    issued = SERVICES.partners.create("Seed agency", "seed.agency@example.com")
    partner_id = issued.partner.id
    for n in range(2):
        admin = AdminInput("Seed", f"Admin {n}", f"seed.client{n}@example.com")
        client = SERVICES.partner_clients.create(partner_id, ClientInput(f"Seed client {n}", "pro", admin)).client
        if n:
            SERVICES.partner_clients.suspend(partner_id, client.id)
    SERVICES.partners.create_webhook(
        partner_id, PartnerWebhookInput("Seed partner hook", "https://hooks.example.com/p")
    )
    return issued.partner_key


def seed_tickets_and_team(account_id: int) -> None:
    """Two team members and two open tickets (the second assigned to a member), in two departments."""
    first = SERVICES.team.create(account_id, MemberInput("Seed admin", "seed.admin@example.com", "admin", "password1"))
    SERVICES.team.create(account_id, MemberInput("Seed agent", "seed.agent@example.com", "agent", "password2"))
    SERVICES.departments.create(account_id, "Seed department")
    SERVICES.tickets.create(account_id, TicketInput("Seed ticket", "Seed body"))
    assigned = SERVICES.tickets.create(account_id, TicketInput("Seed assigned", "Seed body", priority="high"))
    SERVICES.tickets.update(account_id, assigned.id, TicketPatch(assignee_id=first.member.id))


def seed_orders(account_id: int, contact_id: int) -> None:
    """A catalogue of priced products with plenty of stock, and pending orders of them."""
    products = [ProductInput(f"Seed product {n}", price="9.99", stock_quantity=1_000_000) for n in range(3)]
    created = SERVICES.knowledge_base.create_catalog(account_id, CatalogInput("Seed catalogue", products=products))
    first, second, _ = created.products
    SERVICES.orders.create(account_id, OrderInput(items=[ItemRequest(first.id, 1)], contact_id=contact_id))
    SERVICES.orders.create(account_id, OrderInput(items=[ItemRequest(second.id, 2)], customer_name="Seed customer"))


def seed_webhook(account_id: int) -> None:
    """A subscription with one delivery failed for good (every retry answered 500) and one pending."""
    webhook = SERVICES.webhooks.create(account_id, WebhookInput("Seed hook", "https://hooks.example.com/seed"))
    SERVICES.webhooks.send_test(account_id, webhook.subscription.id)
    failing = DeliveryWorker(
        InMemoryDeliveryQueue(UOW.store), FakeSender(lambda _: Outcome(500, "no", None)), FakeCipher(), CLOCK
    )
    for delay in (None, *RETRY_DELAYS):
        if delay is not None:
            CLOCK.advance(seconds=delay.total_seconds())
        failing.run_once()
    SERVICES.webhooks.send_test(account_id, webhook.subscription.id)


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_api_conforms_to_its_openapi_document(case: schemathesis.Case) -> None:
    """Every operation answers generated requests as its document says, under every default check."""
    key = seed_store()
    headers = {"X-Api-Key": key}
    if case.headers and "X-Partner-Key" in case.headers:  # absent: a negative case leaving the partner key out
        headers["X-Partner-Key"] = seed_partner()
    case.call_and_validate(headers=headers)
