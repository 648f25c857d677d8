"""Impersonation over HTTP: the login link, its landing route, the session cookie and the dashboard page."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from http_support import PartnerCaller
from starlette.testclient import TestClient

from engage_core.partners.client_service import ClientPatch
from engage_core.services import Services
from engage_core.testing import FakeCipher, FakeClock
from engage_http import access_log, create_app
from engage_http.dashboard import SESSION_COOKIE, SessionCookies


@pytest.fixture
def browser(services: Services, clock: FakeClock) -> TestClient:
    """A client of the app with the impersonation routes served; it keeps cookies like a browser."""
    return TestClient(create_app(services, sessions=SessionCookies(FakeCipher(), clock)))


@pytest.fixture
def login_path(make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]) -> str:
    """The path of a fresh login link to the `Acme` client of a new partner."""
    partner = make_partner()
    client_id = make_client_workspace(partner, "Acme")
    url = partner.api.post(f"/partner/clients/{client_id}/impersonate").json()["data"]["login_url"]
    return url[url.index("/impersonate/") :]


def test_the_link_redirects_303_to_the_dashboard(browser: TestClient, login_path: str) -> None:
    """The landing route answers 303 to the client's dashboard URL."""
    response = browser.get(login_path, follow_redirects=False)

    assert response.status_code == 303
    assert response.headers["location"].endswith("/dashboard/acme")


def test_the_session_cookie_is_httponly_and_samesite_lax(browser: TestClient, login_path: str) -> None:
    """The session cookie is HttpOnly and SameSite=Lax (and not Secure over plain http)."""
    cookie = browser.get(login_path, follow_redirects=False).headers["set-cookie"].lower()

    assert cookie.startswith(SESSION_COOKIE + "=")
    assert "httponly" in cookie
    assert "samesite=lax" in cookie
    assert "secure" not in cookie


def test_the_session_cookie_is_secure_over_https(services: Services, clock: FakeClock, login_path: str) -> None:
    """Over https the session cookie is also Secure."""
    secure = TestClient(
        create_app(services, sessions=SessionCookies(FakeCipher(), clock)), base_url="https://testserver"
    )

    cookie = secure.get(login_path, follow_redirects=False).headers["set-cookie"].lower()

    assert "secure" in cookie


def test_the_dashboard_shows_the_workspace_name(browser: TestClient, login_path: str) -> None:
    """Following the redirect, the dashboard page names the workspace."""
    location = browser.get(login_path, follow_redirects=False).headers["location"]

    page = browser.get(location[location.index("/dashboard/") :])

    assert page.status_code == 200
    assert "Acme" in page.text


def test_a_second_use_of_the_link_is_410(browser: TestClient, login_path: str) -> None:
    """The link works once."""
    browser.get(login_path, follow_redirects=False)

    response = browser.get(login_path, follow_redirects=False)

    assert response.status_code == 410


def test_an_expired_link_is_410(browser: TestClient, login_path: str, clock: FakeClock) -> None:
    """Five minutes after it was issued, the link is refused."""
    clock.advance(minutes=5, seconds=1)

    response = browser.get(login_path, follow_redirects=False)

    assert response.status_code == 410


def test_an_unknown_token_is_410(browser: TestClient) -> None:
    """A made-up token is refused like a used one."""
    response = browser.get("/impersonate/not-a-real-token", follow_redirects=False)

    assert response.status_code == 410


def test_the_dashboard_without_a_session_is_401(browser: TestClient) -> None:
    """No cookie, no dashboard."""
    response = browser.get("/dashboard/acme")

    assert response.status_code == 401


def test_a_forged_session_cookie_is_401(browser: TestClient) -> None:
    """A cookie that is not a sealed session opens nothing."""
    browser.cookies.set(SESSION_COOKIE, "Zm9yZ2Vk")

    response = browser.get("/dashboard/acme")

    assert response.status_code == 401


def test_an_expired_session_is_401(browser: TestClient, login_path: str, clock: FakeClock) -> None:
    """After the session's lifetime the dashboard asks to sign in again."""
    browser.get(login_path, follow_redirects=False)
    clock.advance(hours=8, seconds=1)

    response = browser.get("/dashboard/acme")

    assert response.status_code == 401


def test_a_session_does_not_open_another_workspace(browser: TestClient, login_path: str) -> None:
    """The session opens its own workspace's dashboard only."""
    browser.get(login_path, follow_redirects=False)

    response = browser.get("/dashboard/other")

    assert response.status_code == 404


def test_suspending_the_client_closes_its_dashboard(
    browser: TestClient,
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
) -> None:
    """A session of a client suspended since is refused with 403."""
    _land_then_suspend(browser, make_partner, make_client_workspace)

    response = browser.get("/dashboard/acme")

    assert response.status_code == 403


