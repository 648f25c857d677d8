"""The inbox: every channel's conversations and the web chat in one list, and a conversation to work in.

`GET /app/inbox` lists conversations and active web chats newest first (`inbox_list`), in views by
who answers them (all, waiting for a human, taken by a human, the AI's), unread, assigned to me, and
by channel. The page
listens to `GET /app/inbox/stream`, the live channel of the workspace (every notice the channels'
inbox and the web chat sessions give the live feed, a server-sent `changed` event each), and
refreshes its list when told. `GET
/app/conversations/{contact_id}` shows the messages, the contact beside them and who answers; opening
it marks the conversation read, as an inbox does. Its forms reply through the contact's channel,
take the conversation over from the AI, release it back, add a note to the contact, and (admins)
assign it to a team member. Beside the messages: the contact's details, tags, notes and newest orders;
under each of the AI's replies, the knowledge passages it cited.
An agent sees only the conversations unassigned or assigned to them (`ConversationHandling.visible_to`);
another member's conversation is 403 to them, its forms included.
After a form the browser is sent back to the conversation (post/redirect/get), with a notice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import attrs
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.agents.reply_service import CitedPassage
from engage_core.commerce.orders import Order, OrderFilter
from engage_core.contacts.model import Contact, Note
from engage_core.kernel.errors import Forbidden, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.channels import CHANNEL_TYPES
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.handling import HUMAN, PENDING, ConversationHandling
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.messages import Message
from engage_core.services import Services
from engage_core.team.model import TeamMember
from engage_http.dashboard.inbox_list import WEB_CHAT, InboxView, inbox_page
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
from engage_http.webchat.live import EVERY_TOPIC, LiveHub
from engage_http.webchat.streams import stream_response

VIEWS = {
    "all": InboxView(),
    "unread": InboxView(unread=True),
    "mine": InboxView(mine=True),
    "waiting": InboxView(PENDING),
    "human": InboxView(HUMAN),
    "ai": InboxView("ai"),
}
"""The inbox's views, by the `handled_by` filter each applies."""
VIEW_TITLES = {
    "all": "All",
    "unread": "Unread",
    "mine": "Assigned to me",
    "waiting": "Waiting for a human",
    "human": "Taken by a human",
    "ai": "Answered by the AI",
}
STREAM_SECONDS = 600.0
KEEP_ALIVE_SECONDS = 15.0
ORDERS_SHOWN = 5
"""The contact's newest orders shown beside a conversation."""
HISTORY = 50
"""Messages shown in a conversation: the newest ones."""
NOTICES = {
    "sent": "Reply sent.",
    "failed": "The reply could not be sent; it is kept as failed with the reason.",
    "taken": "You answer this conversation now; the AI stays silent.",
    "released": "The AI answers this conversation again.",
    "assigned": "Conversation assigned.",
    "noted": "Note added.",
}


