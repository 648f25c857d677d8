"""The app against its own OpenAPI document: schemathesis with every default check, over SQLite
and PostgreSQL (each backend's run has a database of its own).

The database is seeded once per run through the services, and every row of it snapshotted
(`databases.Snapshot`); each write that succeeds is followed by a restore of that snapshot, so every
case meets the same seed with the same small ids (one case's writes, such as a tag title, cannot
collide with the next), for milliseconds instead of a seed. The seed holds a contact of every type
(`CONTACT_TYPES`, linkedin among them), each with a phone of its own, tags, a list, a segment and a
webhook with a failed and a pending delivery, so small generated ids resolve. Phones are drawn from
libphonenumber's example numbers (the `phone` format of the document), which never collide with the
seeded ones. Webhook targets are not resolved (`AllowAllTargets`): the SSRF guard is a run-time check
the document cannot state, so generated `https://` URLs must be accepted.

The seed also holds a product catalogue (priced, in stock, one currency) and pending orders of it.
Catalogue CSV files are drawn as small valid files (the `product-catalog-csv` format). Operations
that declare 422 in their `errors` (stock, status moves, a delivery that has not failed: rules no
schema can state) may answer 422 to schema-valid data, and the OpenAI-compatible ones that declare
400 a 400 (their validation failure); every other check applies to them unchanged.
Team members and support tickets are seeded too; passwords are hashed by the fast fake hasher. So are
two AI agents (the default, and another assigned to every seeded contact).

The suite draws a few cases per operation (besides the coverage phase's, which the schema fixes);
`ENGAGE_SCHEMATHESIS_EXAMPLES=50` makes a longer run (docs/operations.md, "Testing the API contract").
"""

from __future__ import annotations

import os
import re
import string
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import attrs
import phonenumbers
import pytest
import schemathesis
from databases import Snapshot
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from offline_services import offline_services
from starlette.applications import Starlette

from engage_core.agents.model import AgentInput
from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import CONTACT_TYPES, ContactInput
from engage_core.kernel.idempotency import key_problem
from engage_core.knowledge.service import CatalogInput
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.partners.partner_service import PartnerWebhookInput
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.team.service import MemberInput
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeSender,
    InMemoryUnitOfWorkFactory,
)
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.model import RETRY_DELAYS, Outcome
from engage_core.webhooks.service import WebhookInput
from engage_http import create_app
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.fields import E164_PATTERN
from engage_http.idempotency import IdempotentRequests
from engage_http.knowledge.schemas import CSV_FORMAT
from engage_http.operations import Dialect
from engage_sql import Database

if TYPE_CHECKING:
    from databases import TestDatabases

SEED_PHONES = ("+14155552671", "+442071838750", "+966501234567", "+14155552672")
"""One per seeded contact: a contact whose type changes then meets no other contact of that type and phone."""


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
OPENAI_RULE_BOUND = [op.operation_id for op in OPERATIONS if op.dialect is Dialect.OPENAI and 400 in op.errors]
"""OpenAI-compatible operations whose 400 (their validation failure) also stands for such rules."""
CONFIG = schemathesis.Config.from_dict(
    {
        # The document excludes NUL from every typed string (patterns), but a free-form value
        # (`JsonValue`) is any JSON value with the NUL rule in words only, so schemathesis would
        # draw NUL strings and keys there and call their refusal a failure. test_http_nul.py checks
        # the refusal of NUL everywhere instead.
        "generation": {"allow-x00": False},
        "operations": [
            {
                "include-operation-id": RULE_BOUND,
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
                    }
                },
            },
            {
                "include-operation-id": OPENAI_RULE_BOUND,
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
                    }
                },
            },
        ],
    }
)

EXAMPLES = int(os.environ.get("ENGAGE_SCHEMATHESIS_EXAMPLES", "3"))
"""Generated cases per operation (fuzzing phase); a few in the suite, more for a longer run (docs/operations.md)."""


@attrs.frozen
class Seeded:
    """The app over a seeded database, the keys of its workspace and partner, and the seed to go back to."""

    app: Starlette
    api_key: str
    partner_key: str
    snapshot: Snapshot


@pytest.fixture(scope="module")
def seeded(test_databases: TestDatabases) -> Iterator[Seeded]:
    """A database of the module's own on each backend, seeded once (so the seeded ids are the small
    ones cases draw), and the app over it wired as the composition root wires it (short reads,
    SQLite's write lane)."""
    clock = FakeClock()
    url = test_databases.create()
    database = Database.connect(url, clock)
    services = offline_services(database.uow, clock)
    api_key = seed_workspace(services, database, clock)
    partner_key = seed_partner(services)
    loop_calls = database.loop_calls()
    lane = database.write_lane(loop_calls)
    yield Seeded(
        create_app(
            services,
            short_reads=database.short_reads(),
            loop_reads=loop_calls,
            write_lane=lane,
            idempotency=IdempotentRequests(database.idempotency_store(), clock),
        ),
        api_key,
        partner_key,
        Snapshot(database),
    )
    if lane is not None:
        lane.close()
    if loop_calls is not None:
        loop_calls.close()
    database.dispose()
    test_databases.drop(url)


