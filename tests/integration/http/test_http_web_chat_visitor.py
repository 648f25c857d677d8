"""The widget's visitor routes: allowed origins and CORS, the session token, bounded bodies, rate limits,
start, send, ask for a person, end, a fresh session after an end, and the event stream's resume point."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.webchat.widgets import WidgetPatch
from engage_http.webchat.visitor import BODY_LIMIT, VISITOR_LIMIT

ORIGIN = "https://shop.example"


class Visitor:
    """A page of `origin` using the widget of `key`."""

    def __init__(self, client: TestClient, key: str, origin: str = ORIGIN) -> None:
        self.client, self.key, self.origin = client, key, origin
        self.token = ""

    def headers(self) -> dict[str, str]:
        return {"Origin": self.origin, "X-Widget-Session": self.token}

    def start(self, **body: str) -> dict[str, object]:
        response = self.client.post(f"/widget/{self.key}/sessions", json=body, headers={"Origin": self.origin})
        assert response.status_code == 201, response.text
        data = response.json()["data"]
        self.token = data["token"]
        return data

    def post(self, path: str, **kwargs: object) -> object:
        return self.client.post(f"/widget/{self.key}/session{path}", headers=self.headers(), **kwargs)

    def get(self, path: str = "") -> object:
        return self.client.get(f"/widget/{self.key}/session{path}", headers=self.headers())


@pytest.fixture
def key(services: Services, tenant: Tenant) -> str:
    return services.web_chat.update_widget(tenant.account_id, WidgetPatch(allowed_origins=[ORIGIN])).widget_key


@pytest.fixture
def visitor(client: TestClient, key: str) -> Visitor:
    return Visitor(client, key)


def test_widget_script_is_served(client: TestClient) -> None:
    """`/widget.js` is served as JavaScript."""
    response = client.get("/widget.js")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/javascript")


def test_config_from_an_allowed_origin(visitor: Visitor) -> None:
    """An allowed origin reads the widget's look, with CORS headers naming it."""
    response = visitor.client.get(f"/widget/{visitor.key}/config", headers={"Origin": ORIGIN})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert response.json()["data"]["direction"] == "ltr"


