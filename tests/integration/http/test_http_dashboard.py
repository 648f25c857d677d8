"""Security headers of the dashboard's HTML pages (`engage_http.dashboard`): no page may be framed,
sniffed into another type, load anything, or leak its URL in a Referer."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from http_support import PartnerCaller
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.testing import FakeCipher, FakeClock
from engage_http import create_app
from engage_http.dashboard import SessionCookies

SECURITY_HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


@pytest.fixture
def browser(services: Services, clock: FakeClock) -> TestClient:
    """A client of the app with the dashboard served; it keeps cookies like a browser."""
    return TestClient(create_app(services, sessions=SessionCookies(FakeCipher(), clock)))


@pytest.fixture
def login_path(make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]) -> str:
    partner = make_partner()
    client_id = make_client_workspace(partner, "Acme")
    url = partner.api.post(f"/partner/clients/{client_id}/impersonate").json()["data"]["login_url"]
    return url[url.index("/impersonate/") :]


def pages(browser: TestClient, login_path: str) -> dict[int, httpx.Response]:
    """One answer of each kind: the dashboard (200), a foreign slug (404), the used link (410), and
    the dashboard without a session (401)."""
    browser.get(login_path)
    answers = {
        200: browser.get("/dashboard/acme"),
        404: browser.get("/dashboard/other"),
        410: browser.get(login_path),
    }
    browser.cookies.clear()
    answers[401] = browser.get("/dashboard/acme")
    return answers


def test_every_dashboard_page_carries_the_security_headers(browser: TestClient, login_path: str) -> None:
    """200, 401, 404 and 410 pages all forbid framing and sniffing and send no Referer."""
    for status, response in pages(browser, login_path).items():
        assert response.status_code == status
        assert {name: response.headers.get(name) for name in SECURITY_HEADERS} == SECURITY_HEADERS


def test_every_dashboard_page_has_a_strict_content_security_policy(browser: TestClient, login_path: str) -> None:
    """The policy loads nothing (`default-src 'none'`), and forbids framing, forms and a base URL."""
    for response in pages(browser, login_path).values():
        policy = {part.strip() for part in response.headers["content-security-policy"].split(";")}
        assert {"default-src 'none'", "frame-ancestors 'none'", "form-action 'none'", "base-uri 'none'"} <= policy
