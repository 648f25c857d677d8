"""The impersonation landing route and the client dashboard's landing page (SPEC 5 item 10).

`GET /impersonate/{token}` redeems a partner's single-use login link (`PartnerClientService.redeem`:
a used, expired or unknown token, or one minted under a partner key rotated since, is 410; a
suspended partner or client 403), sets a session cookie and redirects (303) to the client's
dashboard URL. `GET /dashboard/{slug}` shows the workspace while the session is valid.

The session is a sealed cookie (`engage_http.dashboard.sessions`) holding the partner, the
workspace and the partner's key generation that minted the link; it opens the workspace's pages
under `/app` as its admin, marked as impersonated. Each page view asks `PartnerClientService.admit` whether the grant
still holds (the partner active on that key generation, the client still the partner's and not
suspended), so rotating the partner key, suspending the partner, and suspending or deleting the
client each end its sessions at once.

Every page is sent with a Content-Security-Policy that loads nothing and forbids framing,
`X-Frame-Options: DENY` and `X-Content-Type-Options: nosniff` (`PAGE_SECURITY`). The token is a
credential for five minutes: the landing answer has `Referrer-Policy: no-referrer`
and `Cache-Control: no-store`, and the access log shows its path redacted
(`engage_http.access_log`).
"""

from __future__ import annotations

import html
import logging

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.partners.model import Client, Impersonation
from engage_core.services import Services
from engage_http import cors
from engage_http.access_log import redact
from engage_http.dashboard.sessions import SESSION_COOKIE, SessionCookies, set_session_cookie
from engage_http.routing import in_worker_thread

log = logging.getLogger("engage.http")

_PRIVATE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
PAGE_SECURITY = {
    # The pages are plain HTML: no script, style, image, form or frame, so the policy allows nothing.
    "Content-Security-Policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",  # for browsers that predate frame-ancestors
    "X-Content-Type-Options": "nosniff",
}


def routes(services: Services, sessions: SessionCookies) -> list[Route]:
    """The landing route of login links and the dashboard page."""

    async def impersonate(request: Request) -> Response:
        token = request.path_params["token"]
        try:
            grant, client = await in_worker_thread(_redeem, services, token)
        except Unauthenticated:
            return _page(410, "Link expired", "This login link is invalid, used or expired. Ask for a new one.")
        except Forbidden as exc:
            return _page(403, "Access refused", exc.message)
        except Exception:
            log.exception("Unhandled error on GET %s", redact(request.url.path))
            return _page(500, "Server error", "Server error. The failure has been logged.")
        value, session = sessions.seal(grant)
        target = services.partner_clients.dashboard_url(client)
        response = RedirectResponse(target, status_code=303, headers=_PRIVATE)
        set_session_cookie(response, request, value, sessions.ttl, secure=target.startswith("https://"))
        log.info(
            "Impersonation of client %s by partner %s until %s",
            client.id,
            client.partner_id,
            format_timestamp(session.expires_at),
        )
        return response

    async def dashboard(request: Request) -> Response:
        session = sessions.open(request.cookies.get(SESSION_COOKIE))
        if session is None or session.grant is None:
            return _page(401, "Sign in required", "Your session is missing or has expired.")
        try:
            client = await in_worker_thread(services.partner_clients.admit, session.grant, read=True)
        except Unauthenticated:
            return _page(401, "Sign in required", "This session is no longer valid. Ask the partner for a new link.")
        except Forbidden as exc:
            return _page(403, "Access refused", exc.message)
        if client.slug != request.path_params["slug"]:
            return _page(404, "Not found", "This session does not open that workspace.")
        name = html.escape(client.company_name)
        return _page(
            200,
            name,
            f'You are viewing the {name} workspace on behalf of its partner. <a href="/app/inbox">Open the inbox</a>.',
        )

    # Pages a browser navigates to: `OPTIONS` is answered, without granting other origins anything.
    return [
        cors.route("/impersonate/{token}", impersonate, methods=["GET"], name="impersonate"),
        cors.route("/dashboard/{slug}", dashboard, methods=["GET"], name="dashboard"),
    ]


def _redeem(services: Services, token: str) -> tuple[Impersonation, Client]:
    grant = services.partner_clients.redeem(token)
    return grant, services.partner_clients.admit(grant)


def _page(status: int, title: str, text: str) -> HTMLResponse:
    """A plain page; `title` and `text` are already HTML-safe."""
    body = (
        '<!doctype html><html><head><meta charset="utf-8">'
        f"<title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>"
    )
    return HTMLResponse(body, status_code=status, headers=_PRIVATE | PAGE_SECURITY)
