"""Workspace pages: the overview, and for admins the team and the API key (SPEC 5: generated here
and shown once).

`GET /app/overview` shows the plan in force with its use against each limit this cycle
(`Entitlements.subscription`, as `GET /account/subscription`) and every channel's status; agents see
the channels only (the plan is billing, which is the admins').

`GET /app/settings/team` (admins) lists the members; its form adds one with a password
(`TeamService.create`, which sends the invitation), showing the API's errors beside the fields.

`GET /app/settings/api-key` shows the current key's hint, never the key; `POST` issues a new key
with `AccountService.rotate_key` (the old one stops working at once) and shows it on that one answer,
which is not stored by the browser (`Cache-Control: no-store`). The same page edits the allowed
origins of browser calls (`POST /app/settings/origins`, one per line, `AccountService.set_origins`).
Agents are refused all of it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.plans.model import CHANNELS, CONTACTS, MEDIA_FILES, MESSAGES_PER_MONTH, TEAM_MEMBERS
from engage_core.services import Services
from engage_core.team.model import ROLES
from engage_core.team.service import MemberInput
from engage_http.dashboard.pages import APP_PREFIX, Viewer, Viewers, field_errors, form_text, page, render
from engage_http.routing import in_worker_thread

log = logging.getLogger("engage.http")

LIMIT_LABELS = {
    CONTACTS: "Contacts",
    MESSAGES_PER_MONTH: "Messages this month",
    TEAM_MEMBERS: "Team members",
    CHANNELS: "Channels",
    MEDIA_FILES: "Media files",
}


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The overview, team and API key pages."""

    async def api_key(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        new_key: str | None = None,
        errors: dict[str, str] | None = None,
        origins: str | None = None,
        saved: bool = False,
    ) -> Response:
        account = await in_worker_thread(services.accounts.get, viewer.account_id, read=True)
        return render(
            "api_key.html",
            status,
            viewer=viewer,
            title="API key",
            hint=account.key_hint,
            new_key=new_key,
            origins="\n".join(account.allowed_origins) if origins is None else origins,
            errors=errors or {},
            saved=saved,
        )

    async def show_api_key(request: Request, viewer: Viewer) -> Response:
        return await api_key(request, viewer)

    async def rotate(request: Request, viewer: Viewer) -> Response:
        issued = await in_worker_thread(services.accounts.rotate_key, viewer.account_id)
        log.info("API key of account %s rotated from the dashboard by member %s", viewer.account_id, viewer.member_id)
        return await api_key(request, viewer, new_key=issued.api_key)

    async def set_origins(request: Request, viewer: Viewer) -> Response:
        typed = form_text(await request.form(), "origins")
        origins = [line.strip() for line in typed.splitlines() if line.strip()]
        try:
            await in_worker_thread(services.accounts.set_origins, viewer.account_id, origins)
        except ValidationFailed as exc:
            messages = "; ".join(message for messages in exc.errors.values() for message in messages)
            return await api_key(request, viewer, status=422, errors={"origins": messages}, origins=typed)
        return await api_key(request, viewer, saved=True)

    async def overview(request: Request, viewer: Viewer) -> Response:
        subscription = (  # the plan is billing: admins only
            await in_worker_thread(services.entitlements.subscription, viewer.account_id, read=True)
            if viewer.is_admin
            else None
        )
        channels = await in_worker_thread(services.channels.list, viewer.account_id, read=True)
        return render(
            "overview.html",
            viewer=viewer,
            title="Overview",
            subscription=subscription,
            channels=channels,
            labels=LIMIT_LABELS,
        )

    async def team(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        draft: Mapping[str, str] | None = None,
        added: str | None = None,
    ) -> Response:
        members = await in_worker_thread(services.team.find, viewer.account_id, None, PageRequest(1, 100), read=True)
        return render(
            "team.html",
            status,
            viewer=viewer,
            title="Team",
            members=members,
            roles=ROLES,
            errors=errors or {},
            draft=draft or {},
            added=added,
        )

    async def show_team(request: Request, viewer: Viewer) -> Response:
        return await team(request, viewer)

    async def add_member(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        fields = {name: form_text(form, name) for name in ("name", "email", "role", "password")}
        data = MemberInput(fields["name"], fields["email"], fields["role"], fields["password"])
        try:
            created = await in_worker_thread(services.team.create, viewer.account_id, data)
        except ValidationFailed as exc:
            draft = {k: v for k, v in fields.items() if k != "password"}  # a password is never sent back
            return await team(request, viewer, status=422, errors=field_errors(exc), draft=draft)
        return await team(request, viewer, status=201, added=created.member.name)

    path = APP_PREFIX + "/settings/api-key"
    return [
        Route(APP_PREFIX + "/overview", page(viewers, overview), methods=["GET"], name="overview"),
        Route(APP_PREFIX + "/settings/team", page(viewers, show_team, admin_only=True), methods=["GET"], name="team"),
        Route(
            APP_PREFIX + "/settings/team", page(viewers, add_member, admin_only=True), methods=["POST"], name="team_add"
        ),
        Route(path, page(viewers, show_api_key, admin_only=True), methods=["GET"], name="api_key"),
        Route(path, page(viewers, rotate, admin_only=True), methods=["POST"], name="api_key_rotate"),
        Route(
            APP_PREFIX + "/settings/origins",
            page(viewers, set_origins, admin_only=True),
            methods=["POST"],
            name="origins",
        ),
    ]
