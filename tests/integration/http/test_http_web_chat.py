"""Web chat for the workspace (SPEC 2, 3, 4, 8): the sessions list with its filters and pagination, a
session with its messages, take-over, release, agent messages, end, and the widget and its key."""

from __future__ import annotations

import pytest
from http_support import Api, Tenant

from engage_core.services import Services
from engage_core.webchat.service import StartedSession
from engage_core.webchat.sessions import VisitorDetails

SESSION_FIELDS = {
    "session_id", "status", "handled_by", "visitor_name", "visitor_email", "visitor_phone", "visitor_ip",
    "visitor_page_url", "visitor_referrer", "has_visitor_messages", "human_requested_at", "human_took_over_at",
    "ended_at", "last_activity_at", "created_at",
}  # fmt: skip
MESSAGE_FIELDS = {"id", "seq", "sender_type", "message_text", "message_type", "media_url", "is_read", "created_at"}


@pytest.fixture
def started(services: Services, tenant: Tenant) -> StartedSession:
    return services.web_chat.start(tenant.account_id, VisitorDetails(name="Ada", email="ada@example.com"))


def test_list_sessions(api: Api, started: StartedSession) -> None:
    """`GET /web-chat/sessions` lists the sessions with SPEC 2's fields, 25 a page by default."""
    response = api.get("/web-chat/sessions")
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body["data"][0]) == SESSION_FIELDS
    assert body["meta"]["per_page"] == 25 and body["meta"]["total"] == 1


def test_list_filters_and_search(api: Api, services: Services, tenant: Tenant, started: StartedSession) -> None:
    """`handled_by`, `status` and `search` filter the list."""
    other = services.web_chat.start(tenant.account_id, VisitorDetails(phone="+15550009"))
    api.post(f"/web-chat/sessions/{other.session.session_id}/take-over")
    assert [s["session_id"] for s in api.get("/web-chat/sessions?handled_by=human").json()["data"]] == [
        other.session.session_id
    ]
    assert [s["session_id"] for s in api.get("/web-chat/sessions?search=ada@").json()["data"]] == [
        started.session.session_id
    ]
    assert api.get("/web-chat/sessions?status=ended").json()["data"] == []
    assert api.get("/web-chat/sessions?status=closed").status_code == 422


def test_per_page_maximum_is_100(api: Api, started: StartedSession) -> None:
    """`per_page` above 100 is held to 100."""
    assert api.get("/web-chat/sessions?per_page=500").json()["meta"]["per_page"] == 100


def test_session_with_messages(api: Api, started: StartedSession) -> None:
    """`GET /web-chat/sessions/{session_id}` adds `messages[]`, oldest first."""
    body = api.get(f"/web-chat/sessions/{started.session.session_id}").json()["data"]
    assert set(body) == SESSION_FIELDS | {"messages"}
    assert set(body["messages"][0]) == MESSAGE_FIELDS and body["messages"][0]["sender_type"] == "bot"


def test_take_over_and_release(api: Api, started: StartedSession) -> None:
    """Take-over hands the session to a human; release returns it to the AI."""
    sid = started.session.session_id
    taken = api.post(f"/web-chat/sessions/{sid}/take-over")
    assert taken.status_code == 200 and taken.json()["data"]["handled_by"] == "human"
    assert taken.json()["data"]["human_took_over_at"] is not None
    released = api.post(f"/web-chat/sessions/{sid}/release")
    assert released.json()["data"]["handled_by"] == "ai"


def test_agent_message(api: Api, started: StartedSession) -> None:
    """An agent's message answers 201 with the message; over 4096 characters is a 422."""
    sid = started.session.session_id
    response = api.post(f"/web-chat/sessions/{sid}/messages", json={"message": "Hi, Sam here."})
    assert response.status_code == 201, response.text
    assert response.json()["data"]["sender_type"] == "agent" and response.json()["data"]["seq"] == 2
    too_long = api.post(f"/web-chat/sessions/{sid}/messages", json={"message": "x" * 4097})
    assert too_long.status_code == 422


def test_end_then_no_messages(api: Api, started: StartedSession) -> None:
    """An ended session refuses agent messages (422) and take-over."""
    sid = started.session.session_id
    assert api.post(f"/web-chat/sessions/{sid}/end").json()["data"]["status"] == "ended"
    assert api.post(f"/web-chat/sessions/{sid}/messages", json={"message": "Hello?"}).status_code == 422
    assert api.post(f"/web-chat/sessions/{sid}/take-over").status_code == 422


def test_another_workspace_gets_404(started: StartedSession, client_for: object, make_tenant: object) -> None:
    """Another workspace's session is 404 on every route."""
    other = client_for(make_tenant("Other"))  # type: ignore[operator]
    sid = started.session.session_id
    assert other.get(f"/web-chat/sessions/{sid}").status_code == 404
    assert other.post(f"/web-chat/sessions/{sid}/end").status_code == 404
    assert other.post(f"/web-chat/sessions/{sid}/messages", json={"message": "x"}).status_code == 404


def test_widget_key_is_shown_and_rotated(api: Api) -> None:
    """The widget key is shown, not the API key, and rotation replaces it."""
    first = api.get("/web-chat/widget").json()["data"]
    assert first["widget_key"].startswith("wk_")
    rotated = api.post("/web-chat/widget/rotate-key").json()["data"]
    assert rotated["widget_key"] != first["widget_key"]
    assert api.get("/web-chat/widget").json()["data"]["widget_key"] == rotated["widget_key"]


def test_widget_settings_update(api: Api) -> None:
    """Origins, colour, greeting and language are updated; a bad origin is a 422."""
    body = {"allowed_origins": ["https://shop.example"], "color": "#112233", "greeting": "مرحبا", "language": "ar"}
    response = api.put("/web-chat/widget", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["allowed_origins"] == ["https://shop.example"]
    assert api.put("/web-chat/widget", json={"allowed_origins": ["shop"]}).status_code == 422


def test_analytics(api: Api, services: Services, tenant: Tenant, started: StartedSession) -> None:
    """Analytics count the period's sessions and messages, with chart_data per day (per hour for today)."""
    services.web_chat.visitor_send(tenant.account_id, started.token, "Hello")
    month = api.get("/web-chat/analytics").json()["data"]
    assert (month["total_chats"], month["engaged_chats"], month["active_chats"]) == (1, 1, 1)
    assert (month["visitor_messages"], month["bot_messages"], month["total_messages"]) == (1, 1, 2)
    assert month["avg_messages_per_chat"] == 2.0 and month["unique_visitors"] == 1
    assert len(month["chart_data"]) == 30 and sum(month["chart_data"].values()) == 1
    today = api.get("/web-chat/analytics?period=today").json()["data"]
    assert len(today["chart_data"]) == 24 and sum(today["chart_data"].values()) == 1
    assert api.get("/web-chat/analytics?period=decade").status_code == 422
