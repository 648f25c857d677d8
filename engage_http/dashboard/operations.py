"""The workspace's day-to-day lists in the dashboard: orders, bookings as a week, campaigns' progress.

- `GET /app/orders` pages through the orders by status; each row moves its order to the next
  states SPEC 3 allows (`OrderService.update`; cancelling asks for the reason, as the API does).
- `GET /app/bookings` shows one week of bookings in the workspace's timezone, a column per day,
  with the previous and next weeks a click away; a booking confirms, completes or cancels from there
  (`BookingService`).
- `GET /app/campaigns` lists the campaigns with their counters and a progress bar; admins start,
  pause, resume and cancel them (`CampaignService`), the states each move needs being the API's.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.bookings.model import TRANSITIONS as BOOKING_MOVES
from engage_core.bookings.model import BookingFilter
from engage_core.campaigns.model import CAMPAIGN_STATUSES, CAMPAIGNS, SOURCES, CampaignFilter
from engage_core.commerce.order_service import OrderPatch
from engage_core.commerce.orders import ORDER_STATUSES, ORDERS, TRANSITIONS, OrderFilter
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
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

WEEK_BOOKINGS = 500
"""The most bookings one week's page shows (a busy week of a busy workspace)."""
CAMPAIGN_MOVES = ("start", "pause", "resume", "cancel")


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The orders, bookings and campaigns pages and their forms."""

    async def orders(
        request: Request, viewer: Viewer, *, status: int = 200, errors: dict[str, str] | None = None
    ) -> Response:
        query = request.query_params
        state = query.get("status") if query.get("status") in ORDER_STATUSES else None
        number = page_number(query.get("page"))
        found = await in_worker_thread(
            services.orders.find,
            viewer.account_id,
            OrderFilter(status=state),
            PageRequest(number, ORDERS.default),
            read=True,
        )
        return render(
            "orders.html",
            status,
            viewer=viewer,
            title="Orders",
            orders=found,
            state=state,
            statuses=ORDER_STATUSES,
            moves=TRANSITIONS,
            kept={"status": state} if state else {},
            errors=errors or {},
        )

    async def show_orders(request: Request, viewer: Viewer) -> Response:
        return await orders(request, viewer)

    async def move_order(request: Request, viewer: Viewer) -> Response:
        order_id = int(request.path_params["order_id"])
        form = await request.form()
        patch = OrderPatch(status=form_text(form, "status"), cancellation_reason=form_text(form, "reason") or None)
        try:
            await in_worker_thread(services.orders.update, viewer.account_id, order_id, patch)
        except ValidationFailed as exc:
            errors = {f"{order_id}.{field}": message for field, message in field_errors(exc).items()}
            return await orders(request, viewer, status=422, errors=errors)
        return redirect(APP_PREFIX + "/orders")

    async def bookings(request: Request, viewer: Viewer) -> Response:
        profile = await in_worker_thread(services.account_profile.get, viewer.account_id, read=True)
        zone = ZoneInfo(profile.timezone)
        today = services.dependencies.clock.now().astimezone(zone).date()
        monday = _week_of(request.query_params.get("week"), today)
        start = datetime.combine(monday, time(), zone)
        filters = BookingFilter(starts_from=start, starts_to=start + timedelta(days=7) - timedelta(microseconds=1))
        found = await in_worker_thread(
            services.bookings.find, viewer.account_id, filters, PageRequest(1, WEEK_BOOKINGS), read=True
        )
        days = [monday + timedelta(days=n) for n in range(7)]
        by_day = {day: [b for b in found.items if b.starts_at.astimezone(zone).date() == day] for day in days}
        return render(
            "bookings.html",
            viewer=viewer,
            title="Bookings",
            days=days,
            by_day=by_day,
            zone=zone,
            timezone=profile.timezone,
            previous=(monday - timedelta(days=7)).isoformat(),
            following=(monday + timedelta(days=7)).isoformat(),
            week=monday.isoformat(),
            more=found.total > len(found.items),
            moves=BOOKING_MOVES,
        )

    async def move_booking(request: Request, viewer: Viewer) -> Response:
        booking_id = int(request.path_params["booking_id"])
        action = request.path_params["action"]
        moves = {
            "confirm": services.bookings.confirm,
            "complete": services.bookings.complete,
            "cancel": services.bookings.cancel,
        }
        if action not in moves:
            raise NotFound("Action")
        await in_worker_thread(moves[action], viewer.account_id, booking_id)
        week = form_text(await request.form(), "week")
        return redirect(APP_PREFIX + "/bookings" + (f"?week={week}" if week else ""))

    async def campaigns(request: Request, viewer: Viewer) -> Response:
        query = request.query_params
        state = query.get("status") if query.get("status") in CAMPAIGN_STATUSES else None
        number = page_number(query.get("page"))
        found = await in_worker_thread(
            services.campaigns.list,
            viewer.account_id,
            CampaignFilter(status=state),
            PageRequest(number, CAMPAIGNS.default),
            read=True,
        )
        return render(
            "campaigns.html",
            request=request,
            viewer=viewer,
            title="Campaigns",
            campaigns=found,
            state=state,
            statuses=CAMPAIGN_STATUSES,
            kept={"status": state} if state else {},
            sources=SOURCES,
        )

    async def move_campaign(request: Request, viewer: Viewer) -> Response:
        campaign_id = int(request.path_params["campaign_id"])
        action = request.path_params["action"]
        if action not in CAMPAIGN_MOVES:
            raise NotFound("Action")
        await in_worker_thread(getattr(services.campaigns, action), viewer.account_id, campaign_id)
        return redirect(APP_PREFIX + "/campaigns")

    return [
        Route(APP_PREFIX + "/orders", page(viewers, show_orders), methods=["GET"], name="orders"),
        Route(
            APP_PREFIX + "/orders/{order_id:int}/status", page(viewers, move_order), methods=["POST"], name="order_move"
        ),
        Route(APP_PREFIX + "/bookings", page(viewers, bookings), methods=["GET"], name="bookings"),
        Route(
            APP_PREFIX + "/bookings/{booking_id:int}/{action}",
            page(viewers, move_booking),
            methods=["POST"],
            name="booking_move",
        ),
        Route(APP_PREFIX + "/campaigns", page(viewers, campaigns), methods=["GET"], name="campaigns"),
        Route(
            APP_PREFIX + "/campaigns/{campaign_id:int}/{action}",
            page(viewers, move_campaign, admin_only=True),
            methods=["POST"],
            name="campaign_move",
        ),
    ]


def _week_of(raw: str | None, today: date) -> date:
    """The Monday of the week `raw` (an ISO date) falls in; this week when absent or not a date."""
    try:
        day = date.fromisoformat(raw) if raw else today
    except ValueError:
        day = today
    return day - timedelta(days=day.weekday())
