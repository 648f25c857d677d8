"""The dashboard's web chat pages (`engage_http.dashboard.web_chat`) over the in-memory fakes: the
sessions list, a session's thread, an agent's message, take-over, release and ending."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.webchat.service import StartedSession
from engage_core.webchat.sessions import VisitorDetails


@pytest.fixture(autouse=True)
def signed_in(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> None:
    """The browser is signed in as an admin of the tenant."""
    add_member(tenant)
    sign_in(browser)


@pytest.fixture
def chat(services: Services, tenant: Tenant) -> StartedSession:
    """An active session of a visitor named Linus who wrote once."""
    started = services.web_chat.start(
        tenant.account_id, VisitorDetails(name="Linus", page_url="https://shop.example/tea")
    )
    services.web_chat.visitor_send(tenant.account_id, started.token, "Do you sell green tea?")
    return started


def path_of(chat: StartedSession, action: str = "") -> str:
    return f"/app/web-chat/{chat.session.session_id}" + (f"/{action}" if action else "")


def test_the_list_shows_the_active_session(browser: TestClient, chat: StartedSession) -> None:
    """The web chat page lists the visitor with a link to the session."""
    page = browser.get("/app/web-chat")
    assert page.status_code == 200
    assert "Linus" in page.text and path_of(chat) in page.text


def test_the_ended_view_leaves_out_active_sessions(browser: TestClient, chat: StartedSession) -> None:
    """`status=ended` lists only ended chats."""
    assert "Linus" not in browser.get("/app/web-chat", params={"status": "ended"}).text


def test_the_thread_shows_the_visitors_message(browser: TestClient, chat: StartedSession) -> None:
    """A session's page shows what the visitor wrote and the page they were on."""
    page = browser.get(path_of(chat))
    assert "Do you sell green tea?" in page.text
    assert "https://shop.example/tea" in page.text


def test_an_agents_message_reaches_the_session(
    browser: TestClient, chat: StartedSession, services: Services, tenant: Tenant
) -> None:
    """The reply form adds an agent message to the session."""
    page = browser.get(path_of(chat))
    answer = browser.post(path_of(chat, "reply"), data={"message": "Yes, sencha.", "csrf": csrf_of(page)})
    assert answer.status_code == 303
    thread = services.web_chat.get(tenant.account_id, chat.session.session_id)
    assert ("agent", "Yes, sencha.") in [(m.sender_type, m.message_text) for m in thread.messages]


def test_taking_over_silences_the_ai(
    browser: TestClient, chat: StartedSession, services: Services, tenant: Tenant
) -> None:
    """Take over: the session is handled by a human."""
    page = browser.get(path_of(chat))
    browser.post(path_of(chat, "take-over"), data={"csrf": csrf_of(page)})
    assert services.web_chat.get(tenant.account_id, chat.session.session_id).session.handled_by == "human"


def test_ending_the_chat_removes_its_reply_form(
    browser: TestClient, chat: StartedSession, services: Services, tenant: Tenant
) -> None:
    """End: the session is ended and its page no longer offers a reply."""
    page = browser.get(path_of(chat))
    browser.post(path_of(chat, "end"), data={"csrf": csrf_of(page)})
    assert services.web_chat.get(tenant.account_id, chat.session.session_id).session.status == "ended"
    assert 'name="message"' not in browser.get(path_of(chat)).text


def test_a_message_to_an_ended_chat_shows_the_error_beside_the_field(
    browser: TestClient, chat: StartedSession, services: Services, tenant: Tenant
) -> None:
    """A reply posted after the chat ended answers 422 with the API's message."""
    page = browser.get(path_of(chat))
    services.web_chat.end(tenant.account_id, chat.session.session_id)
    answer = browser.post(path_of(chat, "reply"), data={"message": "Hello?", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert "This chat has ended." in answer.text


def test_another_workspaces_session_is_not_found(
    browser: TestClient, services: Services, make_tenant: Callable[..., Tenant]
) -> None:
    """A session of another workspace is 404."""
    other = make_tenant("Other")
    foreign = services.web_chat.start(other.account_id, VisitorDetails(name="Eve"))
    assert browser.get(path_of(foreign)).status_code == 404


def test_the_stream_sends_the_sessions_messages_with_the_session_cookie(
    browser: TestClient, chat: StartedSession, services: Services, tenant: Tenant
) -> None:
    """The session's event stream (ended, so it closes) carries its messages and its state."""
    services.web_chat.end(tenant.account_id, chat.session.session_id)
    answer = browser.get(path_of(chat, "stream"))
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert "event: message" in answer.text and "Do you sell green tea?" in answer.text
    assert "event: session" in answer.text


def test_another_workspaces_stream_is_not_found(
    browser: TestClient, services: Services, make_tenant: Callable[..., Tenant]
) -> None:
    """The stream of another workspace's session is 404."""
    foreign = services.web_chat.start(make_tenant("Other").account_id, VisitorDetails(name="Eve"))
    assert browser.get(path_of(foreign, "stream")).status_code == 404


def test_an_active_session_page_listens_to_its_stream(browser: TestClient, chat: StartedSession) -> None:
    """The thread's live region names the session's stream."""
    assert f'data-stream="/app/web-chat/{chat.session.session_id}/stream"' in browser.get(path_of(chat)).text
