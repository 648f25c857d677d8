"""Webhooks in the dashboard (admins): subscriptions, their secrets and their delivery log.

`GET /app/settings/webhooks` lists the subscriptions with a form that adds one (name, HTTPS target,
events; none ticked means every event of the catalogue). The signing secret is shown on the answer
that creates it, and on the one that rotates it, never again. `GET /app/settings/webhooks/{id}` shows
a subscription and a page of its delivery log (newest first, by status), with forms that queue a
test delivery, rotate the secret, enable or disable it, delete it, and redeliver a failed delivery.

Every form calls `WebhookService` as the API does, and, like the API, a plan without the `webhooks`
feature may still read and delete its subscriptions but not create, change or test them
(`Entitlements.require`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.webhooks.model import DELIVERY_STATUSES
from engage_core.webhooks.service import WebhookInput, WebhookPatch
from engage_http.dashboard.pages import (
    APP_PREFIX,
    Viewer,
    Viewers,
    admin_route,
    field_errors,
    form_text,
    page_number,
    redirect,
    render,
)
from engage_http.routing import in_worker_thread

BASE = APP_PREFIX + "/settings/webhooks"
FEATURE = "webhooks"
LOG_PAGE = 20
NOTICES = {
    "tested": "A webhook.test delivery is queued.",
    "redelivered": "The delivery is queued again.",
    "enabled": "The webhook is enabled.",
    "disabled": "The webhook is disabled: nothing is delivered to it until it is enabled.",
}


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The webhooks pages and their forms, all for admins."""
    hooks = services.webhooks

    def require_feature(account_id: int) -> None:
        services.entitlements.require(account_id, FEATURE)

    async def listing(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        draft: Mapping[str, object] | None = None,
        secret: str | None = None,
    ) -> Response:
        found = await in_worker_thread(hooks.list, viewer.account_id, read=True)
        return render(
            "webhooks.html",
            status,
            viewer=viewer,
            title="Webhooks",
            webhooks=found,
            events=hooks.event_names(),
            errors=errors or {},
            draft=draft or {},
            secret=secret,
        )

    async def show_list(request: Request, viewer: Viewer) -> Response:
        return await listing(request, viewer)

    async def create(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        data = WebhookInput(
            form_text(form, "name"),
            form_text(form, "url"),
            [str(e) for e in form.getlist("events") if isinstance(e, str)],
        )
        await in_worker_thread(require_feature, viewer.account_id)
        try:
            revealed = await in_worker_thread(hooks.create, viewer.account_id, data)
        except ValidationFailed as exc:
            draft = {"name": data.name, "url": data.url, "events": list(data.events)}
            return await listing(request, viewer, status=422, errors=field_errors(exc), draft=draft)
        return await detail(request, viewer, webhook_id=revealed.subscription.id, status=201, secret=revealed.secret)

    async def detail(
        request: Request,
        viewer: Viewer,
        *,
        webhook_id: int | None = None,
        status: int = 200,
        secret: str | None = None,
        errors: dict[str, str] | None = None,
    ) -> Response:
        hook_id = webhook_id if webhook_id is not None else int(request.path_params["webhook_id"])
        wanted = request.query_params.get("status")
        wanted = wanted if wanted in DELIVERY_STATUSES else None
        number = page_number(request.query_params.get("page"))
        hook = await in_worker_thread(hooks.get, viewer.account_id, hook_id, read=True)
        log = await in_worker_thread(
            hooks.deliveries, viewer.account_id, hook_id, wanted, PageRequest(number, LOG_PAGE), read=True
        )
        return render(
            "webhook.html",
            status,
            viewer=viewer,
            title=hook.name,
            hook=hook,
            log=log,
            wanted=wanted,
            statuses=DELIVERY_STATUSES,
            secret=secret,
            errors=errors or {},
            notice=NOTICES.get(request.query_params.get("done", "")),
        )

    async def show(request: Request, viewer: Viewer) -> Response:
        return await detail(request, viewer)

    async def test(request: Request, viewer: Viewer) -> Response:
        hook_id = int(request.path_params["webhook_id"])
        await in_worker_thread(require_feature, viewer.account_id)
        try:
            await in_worker_thread(hooks.send_test, viewer.account_id, hook_id)
        except ValidationFailed as exc:
            return await detail(request, viewer, status=422, errors=field_errors(exc))
        return redirect(f"{BASE}/{hook_id}?done=tested")

    async def rotate(request: Request, viewer: Viewer) -> Response:
        hook_id = int(request.path_params["webhook_id"])
        await in_worker_thread(require_feature, viewer.account_id)
        revealed = await in_worker_thread(hooks.regenerate_secret, viewer.account_id, hook_id)
        return await detail(request, viewer, secret=revealed.secret)

    async def toggle(request: Request, viewer: Viewer) -> Response:
        hook_id = int(request.path_params["webhook_id"])
        enable = form_text(await request.form(), "is_active") == "1"
        await in_worker_thread(require_feature, viewer.account_id)
        await in_worker_thread(hooks.update, viewer.account_id, hook_id, WebhookPatch(is_active=enable))
        return redirect(f"{BASE}/{hook_id}?done={'enabled' if enable else 'disabled'}")

    async def delete(request: Request, viewer: Viewer) -> Response:
        await in_worker_thread(hooks.delete, viewer.account_id, int(request.path_params["webhook_id"]))
        return redirect(BASE)

    async def redeliver(request: Request, viewer: Viewer) -> Response:
        hook_id = int(request.path_params["webhook_id"])
        await in_worker_thread(require_feature, viewer.account_id)
        delivery = request.path_params["delivery_id"]
        try:
            await in_worker_thread(hooks.redeliver, viewer.account_id, hook_id, delivery)
        except ValidationFailed as exc:
            return await detail(request, viewer, status=422, errors=field_errors(exc))
        return redirect(f"{BASE}/{hook_id}?done=redelivered")

    one = BASE + "/{webhook_id:int}"

    admin = partial(admin_route, viewers)

    return [
        admin(show_list, "GET", BASE, "webhooks"),
        admin(create, "POST", BASE, "webhook_create"),
        admin(show, "GET", one, "webhook"),
        admin(test, "POST", one + "/test", "webhook_test"),
        admin(rotate, "POST", one + "/secret", "webhook_secret"),
        admin(toggle, "POST", one + "/active", "webhook_active"),
        admin(delete, "POST", one + "/delete", "webhook_delete"),
        admin(redeliver, "POST", one + "/deliveries/{delivery_id}/redeliver", "webhook_redeliver"),
    ]
