"""A database that cannot serve now answers 503 with `Retry-After`, not 500, through the composition
root's app (`engage_sql.unavailable`): a read-only SQLite file, and a PostgreSQL server refusing more
connections. The kinds of failure themselves are read in tests/integration/sql/test_sql_retryable.py."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import httpx
import pytest
import sqlalchemy
from sqlalchemy.engine import make_url
from starlette.testclient import TestClient

from engage_core.settings import Settings
from engage_http.bootstrap import build_app, build_services
from engage_sql import Database

SECRET_KEY = "a-test-secret-key-of-enough-length"
NEW_CONTACT = {"name": "Ada", "type": "instagram"}


@pytest.fixture
def account(make_database_url: Callable[..., str]) -> tuple[str, str]:
    """A migrated database's URL and the key of an account in it."""
    url = make_database_url()
    database = Database.connect(url)
    key = build_services(Settings(database_url=url, secret_key=SECRET_KEY), database).accounts.create("Acme").api_key
    database.dispose()
    return url, key


def requests(url: str, key: str) -> tuple[httpx.Response, httpx.Response]:
    """A write (POST /contacts) and a read (GET /contacts) on an app built on `url`."""
    app = build_app(Settings(database_url=url, secret_key=SECRET_KEY, run_worker=False), migrate=False)
    with TestClient(app) as client:
        write = client.post("/api/v1/contacts", json=NEW_CONTACT, headers={"X-Api-Key": key})
        read = client.get("/api/v1/contacts", headers={"X-Api-Key": key})
    return write, read


def test_a_write_to_a_read_only_sqlite_database_is_503_with_retry_after(account: tuple[str, str]) -> None:
    """The database file opened read-only: POST answers 503 with Retry-After; reads still work."""
    url, key = account
    if make_url(url).get_backend_name() != "sqlite":
        pytest.skip("a read-only file is SQLite's")

    write, read = requests(f"sqlite:///file:{make_url(url).database}?mode=ro&uri=true", key)

    assert (write.status_code, read.status_code) == (503, 200), write.text
    assert int(write.headers["Retry-After"]) > 0 and write.json()["success"] is False


@pytest.fixture
def refused_role(account: tuple[str, str]) -> Iterator[str]:
    """A PostgreSQL role the server refuses every connection to (too many connections: limit 0)."""
    if make_url(account[0]).get_backend_name() != "postgresql":
        pytest.skip("connection limits are PostgreSQL's")
    url = make_url(account[0]).set(drivername="postgresql+psycopg")
    role = f"engage_refused_{uuid.uuid4().hex[:12]}"
    admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sqlalchemy.text(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 0"))
    yield url.set(username=role, password=None).render_as_string(hide_password=False)
    with admin.connect() as connection:
        connection.execute(sqlalchemy.text(f"DROP ROLE {role}"))
    admin.dispose()


def test_a_postgres_server_refusing_connections_is_503_with_retry_after(
    account: tuple[str, str], refused_role: str
) -> None:
    """Every request of a role over its connection limit answers 503 with Retry-After."""
    write, read = requests(refused_role, account[1])

    assert (write.status_code, read.status_code) == (503, 503), write.text
    assert all(int(response.headers["Retry-After"]) > 0 for response in (write, read))
