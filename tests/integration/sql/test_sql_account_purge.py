"""Deleting a client removes its workspace and every record of it, and nothing of any other.

The tables are enumerated from `tables.metadata`: a table added later with an `account_id` column
is covered without editing this test (its precondition fails until `fill_workspace` adds a row).
"""

from __future__ import annotations

import pytest
from partner_workspace import PartnerServices, client_input, fill_workspace, partner_services
from sqlalchemy import Table, func, select

from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.accounts.tables import accounts
from engage_sql.areas import metadata

ACCOUNT_TABLES: list[Table] = [table for table in metadata.sorted_tables if "account_id" in table.c]


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database.uow, clock)


def _rows_per_table(database: Database, account_id: int) -> dict[str, int]:
    with database.engine.connect() as connection:
        return {
            table.name: connection.execute(
                select(func.count()).select_from(table).where(table.c.account_id == account_id)
            ).scalar_one()
            for table in ACCOUNT_TABLES
        }


def _two_filled_clients(database: Database, partner: PartnerServices, clock: FakeClock) -> tuple[int, int, int]:
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    doomed = partner.clients.create(partner_id, client_input("Doomed", "a@doomed.example")).client.id
    kept = partner.clients.create(partner_id, client_input("Kept", "a@kept.example")).client.id
    for account_id in (doomed, kept):
        fill_workspace(database.uow, account_id, partner_id, clock.now())
    return partner_id, doomed, kept


def test_every_account_table_has_rows_before_the_delete(
    database: Database, partner: PartnerServices, clock: FakeClock
) -> None:
    """The set-up really fills every table with an `account_id` column, for both workspaces."""
    _, doomed, kept = _two_filled_clients(database, partner, clock)

    empty = [name for account in (doomed, kept) for name, n in _rows_per_table(database, account).items() if n == 0]

    assert empty == []


def test_deleting_a_client_empties_every_account_table_for_it(
    database: Database, partner: PartnerServices, clock: FakeClock
) -> None:
    """After the delete no table holds a row of the deleted workspace, and its account is gone."""
    partner_id, doomed, _ = _two_filled_clients(database, partner, clock)

    partner.clients.delete(partner_id, doomed)

    with database.engine.connect() as connection:
        account_left = connection.execute(select(func.count()).where(accounts.c.id == doomed)).scalar_one()
    left = {name: n for name, n in _rows_per_table(database, doomed).items() if n}
    assert (left, account_left) == ({}, 0)


def test_deleting_a_client_leaves_another_workspace_untouched(
    database: Database, partner: PartnerServices, clock: FakeClock
) -> None:
    """Every row of the other client's workspace is still there after the delete."""
    partner_id, doomed, kept = _two_filled_clients(database, partner, clock)
    before = _rows_per_table(database, kept)

    partner.clients.delete(partner_id, doomed)

    assert _rows_per_table(database, kept) == before


def test_another_partner_cannot_delete_the_client(
    database: Database, partner: PartnerServices, clock: FakeClock
) -> None:
    """The repository's delete with another partner's id removes nothing."""
    partner_id, doomed, _ = _two_filled_clients(database, partner, clock)
    intruder = partner.partners.create("Intruder", "ops@intruder.example").partner.id
    before = _rows_per_table(database, doomed)

    with database.uow.partners() as uow:
        uow.clients.delete(intruder, doomed)
        uow.commit()

    assert (_rows_per_table(database, doomed), partner.clients.get(partner_id, doomed).id) == (before, doomed)
