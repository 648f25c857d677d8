"""Workspace pages for admins: the API key (SPEC 5: generated here and shown once).

`GET /app/settings/api-key` shows the current key's hint, never the key; `POST` issues a new key
with `AccountService.rotate_key` (the old one stops working at once) and shows it on that one answer,
which is not stored by the browser (`Cache-Control: no-store`). Agents are refused both.
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.services import Services
from engage_http.dashboard.pages import APP_PREFIX, Viewer, Viewers, page, render
from engage_http.routing import in_worker_thread

log = logging.getLogger("engage.http")


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The API key page."""

    async def api_key(request: Request, viewer: Viewer) -> Response:
        account = await in_worker_thread(services.accounts.get, viewer.account_id)
        return render("api_key.html", viewer=viewer, title="API key", hint=account.key_hint, new_key=None)

    async def rotate(request: Request, viewer: Viewer) -> Response:
        issued = await in_worker_thread(services.accounts.rotate_key, viewer.account_id)
        log.info("API key of account %s rotated from the dashboard by member %s", viewer.account_id, viewer.member_id)
        return render(
            "api_key.html", viewer=viewer, title="API key", hint=issued.account.key_hint, new_key=issued.api_key
        )

    path = APP_PREFIX + "/settings/api-key"
    return [
        Route(path, page(viewers, api_key, admin_only=True), methods=["GET"], name="api_key"),
        Route(path, page(viewers, rotate, admin_only=True), methods=["POST"], name="api_key_rotate"),
    ]
