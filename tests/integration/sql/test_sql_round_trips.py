"""PostgreSQL's round trips, counted on the wire (`bench.wire.WireCounter`): reads are their statements
alone, and a pooled connection is pinged only after it has been idle."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bench.wire import WireCounter
from engage_core.campaigns.service import CampaignInput
from engage_core.contacts.model import Contact, ContactInput
from engage_core.kernel.clock import SystemClock
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_sql import Database, engines


@pytest.fixture
def relay(backend: str, make_database_url: Callable[..., str]) -> Iterator[tuple[WireCounter, Database]]:
    """A migrated PostgreSQL database whose connections go through a counting relay."""
    if backend != "postgres":
        pytest.skip("round trips are PostgreSQL's: SQLite runs in the process")
    url = make_url(make_database_url())
    counter = WireCounter(url.host or "127.0.0.1", url.port or 5432)
    port = counter.start()
    relayed = url.set(port=port, host="127.0.0.1", query={**url.query, "sslmode": "disable", "gssencmode": "disable"})
    database = Database.connect(relayed.render_as_string(hide_password=False))
    yield counter, database
    database.dispose()


def _read(database: Database, account: int) -> None:
    with database.uow.workspace(account, readonly=True) as uow:
        uow.connection.execute(text("SELECT 1"))


def test_a_read_only_unit_of_work_is_its_statement_alone(relay: tuple[WireCounter, Database]) -> None:
    """A read-only unit of work of one read is one statement and one round trip: no BEGIN, no ROLLBACK, no ping."""
    counter, database = relay
    account = Services.build(database.uow).accounts.create("Acme").account.id
    _read(database, account)  # opens the connection
    counter.reset()

    _read(database, account)

    counts = counter.snapshot()
    assert (dict(counts.statements), counts.round_trips) == ({"SELECT 1": 1}, 1)


def test_a_connection_idle_past_the_threshold_is_pinged(
    relay: tuple[WireCounter, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pooled connection idle for longer than the threshold is pinged once before it is handed out."""
    counter, database = relay
    account = Services.build(database.uow).accounts.create("Acme").account.id
    _read(database, account)
    monkeypatch.setattr(engines, "POSTGRES_PING_AFTER_IDLE_SECONDS", 0.0)
    counter.reset()

    _read(database, account)

    assert dict(counter.snapshot().statements) == {";": 1, "SELECT 1": 1}


def test_creating_a_contact_sends_no_transaction_chatter(relay: tuple[WireCounter, Database]) -> None:
    """Creating a contact is BEGIN, its insert, then its event and the counter's move with COMMIT: three round trips."""
    counter, database = relay
    services = Services.build(database.uow)
    account = services.accounts.create("Acme").account.id
    services.contacts.create(account, ContactInput(name="Warm", type="instagram"))
    plan = services.entitlements.plan_of(account)
    counter.reset()

    services.contacts.create(account, ContactInput(name="Ada", type="instagram"), plan=plan)

    counts = counter.snapshot()
    assert [sql.split()[0] for sql in counts.statements.elements()] == ["BEGIN", "WITH", "WITH", "WITH", "COMMIT"]
    assert (counts.executed, counts.round_trips) == (5, 3)


def _whatsapp_contact(database: Database) -> tuple[Services, int, Contact]:
    """Services over the sandbox gateway, an account with its WhatsApp connected, and a contact on it."""
    sandbox = SandboxGateway(SystemClock())
    services = Services.build(database.uow, gateway=sandbox)
    sandbox.attach(services.inbox)
    account = services.accounts.create("Acme").account.id
    sandbox.scan(services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or "")
    contact = services.contacts.create(account, ContactInput(name="Ada", type="whatsapp", phone="+14155550100"))
    return services, account, contact


def test_a_campaign_hand_off_is_one_round_trip(relay: tuple[WireCounter, Database]) -> None:
    """The sender's hand-off, alone in its unit of work, is its UPDATE in autocommit: no BEGIN, no COMMIT."""
    counter, database = relay
    services, account, contact = _whatsapp_contact(database)
    draft = services.campaigns.create(account, CampaignInput("Hello", "whatsapp", "Hi", (contact.id,), (), ()))
    campaign = services.campaigns.start(account, draft.id)
    now = SystemClock().now()
    with database.uow.workspace(account) as unit:
        [claimed] = unit.campaign_recipients.claim(campaign.id, 1, now)
        unit.commit()
    counter.reset()

    with database.uow.workspace(account) as unit:
        handed = unit.campaign_recipients.hand(claimed.id, now)
        unit.commit()

    counts = counter.snapshot()
    assert handed
    assert ([sql.split()[0] for sql in counts.statements.elements()], counts.round_trips) == (["UPDATE"], 1)
    with database.uow.workspace(account, readonly=True) as unit:
        stored = unit.campaign_recipients.get(claimed.id)
    assert stored is not None and stored.handed_at is not None


def test_a_send_locks_nothing_of_the_account_across_round_trips(relay: tuple[WireCounter, Database]) -> None:
    """A send checks the monthly limit as its message commits: no lock of the account's counter row,
    no count of the month's messages, and eleven round trips (from thirteen)."""
    counter, database = relay
    services, account, contact = _whatsapp_contact(database)
    plan = services.entitlements.plan_of(account)
    services.messages.send(account, SendInput(contact.id, "Warm"), plan=plan)
    counter.reset()

    services.messages.send(account, SendInput(contact.id, "Hello"), plan=plan)

    counts = counter.snapshot()
    assert not [sql for sql in counts.statements if "account_counters" in sql or "count(" in sql.lower()]
    assert counts.round_trips == 11
