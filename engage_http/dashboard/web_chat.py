"""The web chat in the dashboard: the visitors' sessions, and a session to answer in.

`GET /app/web-chat` lists sessions, most recently active first (`WebChatService.find`), in views by
who answers them (all, waiting for a human, taken by a human, the AI's) and by status (active or
ended). `GET /app/web-chat/{session_id}` shows the thread and the visitor's details; its forms send
an agent's message (delivered live to the visitor's widget), take the session over from the AI,
release it, and end it. A session's page listens to the session's stream
(`/app/web-chat/{id}/stream`: the web chat's own live channel, the events the API's agent stream
sends, opened with the session cookie) and refreshes its thread the moment something happens; the
list refreshes its region every few seconds (dashboard.js).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.webchat.service import SessionThread
from engage_core.webchat.sessions import SESSIONS, SessionFilter
from engage_http.dashboard.pages import (
    APP_PREFIX,
    Viewer,
    Viewers,
    field_errors,
    form_text,
    page,
    page_number,
    redirect,
    render,
)
from engage_http.routing import in_worker_thread
from engage_http.webchat.live import LiveHub
from engage_http.webchat.streams import events, resume_point, stream_response

VIEWS = {"all": None, "waiting": "pending", "human": "human", "ai": "ai"}
VIEW_TITLES = {"all": "All", "waiting": "Waiting for a human", "human": "Taken by a human", "ai": "Answered by the AI"}
NOTICES = {
    "sent": "Message sent to the visitor.",
    "taken": "You answer this chat now; the AI stays silent.",
    "released": "The AI answers this chat again.",
    "ended": "The chat has ended.",
}
BASE = APP_PREFIX + "/web-chat"


def routes(services: Services, viewers: Viewers, hub: LiveHub) -> list[Route]:
    """The web chat's list, a session's page, its live stream and its forms."""
    chats = services.web_chat

    async def sessions(request: Request, viewer: Viewer) -> Response:
        view = request.query_params.get("view", "all")
        view = view if view in VIEWS else "all"
        state = "ended" if request.query_params.get("status") == "ended" else "active"
        number = page_number(request.query_params.get("page"))
        filters = SessionFilter(status=state, handled_by=VIEWS[view])
        found = await in_worker_thread(
            chats.find, viewer.account_id, filters, PageRequest(number, SESSIONS.default), read=True
        )
        return render(
            "web_chat.html",
            request=request,
            viewer=viewer,
            title="Web chat",
            sessions=found,
            view=view,
            views=VIEW_TITLES,
            state=state,
        )

    async def thread(
        request: Request, viewer: Viewer, *, status: int = 200, errors: dict[str, str] | None = None, draft: str = ""
    ) -> Response:
        found = await in_worker_thread(chats.get, viewer.account_id, request.path_params["session_id"], read=True)
        return render(
            "web_chat_session.html",
            status,
            request=request,
            viewer=viewer,
            title=found.session.visitor_name or "Visitor",
            chat=found.session,
            messages=found.messages,
            notice=NOTICES.get(request.query_params.get("done", "")),
            errors=errors or {},
            draft=draft,
        )

    async def show(request: Request, viewer: Viewer) -> Response:
        return await thread(request, viewer)

    async def stream(request: Request, viewer: Viewer) -> Response:
        session_id = request.path_params["session_id"]
        await in_worker_thread(chats.messages_after, viewer.account_id, session_id, 0, 1, read=True)  # 404 if not ours
        after = resume_point(request.headers, request.query_params)

        def read(seq: int) -> SessionThread:
            return chats.messages_after(viewer.account_id, session_id, seq)

        return stream_response(events(hub, viewer.account_id, session_id, read, after))

    async def reply(request: Request, viewer: Viewer) -> Response:
        session_id = request.path_params["session_id"]
        text = form_text(await request.form(), "message")
        try:
            await in_worker_thread(chats.send, viewer.account_id, session_id, text)
        except ValidationFailed as exc:
            return await thread(request, viewer, status=422, errors=field_errors(exc), draft=text)
        return redirect(_back(session_id, "sent"))

    def move(action: str, done: str) -> Route:
        async def endpoint(request: Request, viewer: Viewer) -> Response:
            session_id = request.path_params["session_id"]
            await in_worker_thread(getattr(chats, action), viewer.account_id, session_id)
            return redirect(_back(session_id, done))

        path = BASE + "/{session_id}/" + action.replace("_", "-")
        return Route(path, page(viewers, endpoint), methods=["POST"], name=f"web_chat_{action}")

    return [
        Route(BASE, page(viewers, sessions), methods=["GET"], name="web_chat_sessions"),
        Route(BASE + "/{session_id}", page(viewers, show), methods=["GET"], name="web_chat_session"),
        Route(BASE + "/{session_id}/stream", page(viewers, stream), methods=["GET"], name="web_chat_dashboard_stream"),
        Route(BASE + "/{session_id}/reply", page(viewers, reply), methods=["POST"], name="web_chat_reply"),
        move("take_over", "taken"),
        move("release", "released"),
        move("end", "ended"),
    ]


def _back(session_id: str, done: str) -> str:
    return f"{BASE}/{session_id}?done={done}"
