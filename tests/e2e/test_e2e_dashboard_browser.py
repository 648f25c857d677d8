"""The dashboard in a real browser (Playwright driving Debian's Chromium) against a real `engage serve`:
a team member signs in, answers a WhatsApp conversation from the sandbox, takes it over, rotates the
API key and sees the old one refused; an agent is refused the keys page; axe finds no accessibility
violation on the main pages, at a desktop's width and a phone's."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = Path("/usr/bin/chromium")
AXE = Path(__file__).parent / "fixtures" / "axe.min.js"
WAIT_MS = 60_000
PASSWORD = "correct horse battery"
PHONE = "+14155550123"
SCREENSHOTS = os.environ.get("ENGAGE_DASHBOARD_SCREENSHOTS")
"""A directory to save the dashboard's screenshots in (the README's come from here); unset: none saved."""


class Workspace:
    """The workspace API of the server, with its key."""

    def __init__(self, base_url: str, api_key: str) -> None:
        self.http = httpx.Client(base_url=f"{base_url}/api/v1", headers={"X-Api-Key": api_key}, timeout=10.0)

    def call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.status_code < 300, response.text
        return response.json()["data"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium)")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def served(start_server: Callable[..., Any]) -> tuple[Any, Workspace]:
    """A server whose workspace has an admin, an agent and a WhatsApp conversation from the sandbox."""
    server = start_server()
    space = Workspace(server.base_url, server.create_account("Kettle Shop"))
    space.call("POST", "/team", {"name": "Ada", "email": "ada@example.com", "role": "admin", "password": PASSWORD})
    space.call("POST", "/team", {"name": "Grace", "email": "grace@example.com", "role": "agent", "password": PASSWORD})
    space.call("POST", "/channels/whatsapp/connect")
    space.call("POST", "/sandbox/channels/whatsapp/scan", {})
    space.call(
        "POST",
        "/sandbox/channels/whatsapp/messages",
        {"sender": PHONE, "text": "Is the blue kettle in stock?", "sender_name": "Linus"},
    )
    return server, space


def shot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / name), full_page=True)


def signed_in(browser: Any, base_url: str, email: str = "ada@example.com") -> Any:
    """A page of a new browser context, signed in as `email`."""
    context = browser.new_context(bypass_csp=True)  # lets axe's script in; the pages' own need no exception
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{base_url}/login")
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/app/inbox$"))
    return page


def no_violations(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    rules = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
    script = "(rules) => axe.run(document, rules).then(r => r.violations.map(v => v.id + ': ' + v.help))"
    violations: list[str] = page.evaluate(script, rules)
    return violations


def test_a_member_answers_a_whatsapp_conversation(browser: Any, served: tuple[Any, Workspace]) -> None:
    """Sign in, open the conversation from the inbox, reply: the reply shows, sent through WhatsApp."""
    server, space = served
    page = signed_in(browser, server.base_url)
    shot(page, "dashboard-inbox.png")
    page.get_by_role("link", name=re.compile("Linus")).click()
    page.get_by_label("Reply through WhatsApp").fill("Yes, four are left.")
    page.get_by_role("button", name="Send").click()
    page.get_by_text("Reply sent.").wait_for()
    page.locator(".message.outbound", has_text="Yes, four are left.").wait_for()
    shot(page, "dashboard-conversation.png")
    contact_id = int(page.url.split("/conversations/")[1].split("?")[0])
    sent = space.call("GET", f"/contacts/{contact_id}/messages?direction=outbound")
    assert [(m["content"], m["status"]) for m in sent] == [("Yes, four are left.", "sent")]
    page.context.close()


def test_a_member_takes_a_conversation_over_from_the_ai(browser: Any, served: tuple[Any, Workspace]) -> None:
    """Take over: the page says a human (you) answers; the API agrees."""
    server, space = served
    page = signed_in(browser, server.base_url)
    page.get_by_role("link", name=re.compile("Linus")).click()
    page.get_by_role("button", name="Take over").click()
    page.get_by_text("A human answers: you.").wait_for()
    contact_id = int(page.url.split("/conversations/")[1].split("?")[0])
    assert space.call("GET", f"/conversations/{contact_id}/handling")["handled_by"] == "human"
    page.get_by_role("button", name="Release to the AI").click()
    page.get_by_text("The AI agent answers.").wait_for()
    page.context.close()


def test_new_messages_appear_without_a_reload(browser: Any, served: tuple[Any, Workspace]) -> None:
    """A message arriving while the inbox (listening to its live channel) and then the conversation are
    open shows up in place."""
    server, space = served
    page = signed_in(browser, server.base_url)
    with page.expect_request(lambda request: request.url.endswith("/app/inbox/stream")):  # the inbox's live channel
        page.reload()
    page.evaluate("() => { window.notReloaded = true; }")
    space.call(
        "POST", "/sandbox/channels/whatsapp/messages", {"sender": "+14155550199", "text": "Do you ship to Oslo?"}
    )
    page.get_by_text("Do you ship to Oslo?").wait_for()
    page.get_by_role("link", name=re.compile("Oslo")).click()
    page.evaluate("() => { window.notReloaded = true; }")
    space.call("POST", "/sandbox/channels/whatsapp/messages", {"sender": "+14155550199", "text": "By sea is fine."})
    page.locator(".message.inbound", has_text="By sea is fine.").wait_for()
    assert page.evaluate("() => window.notReloaded") is True
    page.context.close()


def test_a_member_takes_over_a_web_chat_and_sees_the_visitor_live(browser: Any, served: tuple[Any, Workspace]) -> None:
    """Take over a visitor's chat; the visitor's next message appears without a reload; the reply reaches them."""
    server, space = served
    origin = "https://shop.example"
    widget = space.call("PUT", "/web-chat/widget", {"allowed_origins": [origin]})["widget_key"]
    visitor = httpx.Client(base_url=f"{server.base_url}/widget/{widget}", headers={"Origin": origin}, timeout=10.0)
    token = visitor.post("/sessions", json={"visitor_name": "Mia"}).json()["data"]["token"]
    visitor.headers["X-Widget-Session"] = token
    assert visitor.post("/session/messages", json={"message": "Is anyone there?"}).status_code < 300
    page = signed_in(browser, server.base_url)
    page.get_by_role("link", name="Web chat", exact=True).click()
    with page.expect_request(lambda request: request.url.endswith("/stream")):  # the session's live channel
        page.get_by_role("link", name=re.compile("Mia")).click()
    page.get_by_role("button", name="Take over").click()
    page.get_by_text("A person answers.").wait_for()
    page.evaluate("() => { window.notReloaded = true; }")
    assert visitor.post("/session/messages", json={"message": "I need help with my order"}).status_code < 300
    page.locator(".message.visitor", has_text="I need help with my order").wait_for()
    assert page.evaluate("() => window.notReloaded") is True
    shot(page, "dashboard-web-chat.png")
    page.get_by_label("Message to the visitor").fill("Hello Mia, I am here.")
    page.get_by_role("button", name="Send").click()
    page.get_by_text("Message sent to the visitor.").wait_for()
    thread = visitor.get("/session").json()["data"]
    assert ("agent", "Hello Mia, I am here.") in [(m["sender_type"], m["message_text"]) for m in thread["messages"]]
    page.context.close()


def test_a_qr_code_scanned_shows_the_channel_connected_live(browser: Any, served: tuple[Any, Workspace]) -> None:
    """Connect Telegram: the QR code is an image; once scanned, the page says connected without a reload."""
    server, space = served
    page = signed_in(browser, server.base_url)
    page.get_by_role("link", name="Channels").click()
    page.get_by_role("region", name="Telegram").get_by_role("button", name="Connect with a QR code").click()
    image = page.get_by_role("img", name=re.compile("QR code that links Telegram"))
    image.wait_for()
    assert page.evaluate("(img) => img.complete && img.naturalWidth > 100", image.element_handle())
    shot(page, "dashboard-channel-qr.png")
    page.evaluate("() => { window.notReloaded = true; }")
    space.call("POST", "/sandbox/channels/telegram/scan", {"username": "kettle_shop"})
    page.get_by_text("Connected as kettle_shop").wait_for()
    assert page.evaluate("() => window.notReloaded") is True
    page.context.close()


def test_rotating_the_key_refuses_the_old_one(browser: Any, served: tuple[Any, Workspace]) -> None:
    """The new key is shown once and works; the old key is refused with 401."""
    server, space = served
    page = signed_in(browser, server.base_url)
    page.get_by_role("link", name="API key").click()  # the last test of the module to use the key
    page.get_by_role("button", name="Rotate the key").click()
    new_key = page.get_by_label("New key").input_value()
    assert space.http.get("/contacts").status_code == 401
    space.http.headers["X-Api-Key"] = new_key
    assert space.http.get("/contacts").status_code == 200
    page.context.close()


def test_an_agent_is_refused_the_keys_page(browser: Any, served: tuple[Any, Workspace]) -> None:
    """An agent has no link to the keys page, and opening it is 403."""
    server, _ = served
    page = signed_in(browser, server.base_url, "grace@example.com")
    assert page.get_by_role("link", name="API key").count() == 0
    answer = page.goto(f"{server.base_url}/app/settings/api-key")
    assert answer.status == 403
    page.context.close()


def test_a_partners_impersonation_link_lands_signed_in_and_marked(browser: Any, served: tuple[Any, Workspace]) -> None:
    """A partner's login link opens the client's inbox as its admin, with the banner on every page."""
    server, _ = served
    partner_key = json.loads(
        server.engage("partners", "create", "--company", "Reseller", "--email", "ops@reseller.example", "--json")
    )["partner_key"]
    partner = httpx.Client(
        base_url=f"{server.base_url}/api/v1/partner", headers={"X-Partner-Key": partner_key}, timeout=10.0
    )
    admin = {"first_name": "Lin", "last_name": "Client", "email": "lin@client.example"}
    created = partner.post(
        "/clients", json={"company_name": "Client Co", "plan": "pro", "admin": admin, "skip_invite": True}
    )
    assert created.status_code == 201, created.text
    link = partner.post(f"/clients/{created.json()['data']['id']}/impersonate").json()["data"]["login_url"]
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(server.base_url + link[link.index("/impersonate/") :])
    page.get_by_role("link", name="Open the inbox").click()
    page.get_by_text("Impersonated: you are viewing Client Co as its admin").wait_for()
    page.get_by_role("link", name="Overview").click()
    page.get_by_text("Impersonated: you are viewing Client Co as its admin").wait_for()
    context.close()


def test_the_main_pages_have_no_accessibility_violations(browser: Any, served: tuple[Any, Workspace]) -> None:
    """axe-core (WCAG 2 A and AA) finds nothing wrong on the sign-in page, the inbox, a conversation,
    the overview, the channels, team and webhooks pages and the web chat list."""
    server, _ = served
    context = browser.new_context(bypass_csp=True)
    login = context.new_page()
    login.goto(f"{server.base_url}/login")
    shot(login, "dashboard-sign-in.png")
    assert no_violations(login) == []
    page = signed_in(browser, server.base_url)
    assert no_violations(page) == []
    page.get_by_role("link", name=re.compile("Linus")).click()
    assert no_violations(page) == []
    pages = ("/app/overview", "/app/channels", "/app/contacts", "/app/segments", "/app/knowledge", "/app/tickets")
    for path in (
        *pages,
        "/app/orders",
        "/app/bookings",
        "/app/campaigns",
        "/app/agents",
        "/app/settings/team",
        "/app/settings/api-key",
        "/app/settings/webhooks",
        "/app/web-chat",
    ):
        page.goto(f"{server.base_url}{path}")
        assert no_violations(page) == [], path
    page.goto(f"{server.base_url}/app/overview")
    shot(page, "dashboard-overview.png")
    page.set_viewport_size({"width": 390, "height": 800})  # a phone: the pages still have no violation
    for path in ("/app/overview", "/app/inbox", "/app/settings/webhooks"):
        page.goto(f"{server.base_url}{path}")
        assert no_violations(page) == [], path
    context.close()
    page.context.close()