def routes(services: Services, viewers: Viewers, hub: LiveHub) -> list[Route]:
    """The inbox pages, the inbox's live stream and the conversation's forms."""

    async def stream(request: Request, viewer: Viewer) -> Response:
        return stream_response(_changes(hub, viewer.account_id))

    async def inbox(request: Request, viewer: Viewer) -> Response:
        view = request.query_params.get("view", "all")
        view = view if view in VIEWS else "all"
        channel = request.query_params.get("channel") or None
        channel = channel if channel in (*CHANNEL_TYPES, WEB_CHAT) else None
        number = page_number(request.query_params.get("page"))
        found = await in_worker_thread(
            inbox_page,
            services,
            viewer.account_id,
            VIEWS[view],
            channel,
            viewer.member_id,
            not viewer.is_admin,
            number,
            read=True,
        )
        return render(
            "inbox.html",
            request=request,
            viewer=viewer,
            title="Inbox",
            rows=found,
            view=view,
            views=VIEW_TITLES,
            channel=channel,
            channels=(*CHANNEL_TYPES, WEB_CHAT),
        )

    async def conversation(
        request: Request, viewer: Viewer, *, status: int = 200, errors: dict[str, str] | None = None, draft: str = ""
    ) -> Response:
        contact_id = int(request.path_params["contact_id"])
        details = await in_worker_thread(_conversation, services, viewer, contact_id)
        notice = NOTICES.get(request.query_params.get("done", ""))
        return render(
            "conversation.html",
            status,
            request=request,
            viewer=viewer,
            title=details.contact.name,
            notice=notice,
            errors=errors or {},
            draft=draft,
            contact=details.contact,
            messages=details.messages,
            earlier=details.earlier,
            handling=details.handling,
            assignee=details.assignee,
            team=details.team,
            notes=details.notes,
            orders=details.orders,
            cited=details.cited,
        )

    async def show(request: Request, viewer: Viewer) -> Response:
        return await conversation(request, viewer)

    async def reply(request: Request, viewer: Viewer) -> Response:
        contact_id = int(request.path_params["contact_id"])
        await in_worker_thread(_ensure_visible, services, viewer, contact_id, read=True)
        text = form_text(await request.form(), "message")
        try:
            sent = await in_worker_thread(services.messages.send, viewer.account_id, SendInput(contact_id, text))
        except ValidationFailed as exc:
            return await conversation(request, viewer, status=422, errors=field_errors(exc), draft=text)
        return redirect(_back(contact_id, "sent" if sent.success else "failed"))

    async def add_note(request: Request, viewer: Viewer) -> Response:
        contact_id = int(request.path_params["contact_id"])
        await in_worker_thread(_ensure_visible, services, viewer, contact_id, read=True)
        text = form_text(await request.form(), "content")
        try:
            await in_worker_thread(services.contacts.add_note, viewer.account_id, contact_id, text)
        except ValidationFailed as exc:
            return await conversation(request, viewer, status=422, errors=field_errors(exc))
        return redirect(_back(contact_id, "noted"))

    async def take_over(request: Request, viewer: Viewer) -> Response:
        contact_id = int(request.path_params["contact_id"])
        await in_worker_thread(_ensure_visible, services, viewer, contact_id, read=True)
        await in_worker_thread(
            services.conversation_handling.take_over, viewer.account_id, contact_id, viewer.member_id
        )
        return redirect(_back(contact_id, "taken"))

    async def release(request: Request, viewer: Viewer) -> Response:
        contact_id = int(request.path_params["contact_id"])
        await in_worker_thread(_ensure_visible, services, viewer, contact_id, read=True)
        await in_worker_thread(services.conversation_handling.release, viewer.account_id, contact_id)
        return redirect(_back(contact_id, "released"))

    async def assign(request: Request, viewer: Viewer) -> Response:
        contact_id = int(request.path_params["contact_id"])
        raw = form_text(await request.form(), "team_member_id")
        if not raw.isdigit():
            errors = {"team_member_id": "Choose a team member."}
            return await conversation(request, viewer, status=422, errors=errors)
        try:
            await in_worker_thread(services.conversation_handling.take_over, viewer.account_id, contact_id, int(raw))
        except ValidationFailed as exc:
            return await conversation(request, viewer, status=422, errors=field_errors(exc))
        return redirect(_back(contact_id, "assigned"))

    async def home(request: Request, viewer: Viewer) -> Response:
        return redirect(f"{APP_PREFIX}/inbox")

    conversation_path = APP_PREFIX + "/conversations/{contact_id:int}"
    return [
        Route(APP_PREFIX, page(viewers, home), methods=["GET"], name="app_home"),
        Route(APP_PREFIX + "/inbox", page(viewers, inbox), methods=["GET"], name="inbox"),
        Route(APP_PREFIX + "/inbox/stream", page(viewers, stream), methods=["GET"], name="inbox_stream"),
        Route(conversation_path, page(viewers, show), methods=["GET"], name="conversation"),
        Route(conversation_path + "/reply", page(viewers, reply), methods=["POST"], name="conversation_reply"),
        Route(conversation_path + "/notes", page(viewers, add_note), methods=["POST"], name="conversation_note"),
        Route(
            conversation_path + "/take-over", page(viewers, take_over), methods=["POST"], name="conversation_take_over"
        ),
        Route(conversation_path + "/release", page(viewers, release), methods=["POST"], name="conversation_release"),
        Route(
            conversation_path + "/assign",
            page(viewers, assign, admin_only=True),
            methods=["POST"],
            name="conversation_assign",
        ),
    ]


