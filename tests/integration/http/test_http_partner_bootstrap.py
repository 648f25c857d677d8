"""The partner API and impersonation end to end over the composition root and a SQLite file."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.settings import Settings
from engage_http import access_log
from engage_http.bootstrap import build_app
from engage_http.dashboard import SESSION_COOKIE

API = "/api/v1"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[TestClient]:
    """The real app over SQLite (migrated, Fernet sessions, no worker), as a cookie-keeping browser."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'engage.db'}", run_worker=False)
    with TestClient(build_app(settings)) as client:
        yield client


@pytest.fixture
def partner_key(browser: TestClient) -> str:
    services: Services = browser.app.state.services  # type: ignore[attr-defined]
    return services.partners.create("Agency", "owner@agency.example").partner_key


def test_a_partner_provisions_a_client_and_opens_its_dashboard_once(browser: TestClient, partner_key: str) -> None:
    """Create a client, impersonate it, land on its dashboard with a session; the link then is spent."""
    headers = {"X-Partner-Key": partner_key}
    body = {
        "company_name": "Acme Dental",
        "plan": "starter",
        "admin": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@acme.example"},
        "skip_invite": True,
    }
    client_id = browser.post(API + "/partner/clients", json=body, headers=headers).json()["data"]["id"]
    link = browser.post(f"{API}/partner/clients/{client_id}/impersonate", headers=headers).json()["data"]["login_url"]
    path = link[link.index("/impersonate/") :]

    landing = browser.get(path, follow_redirects=False)
    location = landing.headers["location"]
    page = browser.get(location[location.index("/dashboard/") :])
    again = browser.get(path, follow_redirects=False)

    assert landing.status_code == 303
    assert SESSION_COOKIE in landing.headers["set-cookie"]
    assert page.status_code == 200 and "Acme Dental" in page.text
    assert again.status_code == 410


def test_the_session_cookie_is_sealed_not_readable(browser: TestClient, partner_key: str) -> None:
    """The cookie holds no readable account or partner id: Fernet seals it under the secret key."""
    headers = {"X-Partner-Key": partner_key}
    body = {
        "company_name": "Beta",
        "plan": "pro",
        "admin": {"first_name": "B", "last_name": "C", "email": "b@beta.example"},
    }
    client_id = browser.post(API + "/partner/clients", json=body, headers=headers).json()["data"]["id"]
    link = browser.post(f"{API}/partner/clients/{client_id}/impersonate", headers=headers).json()["data"]["login_url"]

    browser.get(link[link.index("/impersonate/") :], follow_redirects=False)
    cookie = browser.cookies[SESSION_COOKIE]

    sealed = base64.urlsafe_b64decode(cookie + "=" * (-len(cookie) % 4)).decode()
    assert sealed.startswith("v1:") and '"a"' not in sealed


def test_building_the_app_installs_the_access_log_filter(tmp_path: Path) -> None:
    """`build_app` redacts login-link tokens from uvicorn's access log."""
    logger = logging.getLogger(access_log.ACCESS_LOGGER)
    for existing in [f for f in logger.filters if isinstance(f, access_log.RedactCredentials)]:
        logger.removeFilter(existing)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'engage.db'}", run_worker=False)

    with TestClient(build_app(settings)):
        installed = [f for f in logger.filters if isinstance(f, access_log.RedactCredentials)]

    assert len(installed) == 1
