"""Support tickets in the dashboard: the workspace's tickets to the service operator.

`GET /app/tickets` pages through the tickets (by status and priority) with a form that opens one
(`TicketService.create`). A ticket's page shows the conversation with the operator; its forms reply
as the signed-in member (`reply` with `author_id`: a partner impersonating writes without one) and
close the ticket. Admins and agents alike work tickets, as SPEC 8's roles leave them to the team.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import PRIORITIES, TICKET_STATUSES, TICKETS, TicketFilter
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

BASE = APP_PREFIX + "/tickets"
NOTICES = {"opened": "Ticket opened.", "replied": "Reply sent.", "closed": "Ticket closed."}


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The tickets pages and their forms."""
    tickets = services.tickets

    async def listing(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        draft: dict[str, str] | None = None,
    ) -> Response:
        query = request.query_params
        state = query.get("status") if query.get("status") in TICKET_STATUSES else None
        priority = query.get("priority") if query.get("priority") in PRIORITIES else None
        number = page_number(query.get("page"))
        filters = TicketFilter(status=state, priority=priority)
        found = await in_worker_thread(
            tickets.find, viewer.account_id, filters, PageRequest(number, TICKETS.default), read=True
        )
        kept = {k: v for k, v in {"status": state, "priority": priority}.items() if v}
        return render(
            "tickets.html",
            status,
            viewer=viewer,
            title="Tickets",
            tickets=found,
            filters=filters,
            statuses=TICKET_STATUSES,
            priorities=PRIORITIES,
            kept=kept,
            errors=errors or {},
            draft=draft or {},
        )

    async def show_list(request: Request, viewer: Viewer) -> Response:
        return await listing(request, viewer)

    async def open_ticket(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        fields = {name: form_text(form, name) for name in ("subject", "body", "priority")}
        data = TicketInput(fields["subject"], fields["body"], fields["priority"] or None)
        try:
            created = await in_worker_thread(tickets.create, viewer.account_id, data)
        except ValidationFailed as exc:
            return await listing(request, viewer, status=422, errors=field_errors(exc), draft=fields)
        return redirect(f"{BASE}/{created.id}?done=opened")

    async def thread(
        request: Request, viewer: Viewer, *, status: int = 200, errors: dict[str, str] | None = None, draft: str = ""
    ) -> Response:
        found = await in_worker_thread(tickets.get, viewer.account_id, int(request.path_params["ticket_id"]), read=True)
        return render(
            "ticket.html",
            status,
            viewer=viewer,
            title=found.ticket.subject,
            ticket=found.ticket,
            replies=found.replies,
            errors=errors or {},
            draft=draft,
            notice=NOTICES.get(request.query_params.get("done", "")),
        )

    async def show(request: Request, viewer: Viewer) -> Response:
        return await thread(request, viewer)

    async def reply(request: Request, viewer: Viewer) -> Response:
        ticket_id = int(request.path_params["ticket_id"])
        text = form_text(await request.form(), "reply")
        try:
            await in_worker_thread(
                lambda: tickets.reply(viewer.account_id, ticket_id, text, author_id=viewer.member_id)
            )
        except ValidationFailed as exc:
            return await thread(request, viewer, status=422, errors=field_errors(exc), draft=text)
        return redirect(f"{BASE}/{ticket_id}?done=replied")

    async def close(request: Request, viewer: Viewer) -> Response:
        ticket_id = int(request.path_params["ticket_id"])
        await in_worker_thread(tickets.close, viewer.account_id, ticket_id)
        return redirect(f"{BASE}/{ticket_id}?done=closed")

    one = BASE + "/{ticket_id:int}"
    return [
        Route(BASE, page(viewers, show_list), methods=["GET"], name="tickets"),
        Route(BASE, page(viewers, open_ticket), methods=["POST"], name="ticket_open"),
        Route(one, page(viewers, show), methods=["GET"], name="ticket"),
        Route(one + "/reply", page(viewers, reply), methods=["POST"], name="ticket_reply"),
        Route(one + "/close", page(viewers, close), methods=["POST"], name="ticket_close"),
    ]
