"""Impersonation tokens on SQL only: the stored row (its digest, its `used_at`) and one winner among
concurrent redeems (the rest is in tests/contract/test_contract_partners.py)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from partner_workspace import PartnerServices, client_input, partner_services
from sqlalchemy import select

from engage_core.partners.model import Impersonation
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.partners.tables import impersonation_tokens

from .concurrency import at_once, outcome

DIGEST = "a" * 64


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database.uow, clock)


@pytest.fixture
def grant(partner: PartnerServices) -> Impersonation:
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    return Impersonation(partner_id, partner.clients.create(partner_id, client_input()).client.id, 1)


def _add(database: Database, grant: Impersonation, clock: FakeClock) -> None:
    with database.uow.partners() as uow:
        uow.impersonations.add(DIGEST, grant, clock.now() + timedelta(minutes=5), clock.now())
        uow.commit()


def _redeem(database: Database, clock: FakeClock, digest: str = DIGEST) -> Impersonation | None:
    with database.uow.partners() as uow:
        found = uow.impersonations.redeem(digest, clock.now())
        uow.commit()
    return found


def test_refused_redeem_changes_nothing(database: Database, grant: Impersonation, clock: FakeClock) -> None:
    """An expired token's redeem leaves it unused."""
    _add(database, grant, clock)
    clock.advance(minutes=6)
    _redeem(database, clock)

    with database.engine.connect() as connection:
        used_at = connection.execute(select(impersonation_tokens.c.used_at)).scalar_one()
    assert used_at is None


def test_concurrent_redeems_succeed_exactly_once(database: Database, grant: Impersonation, clock: FakeClock) -> None:
    """Of 20 threads redeeming one token at once, exactly one gets the grant."""
    _add(database, grant, clock)

    results = at_once(20, lambda _: _redeem(database, clock))

    assert Counter(outcome(r) if isinstance(r, BaseException) else r for r in results) == {grant: 1, None: 19}


def test_only_the_token_digest_is_stored(database: Database, partner: PartnerServices, grant: Impersonation) -> None:
    """The stored row holds a digest, never the token of the link."""
    token = partner.clients.impersonate(grant.partner_id, grant.account_id).login_url.rsplit("/", 1)[1]

    with database.engine.connect() as connection:
        stored = connection.execute(select(impersonation_tokens.c.digest)).scalar_one()
    assert (len(stored), token in stored) == (64, False)