def seed_workspace(services: Services, database: Database, clock: FakeClock) -> str:
    """A workspace holding a few resources of every kind; return its key."""
    issued = services.accounts.create("Schemathesis")
    account_id = issued.account.id
    contacts = [
        services.contacts.create(
            account_id,
            ContactInput(name=f"Seed {n}", type=kind, phone=phone, tags=[f"Seed tag {n}"]),
        )
        for n, (kind, phone) in enumerate(zip(CONTACT_TYPES, SEED_PHONES, strict=True))
    ]
    services.tags.create(account_id, "Seed spare tag")
    seeded_list = services.lists.create(account_id, "Seed list")
    segment = services.segments.create(
        account_id, "Seed segment", conditions=[{"field": "name", "operator": "contains", "value": "Seed"}]
    )
    for contact in contacts:
        services.contacts.add_to_list(account_id, contact.id, seeded_list.id)
        services.contacts.add_note(account_id, contact.id, "Seed note")
    services.contacts.add_to_segment(account_id, contacts[0].id, segment.id)
    seed_webhook(services, database, clock, account_id)
    seed_orders(services, account_id, contacts[0].id)
    seed_tickets_and_team(services, account_id)
    seed_agents(services, account_id, [contact.id for contact in contacts])
    return issued.api_key


def seed_partner(services: Services) -> str:
    """A partner with two clients (one suspended) and a webhook of its own; return its key (X-Partner-Key)."""
    issued = services.partners.create("Seed agency", "seed.agency@example.com")
    partner_id = issued.partner.id
    for n in range(2):
        admin = AdminInput("Seed", f"Admin {n}", f"seed.client{n}@example.com")
        client = services.partner_clients.create(partner_id, ClientInput(f"Seed client {n}", "pro", admin)).client
        if n:
            services.partner_clients.suspend(partner_id, client.id)
    services.partners.create_webhook(
        partner_id, PartnerWebhookInput("Seed partner hook", "https://hooks.example.com/p")
    )
    return issued.partner_key


def seed_tickets_and_team(services: Services, account_id: int) -> None:
    """Two team members and two open tickets (the second assigned to a member), in two departments."""
    first = services.team.create(account_id, MemberInput("Seed admin", "seed.admin@example.com", "admin", "password1"))
    services.team.create(account_id, MemberInput("Seed agent", "seed.agent@example.com", "agent", "password2"))
    services.departments.create(account_id, "Seed department")
    services.tickets.create(account_id, TicketInput("Seed ticket", "Seed body"))
    assigned = services.tickets.create(account_id, TicketInput("Seed assigned", "Seed body", priority="high"))
    services.tickets.update(account_id, assigned.id, TicketPatch(assignee_id=first.member.id))


def seed_agents(services: Services, account_id: int, contact_ids: list[int]) -> None:
    """A default AI agent and another one, assigned to the seeded contacts."""
    services.ai_agents.create(account_id, AgentInput("Seed default agent", "Seed prompt", is_default=True))
    other = services.ai_agents.create(account_id, AgentInput("Seed agent", "Seed prompt", personality_prompt="Calm"))
    services.ai_agents.assign(account_id, other.id, contact_ids)


def seed_orders(services: Services, account_id: int, contact_id: int) -> None:
    """A catalogue of priced products with plenty of stock, and pending orders of them."""
    products = [ProductInput(f"Seed product {n}", price="9.99", stock_quantity=1_000_000) for n in range(3)]
    created = services.knowledge_base.create_catalog(account_id, CatalogInput("Seed catalogue", products=products))
    first, second, _ = created.products
    services.orders.create(account_id, OrderInput(items=[ItemRequest(first.id, 1)], contact_id=contact_id))
    services.orders.create(account_id, OrderInput(items=[ItemRequest(second.id, 2)], customer_name="Seed customer"))


def seed_webhook(services: Services, database: Database, clock: FakeClock, account_id: int) -> None:
    """A subscription with one delivery failed for good (every retry answered 500) and one pending."""
    webhook = services.webhooks.create(account_id, WebhookInput("Seed hook", "https://hooks.example.com/seed"))
    services.webhooks.send_test(account_id, webhook.subscription.id)
    failing = DeliveryWorker(
        database.delivery_queue(), FakeSender(lambda _: Outcome(500, "no", None)), FakeCipher(), clock
    )
    for delay in (None, *RETRY_DELAYS):
        if delay is not None:
            clock.advance(seconds=delay.total_seconds())
        failing.run_once()
    services.webhooks.send_test(account_id, webhook.subscription.id)


def _document_app() -> Starlette:
    """An app serving the same document (it depends on no storage), to load the schema at import."""
    services = Services.build(InMemoryUnitOfWorkFactory(), FakeClock(), cipher=FakeCipher(), guard=AllowAllTargets())
    return create_app(services)


schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", _document_app(), config=CONFIG)
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_api_conforms_to_its_openapi_document(case: schemathesis.Case, seeded: Seeded) -> None:
    """Every operation answers generated requests as its document says, under every default check."""
    headers = {"X-Api-Key": seeded.api_key}
    if case.headers and "X-Partner-Key" in case.headers:  # absent: a negative case leaving the partner key out
        headers["X-Partner-Key"] = seeded.partner_key
    key = (case.headers or {}).get("Idempotency-Key")
    if key is not None and key_problem(key) is None:
        # A key of its own per case: drawn cases repeat keys with other bodies, and a key reused for
        # another request is a 422 no schema can state (test_http_idempotency.py checks that).
        case.headers["Idempotency-Key"] = uuid.uuid4().hex
    response = case.call(headers=headers, app=seeded.app)
    if case.method.upper() in WRITES and response.status_code < 400:  # the seed may have changed: put it back
        seeded.snapshot.restore()
    case.validate_response(response, headers=headers, transport_kwargs={"app": seeded.app, "headers": headers})
