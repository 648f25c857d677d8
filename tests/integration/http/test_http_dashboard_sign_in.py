"""Signing in to the dashboard (`engage_http.dashboard.sign_in`) over the in-memory fakes: the form,
wrong credentials, the lockout, several workspaces, sessions ending, signing out, and the pages' headers."""

from __future__ import annotations

from collections.abc import Callable

from dashboard_support import PASSWORD, csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.team.service import MemberPatch
from engage_core.team.sign_in import FAILURES_BEFORE_LOCKOUT
from engage_core.testing import FakeClock
from engage_http.dashboard import SESSION_COOKIE


def test_the_sign_in_page_fills_in_the_invitations_address(browser: TestClient) -> None:
    """`/login?email=` (the invitation's link) shows the form with the address filled in."""
    page = browser.get("/login", params={"email": "ada@example.com"})
    assert page.status_code == 200
    assert 'value="ada@example.com"' in page.text


def test_signing_in_opens_the_inbox(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> None:
    """The right address and password set the session cookie and lead to the inbox."""
    add_member(tenant)
    answer = sign_in(browser)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/app/inbox"
    assert browser.get("/app/inbox").status_code == 200


def test_a_wrong_password_is_refused_with_the_same_message_as_an_unknown_address(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """A wrong password and an unknown address both answer 401 with one message and no session."""
    add_member(tenant)
    wrong = sign_in(browser, password="not the password")
    unknown = sign_in(browser, email="nobody@example.com")
    assert (wrong.status_code, unknown.status_code) == (401, 401)
    assert "The e-mail address or password is incorrect." in wrong.text
    assert "The e-mail address or password is incorrect." in unknown.text
    assert SESSION_COOKIE not in browser.cookies


def test_repeated_failures_lock_the_address_even_for_the_right_password(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """After the lockout's number of failures the right password is refused too, with 429."""
    add_member(tenant)
    for _ in range(FAILURES_BEFORE_LOCKOUT):
        assert sign_in(browser, password="guess guess").status_code == 401
    locked = sign_in(browser)
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.text
    assert int(locked.headers["retry-after"]) > 0


def test_the_lock_ends_with_its_window(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], clock: FakeClock
) -> None:
    """Once the lockout window has passed, the right password signs in again."""
    add_member(tenant)
    for _ in range(FAILURES_BEFORE_LOCKOUT):
        sign_in(browser, password="guess guess")
    clock.advance(minutes=16)
    assert sign_in(browser).status_code == 303


def test_a_sign_in_without_the_forms_token_is_refused(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """A sign-in posted from elsewhere (no token cookie and field) is 403 and opens nothing."""
    add_member(tenant)
    answer = browser.post("/login", data={"email": "ada@example.com", "password": PASSWORD})
    assert answer.status_code == 403
    assert SESSION_COOKIE not in browser.cookies


def test_an_address_of_two_workspaces_chooses_one(
    browser: TestClient, make_tenant: Callable[..., Tenant], add_member: Callable[..., int]
) -> None:
    """An address and password right in two workspaces asks which, then opens the one chosen."""
    first, second = make_tenant("First"), make_tenant("Second")
    add_member(first)
    add_member(second)
    choice = sign_in(browser)
    assert choice.status_code == 200
    assert "First" in choice.text and "Second" in choice.text
    answer = browser.post("/login/workspace", data={"workspace": str(second.account_id), "csrf": csrf_of(choice)})
    assert answer.status_code == 303
    assert "Second" in browser.get("/app/inbox").text


def test_a_page_without_a_session_sends_the_browser_to_sign_in(browser: TestClient) -> None:
    """Without a session, a dashboard page redirects to `/login` with the page to come back to."""
    answer = browser.get("/app/inbox")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/login?next=%2Fapp%2Finbox"


def test_changing_the_password_ends_every_session(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A session signed in with the old password is over once the password changes."""
    member_id = add_member(tenant)
    sign_in(browser)
    services.team.update(tenant.account_id, member_id, MemberPatch(password="a brand new password"))
    assert browser.get("/app/inbox").status_code == 303


def test_deactivating_the_member_ends_the_session(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """An inactive member's session no longer opens pages."""
    member_id = add_member(tenant)
    sign_in(browser)
    services.team.update(tenant.account_id, member_id, MemberPatch(status="inactive"))
    assert browser.get("/app/inbox").status_code == 303


def test_signing_out_ends_the_session(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> None:
    """`POST /logout` with the page's token drops the cookie."""
    add_member(tenant)
    sign_in(browser)
    inbox = browser.get("/app/inbox")
    browser.post("/logout", data={"csrf": csrf_of(inbox)})
    assert browser.get("/app/inbox").status_code == 303


def test_dashboard_pages_forbid_framing_and_inline_code(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """Every page has a policy that loads only this site's files and can't be framed."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox")
    policy = {part.strip() for part in page.headers["content-security-policy"].split(";")}
    assert {"default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "style-src 'self'"} <= policy
    assert page.headers["x-frame-options"] == "DENY"


def test_the_stylesheet_is_served_from_the_package(browser: TestClient) -> None:
    """`/app/static/dashboard.css` is served as CSS without a session."""
    answer = browser.get("/app/static/dashboard.css")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/css")


def test_the_script_of_the_live_regions_is_served_from_the_package(browser: TestClient) -> None:
    """`/app/static/dashboard.js` is served as JavaScript without a session."""
    answer = browser.get("/app/static/dashboard.js")
    assert answer.status_code == 200
    assert "javascript" in answer.headers["content-type"]
