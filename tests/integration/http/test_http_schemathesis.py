"""The app against its own OpenAPI document: schemathesis with every default check.

Each generated case runs on a freshly seeded store (so one case's writes, such as a tag title, cannot
collide with the next). The seed holds instagram contacts with phones, tags, a list, a segment and a
webhook with a failed and a pending delivery, so small generated ids resolve. Phones are drawn from
libphonenumber's example numbers (the `phone` format of the document), which never collide with the
seeded ones. Webhook targets are not resolved (`AllowAllTargets`): the SSRF guard is a run-time check
the document cannot state, so generated `https://` URLs must be accepted.
"""

from __future__ import annotations

import re

import phonenumbers
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engage_core.delivery import DeliveryWorker
from engage_core.services import Services
from engage_core.services.contacts import ContactInput
from engage_core.services.webhooks import WebhookInput
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeSender,
    InMemoryDeliveryQueue,
    InMemoryStore,
    InMemoryUnitOfWorkFactory,
)
from engage_core.webhooks import RETRY_DELAYS, Outcome
from engage_http import create_app
from engage_http.schemas.common import E164_PATTERN

SEED_PHONES = ("+14155552671", "+442071838750", "+966501234567")


def _example_phones() -> list[str]:
    found = set()
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE):
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None:
                found.add(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))
    return sorted(p for p in found if re.fullmatch(E164_PATTERN, p) and p not in SEED_PHONES)


schemathesis.openapi.format("phone", st.sampled_from(_example_phones()))

UOW = InMemoryUnitOfWorkFactory()
CLOCK = FakeClock()
SERVICES = Services.build(UOW, CLOCK, cipher=FakeCipher(), guard=AllowAllTargets())
APP = create_app(SERVICES)
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", APP)


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
    return issued.api_key


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
    case.call_and_validate(headers={"X-Api-Key": key})
