"""The web chat widget in a real browser (Playwright driving Debian's Chromium) against a real
`engage serve`: a page on another origin embeds it with one script tag; the visitor writes and the AI
answers from the knowledge base; the visitor asks for a person; an agent takes over through the API and
its message appears without a reload; a reload keeps the history; ending (confirmed) shows the end and
a fresh chat starts; a chat ended through the API shows as ended live; Arabic is right to left; an
answer about a product shows its image; and axe finds no accessibility violation."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from media_files import image

pytestmark = pytest.mark.e2e

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = Path("/usr/bin/chromium")
AXE = Path(__file__).parent / "fixtures" / "axe.min.js"
WAIT_MS = 60_000
SHIPPING = "We ship to Canada and Mexico. Parcels to Canada take 7 to 14 days."
SCREENSHOTS = os.environ.get("ENGAGE_WIDGET_SCREENSHOTS")
"""A directory to save the widget's screenshots in (the README's come from here); unset: none saved."""


class HostPage:
    """A shop's page on its own origin (127.0.0.1, another port) embedding the widget."""

    def __init__(self, script_src: str, key: str) -> None:
        html = (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Shop</title></head>"
            "<body><main><h1>Our shop</h1><p>Kettles and teapots.</p></main>"
            f"<script src='{script_src}' data-key='{key}' async></script></body></html>"
        ).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(html)))
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.origin = self.url.rstrip("/")
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Workspace:
    def __init__(self, base_url: str, api_key: str) -> None:
        self.http = httpx.Client(base_url=f"{base_url}/api/v1", headers={"X-Api-Key": api_key}, timeout=10.0)

    def call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.status_code < 300, response.text
        return response.json()["data"]

    def only_session(self) -> str:
        sessions = self.call("GET", "/web-chat/sessions?status=active")
        assert len(sessions) == 1
        return str(sessions[0]["session_id"])


def wait_for(condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"Timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium)")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def shop(start_server: Callable[..., Any]) -> Iterator[tuple[Workspace, HostPage, Any]]:
    server = start_server()
    space = Workspace(server.base_url, server.create_account())
    space.call("POST", "/knowledge-base", {"title": "Shipping", "content": SHIPPING})
    space.call("POST", "/ai-agents", {"name": "Concierge", "system_prompt": "Be kind.", "is_default": True})
    key = space.call("GET", "/web-chat/widget")["widget_key"]
    page = HostPage(f"{server.base_url}/widget.js", key)
    space.call("PUT", "/web-chat/widget", {"allowed_origins": [page.origin], "color": "#0b5394"})
    try:
        yield space, page, server
    finally:
        page.close()


def shot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / name))


def test_widget_conversation_in_a_browser(browser: Any, shop: tuple[Workspace, HostPage, Any]) -> None:
    """Write, AI answer, ask for a person, agent live, reload keeps history, end confirmed, fresh chat."""
    space, host, _ = shop
    context = browser.new_context(viewport={"width": 1000, "height": 760})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(host.url)
    launcher = page.locator("button.launcher")
    launcher.wait_for()
    shot(page, "web-chat-closed.png")
    launcher.click()
    assert launcher.get_attribute("aria-expanded") == "true"

    box = page.get_by_label("Type your message")
    box.fill("How long do parcels to Canada take?")
    box.press("Enter")
    page.locator(".msg.bot", has_text="7 to 14 days").wait_for()
    shot(page, "web-chat-open.png")

    page.get_by_role("button", name="Talk to a person").click()
    page.locator(".window[data-handled-by='pending']").wait_for()

    session_id = space.only_session()
    space.call("POST", f"/web-chat/sessions/{session_id}/take-over")
    space.call("POST", f"/web-chat/sessions/{session_id}/messages", {"message": "Hi, Sam from the shop here."})
    page.locator(".msg.agent", has_text="Sam from the shop").wait_for()  # live: no reload

    before = page.locator(".msg").count()
    page.reload()
    page.locator("button.launcher").click()
    page.locator(".msg.agent", has_text="Sam from the shop").wait_for()
    assert page.locator(".msg").count() == before

    page.get_by_role("button", name="End chat").click()
    page.get_by_role("button", name="Keep chatting").click()  # a mis-click changes nothing
    assert page.locator(".window[data-status='active']").count() == 1
    page.get_by_role("button", name="End chat").click()
    page.get_by_role("button", name="Yes, end it").click()
    page.get_by_text("This chat has ended.").first.wait_for()
    assert space.call("GET", f"/web-chat/sessions/{session_id}")["status"] == "ended"

    page.get_by_role("button", name="Start a new chat").click()
    box = page.get_by_label("Type your message")
    box.fill("Hello again")
    box.press("Enter")
    page.locator(".msg.visitor", has_text="Hello again").wait_for()
    assert space.only_session() != session_id
    context.close()


