"""Connecting channels from the dashboard (admins): the QR code as an image, login and 2FA rounds.

`GET /app/channels` lists the four channels with their state. WhatsApp and Telegram connect by QR
code: `POST /app/channels/{type}/connect` starts an attempt (`ChannelService.connect_qr`) and shows
its code as an image drawn here (segno, an SVG in the page: the code never leaves the server), and
the page's live region asks `GET /app/channels/{type}/status` every few seconds (which polls the
provider, as `GET /api/v1/channels/{type}/status` does) until the account is connected or the attempt
failed. Instagram and LinkedIn log in with a username and password
(`ChannelService.connect_credentials`); a checkpoint round asks for a code (`submit_code`), as many
rounds as the provider wants. `POST /app/channels/{type}/disconnect` disconnects (refused, with the
reason, while a campaign runs on WhatsApp). Plan features and limits apply as in the API.
"""

from __future__ import annotations

from functools import partial

import segno
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.channels import CHANNEL_TYPES, CREDENTIAL_CHANNELS, QR_CHANNELS, ChannelAccount
from engage_core.services import Services
from engage_http.dashboard.pages import (
    APP_PREFIX,
    Viewer,
    Viewers,
    admin_route,
    field_errors,
    form_text,
    redirect,
    render,
)
from engage_http.routing import in_worker_thread

BASE = APP_PREFIX + "/channels"
NOTICES = {"disconnected": "The channel is disconnected.", "connected": "The channel is connected."}


def qr_image(text: str) -> str:
    """The QR code of `text` as an SVG data URI (the page's policy allows `data:` images only)."""
    return str(segno.make(text, error="m").svg_data_uri(scale=6, border=2))


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The channels page and its forms, all for admins."""
    channels = services.channels

    async def listing(
        request: Request, viewer: Viewer, *, status: int = 200, errors: dict[str, str] | None = None
    ) -> Response:
        found = await in_worker_thread(channels.list, viewer.account_id, read=True)
        by_type = {channel.type: channel for channel in found}
        return render(
            "channels.html",
            status,
            viewer=viewer,
            title="Channels",
            types=CHANNEL_TYPES,
            by_type=by_type,
            qr_types=QR_CHANNELS,
            errors=errors or {},
            notice=NOTICES.get(request.query_params.get("done", "")),
        )

    async def show_list(request: Request, viewer: Viewer) -> Response:
        return await listing(request, viewer)

    async def connect_qr(request: Request, viewer: Viewer) -> Response:
        kind = _kind(request, QR_CHANNELS)
        started = await in_worker_thread(channels.connect_qr, viewer.account_id, kind)
        return _connecting(request, viewer, kind, started.channel, qr_image(started.qr_code))

    async def status(request: Request, viewer: Viewer) -> Response:
        kind = _kind(request, QR_CHANNELS)
        current = await in_worker_thread(channels.status, viewer.account_id, kind)
        return _connecting(request, viewer, kind, current, None)

    async def login(request: Request, viewer: Viewer) -> Response:
        kind = _kind(request, CREDENTIAL_CHANNELS)
        form = await request.form()
        data = CredentialsInput(form_text(form, "username"), form_text(form, "password"))
        try:
            outcome = await in_worker_thread(channels.connect_credentials, viewer.account_id, kind, data)
        except ValidationFailed as exc:
            return await listing(request, viewer, status=422, errors=_on(kind, field_errors(exc)))
        return _after_login(request, viewer, kind, outcome.channel)

    async def code(request: Request, viewer: Viewer) -> Response:
        kind = _kind(request, CREDENTIAL_CHANNELS)
        form = await request.form()
        attempt = form_text(form, "attempt")
        try:
            outcome = await in_worker_thread(
                channels.submit_code, viewer.account_id, kind, attempt, form_text(form, "code")
            )
        except ValidationFailed as exc:
            current = await in_worker_thread(channels.status, viewer.account_id, kind)
            return _checkpoint(request, viewer, kind, current, 422, field_errors(exc))
        return _after_login(request, viewer, kind, outcome.channel)

    async def disconnect(request: Request, viewer: Viewer) -> Response:
        kind = _kind(request, frozenset(CHANNEL_TYPES))
        try:
            await in_worker_thread(channels.disconnect, viewer.account_id, kind)
        except ValidationFailed as exc:
            return await listing(request, viewer, status=422, errors=_on(kind, {"channel": exc.message}))
        return redirect(f"{BASE}?done=disconnected")

    admin = partial(admin_route, viewers)

    one = BASE + "/{channel}"
    return [
        admin(show_list, "GET", BASE, "channels"),
        admin(connect_qr, "POST", one + "/connect", "channel_connect"),
        admin(status, "GET", one + "/status", "channel_status"),
        admin(login, "POST", one + "/login", "channel_login"),
        admin(code, "POST", one + "/code", "channel_code"),
        admin(disconnect, "POST", one + "/disconnect", "channel_disconnect"),
    ]


def _kind(request: Request, allowed: frozenset[str]) -> str:
    """The channel type of the path, when the form is one it has (NotFound otherwise, as the API)."""
    kind = str(request.path_params["channel"])
    if kind not in allowed:
        raise NotFound("Channel")
    return kind


def _on(kind: str, errors: dict[str, str]) -> dict[str, str]:
    """Errors keyed by channel, so each shows beside its own channel's form."""
    return {f"{kind}.{field}": message for field, message in errors.items()}


def _connecting(request: Request, viewer: Viewer, kind: str, channel: ChannelAccount, qr: str | None) -> Response:
    return render(
        "channel_connect.html",
        request=request,
        viewer=viewer,
        title=f"Connect {kind}",
        kind=kind,
        channel=channel,
        qr=qr,
        status_path=f"{BASE}/{kind}/status",
    )


def _after_login(request: Request, viewer: Viewer, kind: str, channel: ChannelAccount) -> Response:
    if channel.checkpoint_type is not None:
        return _checkpoint(request, viewer, kind, channel, 200, {})
    return redirect(f"{BASE}?done=connected")


def _checkpoint(
    request: Request, viewer: Viewer, kind: str, channel: ChannelAccount, status: int, errors: dict[str, str]
) -> Response:
    return render(
        "channel_code.html", status, viewer=viewer, title=f"Connect {kind}", kind=kind, channel=channel, errors=errors
    )
