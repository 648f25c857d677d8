"""Fixtures of the tests that need storage or a webhook receiver (integration and e2e), a plugin
of the root conftest: databases on each supported backend, and HTTPS receivers. What they need is
imported when a test first asks for one, so that the pure-core unit tests import nothing of
`engage_sql` and collect fast.

`database` is a migrated `engage_sql.Database`, emptied before each test (one per session and
backend, so cheap). `make_database()` returns a brand-new one of the test's own, for tests that
migrate, or configure the database differently (dropped after the test). Both are parametrized
over SQLite and PostgreSQL; the PostgreSQL half is skipped, with its reason shown, unless
ENGAGE_TEST_POSTGRES_URL names a server.

Webhook receivers: `certificate_authority` is a test CA (its PEM file is `ca_file`, for
`SSL_CERT_FILE`), and `make_receiver()` starts a `receiver.Receiver` on 127.0.0.1 with a certificate
it issued, closed after the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import trustme
    from databases import TestDatabases
    from receiver import MakeReceiver, Receiver

    from engage_core.kernel.clock import Clock
    from engage_sql import Database


@pytest.fixture(
    scope="session",
    params=[pytest.param("sqlite"), pytest.param("postgres", marks=pytest.mark.postgres)],
)
def backend(request: pytest.FixtureRequest) -> str:
    """`sqlite` or `postgres`."""
    name: str = request.param
    from databases import POSTGRES_ENV, postgres_server_url

    if name == "postgres" and postgres_server_url() is None:
        pytest.skip(f"{POSTGRES_ENV} is not set")
    return name


@pytest.fixture(scope="session")
def test_databases(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestDatabases]:
    from databases import open_test_databases

    databases = open_test_databases(backend, tmp_path_factory.mktemp(f"databases-{backend}"))
    yield databases
    databases.close()


@pytest.fixture
def make_database_url(test_databases: TestDatabases) -> Iterator[Callable[..., str]]:
    """`make_database_url(migrated=True) -> url`: a database of this test's own, dropped afterwards."""
    created: list[str] = []

    def make(*, migrated: bool = True) -> str:
        url = test_databases.create(migrated=migrated)
        created.append(url)
        return url

    yield make
    for url in created:
        test_databases.drop(url)


@pytest.fixture
def make_database(make_database_url: Callable[..., str]) -> Iterator[Callable[..., Database]]:
    """`make_database(migrated=True, clock=None) -> Database`, disposed and dropped after the test."""
    opened: list[Database] = []

    def make(*, migrated: bool = True, clock: Clock | None = None) -> Database:
        from engage_sql import Database

        database = Database.connect(make_database_url(migrated=migrated), clock)
        opened.append(database)
        return database

    yield make
    for database in opened:
        database.dispose()


@pytest.fixture(scope="session")
def session_database(test_databases: TestDatabases) -> Iterator[Database]:
    url = test_databases.create()
    from engage_sql import Database

    database = Database.connect(url)
    yield database
    database.dispose()
    test_databases.drop(url)


@pytest.fixture
def database(session_database: Database) -> Database:
    """A migrated database with no rows (shared by the session's tests, emptied before each)."""
    from databases import wipe

    wipe(session_database)
    return session_database


@pytest.fixture(scope="session")
def certificate_authority() -> trustme.CA:
    """The CA the tests trust (through SSL_CERT_FILE)."""
    import trustme

    return trustme.CA()


@pytest.fixture(scope="session")
def ca_file(certificate_authority: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    certificate_authority.cert_pem.write_to_path(str(path))
    return path


@pytest.fixture
def make_receiver(certificate_authority: trustme.CA) -> Iterator[MakeReceiver]:
    """`make_receiver(tls=True, authority=None) -> Receiver`: HTTPS with a cert of the trusted CA by
    default; `authority=trustme.CA()` for a certificate nobody trusts; `tls=False` for plain HTTP."""
    started: list[Receiver] = []

    def make(*, tls: bool = True, authority: trustme.CA | None = None) -> Receiver:
        from receiver import Receiver, server_context

        context = server_context(authority or certificate_authority) if tls else None
        receiver = Receiver(tls=context)
        started.append(receiver)
        return receiver

    yield make
    for receiver in started:
        receiver.close()
