"""Partner clients on SQL only: the seat limit under concurrent creation, and the partner outbox read
from its table (the rest is in tests/contract/test_contract_partners.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from partner_workspace import PartnerServices, client_input, partner_services

from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.partners import outbox as partner_outbox

from .concurrency import at_once, outcome


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database.uow, clock)


@pytest.fixture
def reseller(partner: PartnerServices) -> int:
    return partner.partners.create("Reseller", "ops@reseller.example").partner.id


def test_concurrent_creates_never_exceed_the_seats(partner: PartnerServices, reseller: int) -> None:
    """Of 20 concurrent creates with 5 seats, exactly 5 succeed and the others are refused for seats."""
    partner.partners.set_seats(reseller, 5)

    results = at_once(20, lambda n: partner.clients.create(reseller, client_input(f"Client {n}", f"a@{n}.example")))

    assert (Counter(outcome(r) for r in results), partner.clients.seats_used(reseller)) == (
        {"ok": 5, "Forbidden client_seats_exhausted": 15},
        5,
    )


def test_client_events_are_in_the_partner_outbox(database: Database, partner: PartnerServices, reseller: int) -> None:
    """Every change of a client writes its partner event, in order."""
    client = partner.clients.create(reseller, client_input()).client
    partner.clients.suspend(reseller, client.id)
    partner.clients.reactivate(reseller, client.id)
    partner.clients.delete(reseller, client.id)

    with database.engine.connect() as connection:
        names = [event.name for event in partner_outbox.read(connection, reseller)]
    assert names == [
        "partner.client.created",
        "partner.client.suspended",
        "partner.client.reactivated",
        "partner.client.deleted",
    ]
