"""Orders, bookings and campaigns in the dashboard (`engage_http.dashboard.operations`) over the
in-memory fakes: orders moved to their next state, a week of bookings and its moves, campaigns'
progress and their moves for admins only."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import httpx
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.bookings.model import Booking
from engage_core.bookings.setup import BookingType
from engage_core.campaigns.service import CampaignInput
from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest, Order
from engage_core.commerce.products import Product
from engage_core.contacts.model import Contact
from engage_core.services import Services

THURSDAY = datetime(2026, 1, 1, 15, 0, tzinfo=UTC)
"""In the fake clock's week (it stands at 2026-01-01 12:00 UTC, a Thursday)."""


def signed_in(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], path: str, role: str = "admin"
) -> httpx.Response:
    add_member(tenant, role=role)
    sign_in(browser)
    return browser.get(path)


def an_order(services: Services, tenant: Tenant, make_product: Callable[..., Product]) -> Order:
    product = make_product(tenant, price="12.50")
    return services.orders.create(
        tenant.account_id, OrderInput([ItemRequest(product.id, 2)], customer_name="Ada")
    ).order


def test_an_order_moves_to_its_next_state(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    services: Services,
    make_product: Callable[..., Product],
) -> None:
    """The order row offers the moves SPEC 3 allows; choosing one applies it."""
    order = an_order(services, tenant, make_product)
    page = signed_in(browser, tenant, add_member, "/app/orders")
    assert "2 × " in page.text and "25.00 USD" in page.text
    browser.post(f"/app/orders/{order.id}/status", data={"status": "confirmed", "csrf": csrf_of(page)})
    assert services.orders.get(tenant.account_id, order.id).status == "confirmed"


def test_cancelling_an_order_without_a_reason_is_refused_beside_it(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    services: Services,
    make_product: Callable[..., Product],
) -> None:
    """Cancel needs the reason, as in the API: 422 on that order's row, and the order unchanged."""
    order = an_order(services, tenant, make_product)
    page = signed_in(browser, tenant, add_member, "/app/orders")
    answer = browser.post(f"/app/orders/{order.id}/status", data={"status": "cancelled", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert f'id="order-{order.id}-error"' in answer.text
    assert services.orders.get(tenant.account_id, order.id).status == "pending"


def test_the_week_shows_a_booking_on_its_day(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    make_contact: Callable[..., Contact],
    make_booking_type: Callable[..., BookingType],
    make_booking: Callable[..., Booking],
) -> None:
    """A booking of this week is shown under its day with its time."""
    kind = make_booking_type(tenant, name="Consultation")
    make_booking(tenant, make_contact(tenant).id, kind.id, THURSDAY)
    page = signed_in(browser, tenant, add_member, "/app/bookings").text
    assert "Week of 2025-12-29 (UTC)" in page
    thursday = page[page.index("Thu 01 Jan") :]
    assert "15:00–16:00" in thursday[: thursday.index("</section>")]


def test_another_week_leaves_this_weeks_bookings_out(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    make_contact: Callable[..., Contact],
    make_booking_type: Callable[..., BookingType],
    make_booking: Callable[..., Booking],
) -> None:
    """The next week's page does not show this week's booking."""
    kind = make_booking_type(tenant)
    make_booking(tenant, make_contact(tenant).id, kind.id, THURSDAY)
    signed_in(browser, tenant, add_member, "/app/bookings")
    assert "15:00–16:00" not in browser.get("/app/bookings", params={"week": "2026-01-05"}).text


def test_a_pending_booking_is_confirmed_from_the_week(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    services: Services,
    make_contact: Callable[..., Contact],
    make_booking_type: Callable[..., BookingType],
    make_booking: Callable[..., Booking],
) -> None:
    """Confirm on a pending booking confirms it and stays on the week."""
    kind = make_booking_type(tenant)
    booking = make_booking(tenant, make_contact(tenant).id, kind.id, THURSDAY, status="pending")
    page = signed_in(browser, tenant, add_member, "/app/bookings")
    answer = browser.post(f"/app/bookings/{booking.id}/confirm", data={"week": "2025-12-29", "csrf": csrf_of(page)})
    assert answer.headers["location"] == "/app/bookings?week=2025-12-29"
    assert services.bookings.get(tenant.account_id, booking.id).status == "confirmed"


def test_a_campaign_shows_its_progress_and_the_moves_its_state_allows(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    services: Services,
    make_contact: Callable[..., Contact],
) -> None:
    """A draft lists its counters and offers Start (not Pause); an agent sees no buttons."""
    contact = make_contact(tenant, type="whatsapp", phone="+442079460018")
    services.campaigns.create(tenant.account_id, CampaignInput("Spring sale", "whatsapp", "Hi {{name}}", (contact.id,)))
    page = signed_in(browser, tenant, add_member, "/app/campaigns").text
    assert "Spring sale" in page and "draft" in page
    assert ">Start<span" in page and ">Pause<span" not in page


def test_an_agent_cannot_move_a_campaign(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    services: Services,
    make_contact: Callable[..., Contact],
) -> None:
    """Campaign moves are for admins: no buttons for an agent, and a post is 403."""
    contact = make_contact(tenant, type="whatsapp", phone="+442079460018")
    campaign = services.campaigns.create(
        tenant.account_id, CampaignInput("Spring sale", "whatsapp", "Hi", (contact.id,))
    )
    page = signed_in(browser, tenant, add_member, "/app/campaigns", role="agent")
    assert ">Start<span" not in page.text
    assert browser.post(f"/app/campaigns/{campaign.id}/start", data={"csrf": csrf_of(page)}).status_code == 403