def test_other_origin_is_refused_without_cors(client: TestClient, key: str) -> None:
    """A page of another origin gets 403 and no CORS header; no origin at all is refused too."""
    response = client.get(f"/widget/{key}/config", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403 and "access-control-allow-origin" not in response.headers
    assert client.get(f"/widget/{key}/config").status_code == 403


def test_preflight_names_the_allowed_origin_only(client: TestClient, key: str) -> None:
    """A preflight from an allowed origin is granted with the widget's headers; another origin's is not."""
    asks = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-widget-session"}
    granted = client.options(f"/widget/{key}/session/messages", headers={"Origin": ORIGIN, **asks})
    assert granted.status_code == 204 and granted.headers["access-control-allow-origin"] == ORIGIN
    assert "X-Widget-Session" in granted.headers["access-control-allow-headers"]
    refused = client.options(f"/widget/{key}/session/messages", headers={"Origin": "https://evil.example", **asks})
    assert "access-control-allow-origin" not in refused.headers


def test_unknown_or_rotated_key_is_404(client: TestClient, services: Services, tenant: Tenant, key: str) -> None:
    """A key that is not current finds nothing."""
    services.web_chat.rotate_key(tenant.account_id)
    assert client.get(f"/widget/{key}/config", headers={"Origin": ORIGIN}).status_code == 404


def test_start_send_and_read(visitor: Visitor) -> None:
    """The visitor starts a session, writes, and reads their messages after a seq."""
    started = visitor.start(visitor_name="Ada")
    assert started["session"]["handled_by"] == "ai" and len(str(started["token"])) >= 40  # type: ignore[index]
    sent = visitor.post("/messages", json={"message": "Hello"})
    assert sent.status_code == 201  # type: ignore[attr-defined]
    read = visitor.get("?after=1").json()["data"]  # type: ignore[attr-defined]
    assert [m["message_text"] for m in read["messages"]] == ["Hello"]


def test_a_visitor_reads_only_their_session(visitor: Visitor, client: TestClient, key: str) -> None:
    """Without the token, or with another's, the session is not found."""
    visitor.start()
    stranger = Visitor(client, key)
    assert stranger.get().status_code == 404  # type: ignore[attr-defined]
    stranger.token = visitor.token[:-2] + "xx"
    assert stranger.get().status_code == 404  # type: ignore[attr-defined]


def test_ask_for_a_person(visitor: Visitor) -> None:
    """`human` moves the session to `pending`."""
    visitor.start()
    response = visitor.post("/human")
    assert response.json()["data"]["handled_by"] == "pending"  # type: ignore[attr-defined]


def test_end_then_a_fresh_session(visitor: Visitor) -> None:
    """After an end, writing is refused (422) and a new start gives a new session."""
    first = visitor.start()
    assert visitor.post("/end").json()["data"]["status"] == "ended"  # type: ignore[attr-defined]
    assert visitor.post("/messages", json={"message": "Hi"}).status_code == 422  # type: ignore[attr-defined]
    second = visitor.start()
    assert second["session"]["session_id"] != first["session"]["session_id"]  # type: ignore[index]


def test_ended_through_the_api_shows_ended(visitor: Visitor, api: Api) -> None:
    """A session ended by the workspace reads as ended for the visitor."""
    started = visitor.start()
    api.post(f"/web-chat/sessions/{started['session']['session_id']}/end")  # type: ignore[index]
    assert visitor.get().json()["data"]["session"]["status"] == "ended"  # type: ignore[attr-defined]


def test_bodies_are_bounded(visitor: Visitor) -> None:
    """A body over 16 KiB is refused with 413."""
    visitor.start()
    response = visitor.post("/messages", content=b'{"message": "' + b"x" * BODY_LIMIT + b'"}')
    assert response.status_code == 413  # type: ignore[attr-defined]


def test_messages_are_limited_per_visitor(visitor: Visitor) -> None:
    """A visitor beyond the per-visitor limit gets 429."""
    visitor.start()
    statuses = [visitor.get().status_code for _ in range(VISITOR_LIMIT + 1)]  # type: ignore[attr-defined]
    assert statuses[-1] == 429 and set(statuses[:-1]) == {200}


def test_stream_of_an_ended_session_replays_from_last_event_id(visitor: Visitor) -> None:
    """The stream sends the messages after `Last-Event-ID`, the session's state, and closes once ended."""
    visitor.start()
    visitor.post("/messages", json={"message": "one"})
    visitor.post("/messages", json={"message": "two"})
    visitor.post("/end")
    headers = visitor.headers() | {"Last-Event-ID": "2"}
    response = visitor.client.get(f"/widget/{visitor.key}/session/stream", headers=headers)
    assert response.headers["content-type"].startswith("text/event-stream")
    ids = [line[4:] for line in response.text.splitlines() if line.startswith("id: ")]
    assert ids == ["3", "4"]
    assert '"status":"ended"' in response.text


def test_agent_stream_needs_the_key(
    visitor: Visitor, api: Api, anonymous: Api, client_for: Callable[[Tenant], Api], make_tenant: Callable[..., Tenant]
) -> None:
    """The workspace stream needs the API key and the workspace's own session."""
    started = visitor.start()
    sid = started["session"]["session_id"]  # type: ignore[index]
    api.post(f"/web-chat/sessions/{sid}/end")
    assert anonymous.get(f"/web-chat/sessions/{sid}/stream").status_code == 401
    assert client_for(make_tenant("Other")).get(f"/web-chat/sessions/{sid}/stream").status_code == 404
    response = api.get(f"/web-chat/sessions/{sid}/stream")
    assert response.status_code == 200 and "event: message" in response.text