def test_chat_ended_through_the_api_shows_ended(browser: Any, shop: tuple[Workspace, HostPage, Any]) -> None:
    """A session ended by an agent through the API shows as ended in the open widget, live."""
    space, host, _ = shop
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(host.url)
    page.locator("button.launcher").click()
    page.get_by_label("Type your message").fill("Hi")
    page.get_by_label("Type your message").press("Enter")
    page.locator(".msg.visitor").wait_for()
    space.call("POST", f"/web-chat/sessions/{space.only_session()}/end")
    page.locator(".window[data-status='ended']").wait_for()
    page.get_by_role("button", name="Start a new chat").wait_for()
    page.close()


def test_arabic_is_right_to_left(browser: Any, shop: tuple[Workspace, HostPage, Any]) -> None:
    """With the workspace's language Arabic, the widget reads right to left, in Arabic."""
    space, host, _ = shop
    space.call("PUT", "/web-chat/widget", {"language": "ar", "greeting": "مرحبا! كيف يمكننا مساعدتك؟"})
    page = browser.new_page(viewport={"width": 1000, "height": 760})
    page.set_default_timeout(WAIT_MS)
    page.goto(host.url)
    page.get_by_role("button", name="افتح المحادثة").click()
    page.locator("[dir='rtl'] .window").wait_for()
    page.locator(".msg.bot", has_text="مرحبا").wait_for()
    shot(page, "web-chat-arabic.png")
    page.close()


def test_widget_has_no_accessibility_violations(browser: Any, shop: tuple[Workspace, HostPage, Any]) -> None:
    """axe-core (WCAG 2 A and AA: labels, roles, contrast, ...) finds nothing wrong, closed or open."""
    _, host, _ = shop
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(host.url)
    page.locator("button.launcher").wait_for()
    page.add_script_tag(path=str(AXE))
    rules = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
    script = "(rules) => axe.run(document, rules).then(r => r.violations.map(v => v.id + ': ' + v.help))"
    assert page.evaluate(script, rules) == []
    page.keyboard.press("Tab")  # the launcher is reachable by keyboard
    page.keyboard.press("Enter")
    page.get_by_label("Type your message").wait_for()
    assert page.evaluate("() => document.activeElement.id") == "engage-webchat"  # focus is inside the widget
    assert page.evaluate(script, rules) == []
    page.keyboard.press("Escape")
    assert page.locator("button.launcher").get_attribute("aria-expanded") == "false"
    page.close()


def test_an_answer_about_a_product_shows_its_image(browser: Any, shop: tuple[Workspace, HostPage, Any]) -> None:
    """The bot's answer about a catalogue product shows the product's image, loaded from engage serve."""
    space, host, _ = shop
    upload = space.http.post("/media", files={"file": ("tea.png", image("png", (48, 32)), "image/png")})
    assert upload.status_code == 201, upload.text
    product = {"product_name": "Green tea", "product_description": "Loose leaf sencha.", "price": 4.5}
    product["media_file_ids"] = [upload.json()["data"]["id"]]
    space.call("POST", "/knowledge-base/product-catalog", {"title": "Teas", "products": [product]})
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(host.url)
    page.locator("button.launcher").click()
    page.get_by_label("Type your message").fill("Do you sell green tea sencha?")
    page.get_by_label("Type your message").press("Enter")

    picture = page.locator(".msg.bot img.media")
    picture.wait_for()

    wait_for(lambda: picture.evaluate("img => img.complete && img.naturalWidth"), "the image to load")
    assert picture.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [48, 32]
    page.close()
