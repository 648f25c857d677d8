"""The kit's valid input strategies over a real database (SQLite and PostgreSQL): what the services
accept over the fakes they accept over SQL too, and read back as they returned it (text of any
script, symbols and long values included)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_sql import Database
from engage_testing import strategies as kit

RUNS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def sql_services(database: Database, clock: FakeClock) -> Services:
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())


def _contact(services: Services, account: int, data: object) -> None:
    created = services.contacts.create(account, data)  # type: ignore[arg-type]
    assert services.contacts.get(account, created.id) == created


def _catalog(services: Services, account: int, data: object) -> None:
    result = services.knowledge_base.create_catalog(account, data)  # type: ignore[arg-type]
    assert [services.products.get(account, p.id) for p in result.products] == list(result.products)


def _csv(services: Services, account: int, text: object) -> None:
    _catalog(services, account, CatalogInput("Menu", csv_file=text))  # type: ignore[arg-type]


def _ticket(services: Services, account: int, data: object) -> None:
    ticket = services.tickets.create(account, data)  # type: ignore[arg-type]
    assert services.tickets.get(account, ticket.id).ticket == ticket


def _entry(services: Services, account: int, data: object) -> None:
    entry = services.knowledge_entries.create_text(account, data)  # type: ignore[arg-type]
    assert services.knowledge_entries.get(account, entry.id).content == data.content.strip()  # type: ignore[attr-defined]


def _agent(services: Services, account: int, data: object) -> None:
    agent = services.ai_agents.create(account, data)  # type: ignore[arg-type]
    assert services.ai_agents.get(account, agent.id) == agent


CASES: dict[str, tuple[st.SearchStrategy[object], Callable[[Services, int, object], None]]] = {
    "contact": (kit.contact_inputs(), _contact),
    "catalog": (kit.catalog_inputs(), _catalog),
    "catalog csv": (kit.catalog_csv_files(), _csv),
    "ticket": (kit.ticket_inputs(), _ticket),
    "knowledge entry": (kit.knowledge_entries(), _entry),
    "agent": (kit.agent_settings(), _agent),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_valid_inputs_are_stored_and_read_back(sql_services: Services, name: str) -> None:
    """Every valid input drawn is accepted over SQL and read back as the service returned it."""
    strategy, use = CASES[name]

    @RUNS
    @given(strategy)
    def check(value: object) -> None:
        account = sql_services.accounts.create("Acme").account.id  # one per example: phones may repeat
        use(sql_services, account, value)

    check()