def test_a_suspended_client_cannot_be_impersonated(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """`POST .../impersonate` of a suspended client is 403."""
    partner = make_partner()
    client_id = make_client_workspace(partner)
    partner.api.post(f"/partner/clients/{client_id}/suspend")

    response = partner.api.post(f"/partner/clients/{client_id}/impersonate")

    assert response.status_code == 403


def test_the_access_log_line_never_shows_the_token(caplog: pytest.LogCaptureFixture) -> None:
    """With the filter installed, uvicorn's access line for a login link has the token redacted."""
    access_log.install()
    token = "s3cr3t-token-value"
    with caplog.at_level(logging.INFO, logger=access_log.ACCESS_LOGGER):
        # the call uvicorn's protocols make for every request
        logging.getLogger(access_log.ACCESS_LOGGER).info(
            '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/impersonate/{token}?x=1", "1.1", 303
        )

    [record] = caplog.records
    assert token not in record.getMessage()
    assert "/impersonate/[redacted]?x=1" in record.getMessage()


def test_installing_the_filter_twice_adds_it_once() -> None:
    """`install` is idempotent."""
    access_log.install()
    access_log.install()

    filters = logging.getLogger(access_log.ACCESS_LOGGER).filters

    assert sum(isinstance(f, access_log.RedactCredentials) for f in filters) == 1


# -- impersonation ends with the partner and the key that minted it ---------------------------------

PartnerChange = Callable[[Services, int], object]
ENDS_IMPERSONATION: dict[str, PartnerChange] = {
    "suspend": lambda services, partner_id: services.partners.suspend(partner_id),
    "rotate-key": lambda services, partner_id: services.partners.rotate_key(partner_id),
    "suspend-and-activate": lambda services, partner_id: (
        services.partners.suspend(partner_id),
        services.partners.activate(partner_id),
    ),
}


@pytest.fixture
def partner_login(
    make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> tuple[int, int, str]:
    """(partner id, client id, login path) of a fresh link to the `Acme` client of a new partner."""
    partner = make_partner()
    client_id = make_client_workspace(partner, "Acme")
    url = partner.api.post(f"/partner/clients/{client_id}/impersonate").json()["data"]["login_url"]
    return partner.partner_id, client_id, url[url.index("/impersonate/") :]


@pytest.mark.parametrize("change", ENDS_IMPERSONATION.values(), ids=ENDS_IMPERSONATION.keys())
def test_a_link_minted_before_the_change_does_not_redeem(
    browser: TestClient, services: Services, partner_login: tuple[int, int, str], change: PartnerChange
) -> None:
    """A login link minted before the partner was suspended or its key rotated sets no session."""
    partner_id, _, path = partner_login
    change(services, partner_id)

    response = browser.get(path, follow_redirects=False)

    assert response.status_code in (403, 410)
    assert "set-cookie" not in response.headers


@pytest.mark.parametrize("change", ENDS_IMPERSONATION.values(), ids=ENDS_IMPERSONATION.keys())
def test_a_session_opened_before_the_change_no_longer_opens_the_dashboard(
    browser: TestClient, services: Services, partner_login: tuple[int, int, str], change: PartnerChange
) -> None:
    """A session cookie from before the partner was suspended or its key rotated is refused."""
    partner_id, _, path = partner_login
    browser.get(path, follow_redirects=False)
    change(services, partner_id)

    response = browser.get("/dashboard/acme")

    assert response.status_code in (401, 403)
    assert "Acme" not in response.text


def test_a_deleted_client_closes_its_dashboard(
    browser: TestClient, services: Services, partner_login: tuple[int, int, str]
) -> None:
    """A session of a client deleted since asks to sign in again."""
    partner_id, client_id, path = partner_login
    browser.get(path, follow_redirects=False)
    services.partner_clients.delete(partner_id, client_id)

    response = browser.get("/dashboard/acme")

    assert response.status_code == 401


def test_a_link_of_a_client_suspended_since_is_403(
    browser: TestClient, services: Services, partner_login: tuple[int, int, str]
) -> None:
    """A login link of a client suspended after it was minted sets no session."""
    partner_id, client_id, path = partner_login
    services.partner_clients.suspend(partner_id, client_id)

    response = browser.get(path, follow_redirects=False)

    assert (response.status_code, "set-cookie" in response.headers) == (403, False)


def test_a_plan_change_keeps_the_dashboard_open(
    browser: TestClient, services: Services, partner_login: tuple[int, int, str]
) -> None:
    """Moving the client to another plan leaves the session working."""
    partner_id, client_id, path = partner_login
    browser.get(path, follow_redirects=False)
    services.partner_clients.update(partner_id, client_id, ClientPatch(plan="starter", immediate=True))

    response = browser.get("/dashboard/acme")

    assert response.status_code == 200


def test_a_link_of_the_new_key_opens_the_dashboard_again(
    browser: TestClient, services: Services, partner_login: tuple[int, int, str]
) -> None:
    """After a rotation, a new link from the new key opens the dashboard again."""
    partner_id, client_id, path = partner_login
    browser.get(path, follow_redirects=False)
    services.partners.rotate_key(partner_id)
    url = services.partner_clients.impersonate(partner_id, client_id).login_url

    browser.get(url[url.index("/impersonate/") :], follow_redirects=False)

    assert browser.get("/dashboard/acme").status_code == 200


def test_the_link_opens_the_inbox_as_the_clients_admin_marked_impersonated(
    browser: TestClient, login_path: str
) -> None:
    """After the landing, `/app/inbox` opens with the impersonation banner and the admin's pages."""
    browser.get(login_path)
    inbox = browser.get("/app/inbox")
    assert inbox.status_code == 200
    assert "Impersonated: you are viewing Acme as its admin" in inbox.text
    assert browser.get("/app/settings/api-key").status_code == 200


def test_suspending_the_client_closes_its_inbox(
    browser: TestClient,
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
) -> None:
    """An impersonation session of a client suspended since is sent back to sign in."""
    _land_then_suspend(browser, make_partner, make_client_workspace)
    assert browser.get("/app/inbox", follow_redirects=False).status_code == 303


def _land_then_suspend(
    browser: TestClient, make_partner: Callable[..., PartnerCaller], make_client_workspace: Callable[..., int]
) -> None:
    """Land with a login link to a new partner's `Acme`, then have the partner suspend the client."""
    partner = make_partner()
    client_id = make_client_workspace(partner, "Acme")
    url = partner.api.post(f"/partner/clients/{client_id}/impersonate").json()["data"]["login_url"]
    browser.get(url[url.index("/impersonate/") :], follow_redirects=False)
    partner.api.post(f"/partner/clients/{client_id}/suspend")
