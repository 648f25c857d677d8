"""Connecting channels from the dashboard (`engage_http.dashboard.channels`) over the in-memory fakes
and the sandbox gateway: the QR code drawn as an image, the status region, a login with 2FA rounds,
a refused password, disconnecting, and agents refused."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable

import httpx
import pytest
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services


@pytest.fixture
def admin(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> httpx.Response:
    """Sign in as an admin; the channels page."""
    add_member(tenant)
    sign_in(browser)
    return browser.get("/app/channels")


def test_the_page_offers_every_channel(admin: httpx.Response) -> None:
    """WhatsApp and Telegram by QR code, Instagram and LinkedIn by login."""
    assert admin.status_code == 200
    assert admin.text.count("Connect with a QR code") == 2
    assert admin.text.count(">Log in</button>") == 2


def test_a_qr_connect_shows_the_providers_code_as_an_image(
    browser: TestClient, admin: httpx.Response, services: Services, tenant: Tenant
) -> None:
    """The image is an SVG of the QR code; the attempt is pending until scanned."""
    answer = browser.post("/app/channels/whatsapp/connect", data={"csrf": csrf_of(admin)})
    assert answer.status_code == 200
    image = re.search(r'<img class="qr" src="data:image/svg\+xml;charset=utf-8,([^"]+)"', answer.text)
    assert image is not None
    assert urllib.parse.unquote(image.group(1)).startswith("<svg")
    [channel] = services.channels.list(tenant.account_id)
    assert (channel.type, channel.in_progress) == ("whatsapp", True)
    assert "Waiting for the code to be scanned" in answer.text


def test_the_status_region_says_connected_once_the_code_is_scanned(
    browser: TestClient, admin: httpx.Response, services: Services, tenant: Tenant, sandbox: SandboxGateway
) -> None:
    """After the scan, the live region (polled by the page) reports the connection."""
    browser.post("/app/channels/whatsapp/connect", data={"csrf": csrf_of(admin)})
    [channel] = services.channels.list(tenant.account_id)
    sandbox.scan(channel.provider_account_id or "", "+14155550100")
    region = browser.get("/app/channels/whatsapp/status", headers={"X-Engage-Fragment": "1"})
    assert "Connected as +14155550100" in region.text and "<html" not in region.text


def test_a_login_with_two_rounds_of_2fa_connects(
    browser: TestClient, admin: httpx.Response, services: Services, tenant: Tenant
) -> None:
    """A password asking for two rounds: two code pages, then connected."""
    page = browser.post(
        "/app/channels/instagram/login", data={"username": "shop", "password": "secret#2fa2", "csrf": csrf_of(admin)}
    )
    for _ in range(2):
        assert 'name="code"' in page.text
        attempt = re.search(r'name="attempt" value="([^"]+)"', page.text)
        assert attempt is not None
        page = browser.post(
            "/app/channels/instagram/code", data={"attempt": attempt.group(1), "code": "123456", "csrf": csrf_of(page)}
        )
    assert page.status_code == 303
    [channel] = services.channels.list(tenant.account_id)
    assert channel.is_connected


def test_a_wrong_code_keeps_the_round_waiting_with_the_error(
    browser: TestClient, admin: httpx.Response, services: Services, tenant: Tenant
) -> None:
    """A wrong code answers 422 beside the code field; the checkpoint still waits."""
    page = browser.post(
        "/app/channels/instagram/login", data={"username": "shop", "password": "secret#2fa", "csrf": csrf_of(admin)}
    )
    attempt = re.search(r'name="attempt" value="([^"]+)"', page.text)
    assert attempt is not None
    answer = browser.post(
        "/app/channels/instagram/code", data={"attempt": attempt.group(1), "code": "000000", "csrf": csrf_of(page)}
    )
    assert answer.status_code == 422 and 'id="code-error"' in answer.text
    [channel] = services.channels.list(tenant.account_id)
    assert channel.checkpoint_type is not None


def test_a_refused_password_shows_beside_its_channels_field(browser: TestClient, admin: httpx.Response) -> None:
    """The provider's refusal is a 422 beside the Instagram password."""
    answer = browser.post(
        "/app/channels/instagram/login", data={"username": "shop", "password": "wrong one", "csrf": csrf_of(admin)}
    )
    assert answer.status_code == 422
    assert 'id="instagram-password-error"' in answer.text


def test_disconnecting_a_channel(
    browser: TestClient, admin: httpx.Response, services: Services, tenant: Tenant
) -> None:
    """Disconnect: the channel is gone and the page says so."""
    browser.post("/app/channels/telegram/connect", data={"csrf": csrf_of(admin)})
    page = browser.get("/app/channels")
    answer = browser.post("/app/channels/telegram/disconnect", data={"csrf": csrf_of(page)})
    assert answer.headers["location"] == "/app/channels?done=disconnected"
    assert services.channels.list(tenant.account_id) == []


def test_an_unknown_channel_is_not_found(browser: TestClient, admin: httpx.Response) -> None:
    """A QR connect of a login channel is 404, as in the API."""
    assert browser.post("/app/channels/instagram/connect", data={"csrf": csrf_of(admin)}).status_code == 404


def test_an_agent_is_refused_the_channels_page(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """Connecting channels is for admins: 403 to an agent."""
    add_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/channels").status_code == 403