@attrs.frozen
class ConversationPage:
    """What the conversation page shows."""

    contact: Contact
    messages: list[Message]
    """The newest `HISTORY`, oldest first."""
    earlier: int
    """How many older ones are not shown."""
    handling: ConversationHandling
    assignee: str | None
    team: list[TeamMember]
    """The active members a conversation may be assigned to (admins only; empty for agents)."""
    notes: list[Note]
    """The contact's notes, newest first."""
    orders: Page[Order]
    """The contact's newest orders (`ORDERS_SHOWN`) and how many there are."""
    cited: dict[int, list[CitedPassage]]
    """The knowledge passages each automatic reply shown drew on, by message id."""


def _conversation(services: Services, viewer: Viewer, contact_id: int) -> ConversationPage:
    """What the conversation page shows; NotFound when the contact is not the workspace's."""
    contact = services.contacts.get(viewer.account_id, contact_id)
    _ensure_visible(services, viewer, contact_id)
    summary = services.messages.conversations(
        viewer.account_id, ConversationFilter(contact_id=contact_id), PageRequest()
    )
    if any(found.unread_count for found in summary.items):  # a write only when there is something to mark
        services.messages.mark_read(viewer.account_id, contact_id)
    newest = services.messages.for_contact(viewer.account_id, contact_id, None, PageRequest(1, HISTORY))
    handling = services.conversation_handling.get(viewer.account_id, contact_id)
    team = services.team.find(viewer.account_id, None, PageRequest(1, 100)).items if viewer.is_admin else []
    names = {member.id: member.name for member in team}
    notes = sorted(services.contacts.notes(viewer.account_id, contact_id), key=lambda n: n.id, reverse=True)
    outbound = [message.id for message in newest.items if message.direction == "outbound"]
    cited = services.auto_replies.cited(viewer.account_id, outbound)
    orders = services.orders.find(viewer.account_id, OrderFilter(contact_id=contact_id), PageRequest(1, ORDERS_SHOWN))
    return ConversationPage(
        cited=cited,
        notes=notes,
        orders=orders,
        contact=contact,
        messages=list(reversed(newest.items)),
        earlier=newest.total - len(newest.items),
        handling=handling,
        assignee=names.get(handling.assignee_id or 0),
        team=[member for member in team if member.is_active],
    )


async def _changes(hub: LiveHub, account_id: int) -> AsyncIterator[bytes]:
    """`changed` each time the workspace's inbox or a web chat session is told of news, for at most
    `STREAM_SECONDS` (the browser then reconnects, and the session is checked again)."""
    yield b"retry: 3000\n\n"
    deadline = asyncio.get_running_loop().time() + STREAM_SECONDS
    with hub.subscribe(account_id, EVERY_TOPIC) as wake:
        while (left := deadline - asyncio.get_running_loop().time()) > 0:
            wake.clear()
            try:
                await asyncio.wait_for(wake.wait(), min(KEEP_ALIVE_SECONDS, left))
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            yield b"event: changed\ndata: {}\n\n"


def _ensure_visible(services: Services, viewer: Viewer, contact_id: int) -> None:
    """Forbidden when an agent opens a conversation assigned to another member."""
    if viewer.is_admin or viewer.member_id is None:
        return
    if not services.conversation_handling.get(viewer.account_id, contact_id).visible_to(viewer.member_id):
        raise Forbidden("This conversation is assigned to another team member.")


def _back(contact_id: int, done: str) -> str:
    return f"{APP_PREFIX}/conversations/{contact_id}?done={done}"
