"""What every signed-in dashboard page shares: who is looking, templates, CSRF, errors, headers.

A page is a function of the request and the `Viewer`; `page` wraps it so that:

- without a valid session the browser is sent to `/login` (and back to the page after signing in);
- an `agent` is refused (403) a page marked `admin_only`: keys, webhooks, billing and team;
- every POST must declare its length, at most `FORM_MAX_BYTES` (otherwise 413, the body unread),
  carry the session's CSRF token in the form field `csrf`, and its `Origin`, when the browser sends
  one, must be this site: otherwise 403 and nothing runs;
- a domain error becomes a page with the API's message and status (404 for another workspace's id).

Pages call the same services as the API: there is no second implementation of a rule here, only
forms and HTML. Templates are Jinja2 with autoescaping, shipped in the package.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import attrs
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from engage_core.kernel.errors import EngageError, Forbidden, NotFound, Unauthenticated, ValidationFailed
from engage_core.knowledge.search import SNIPPET_END, SNIPPET_START
from engage_core.services import Services
from engage_http.dashboard.sessions import SESSION_COOKIE, DashboardSession, SessionCookies
from engage_http.errors import status_of
from engage_http.routing import in_worker_thread

log = logging.getLogger("engage.http")

APP_PREFIX = "/app"
APP_SECURITY = {
    # Stylesheets and scripts only from this site, nothing inline, forms only to this site, never framed.
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

FRAGMENT_HEADER = "X-Engage-Fragment"
FORM_MAX_BYTES = 101 * 2**20
"""The largest form a page takes: ten documents of the knowledge base's 20 MB at most, and the fields."""
FORM_MAX_FILES = 10
CHANNEL_NAMES = {
    "whatsapp": "WhatsApp",
    "telegram": "Telegram",
    "instagram": "Instagram",
    "linkedin": "LinkedIn",
    "web_chat": "Web chat",
}

TEMPLATES = Environment(
    loader=PackageLoader("engage_http.dashboard", "templates"),
    autoescape=select_autoescape(default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def marked(snippet: str) -> Markup:
    """A knowledge-search snippet as HTML: its text escaped, its matched words in `<mark>`."""
    escaped = escape(snippet)
    return escaped.replace(escape(SNIPPET_START), Markup("<mark>")).replace(escape(SNIPPET_END), Markup("</mark>"))


TEMPLATES.filters["marked"] = marked
TEMPLATES.filters["channel_name"] = lambda channel: CHANNEL_NAMES.get(channel, str(channel).capitalize())


@attrs.frozen
class Viewer:
    """Who is looking at a dashboard page."""

    account_id: int
    workspace: str
    name: str
    role: str
    member_id: int | None
    """None for a partner impersonating the workspace's admin."""
    impersonated: bool
    csrf: str

    @property
    def is_admin(self) -> bool:
        """Whether the viewer may see and change everything."""
        return self.role == "admin"


Page = Callable[[Request, Viewer], Awaitable[Response]]


def render(
    template: str,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
    *,
    request: Request | None = None,
    **context: Any,
) -> HTMLResponse:
    """The template rendered with `context`, sent with the dashboard's security headers. When the
    `request` asks for its live region (`FRAGMENT_HEADER`, sent by dashboard.js), only the template's
    `live` block is rendered."""
    loaded = TEMPLATES.get_template(template)
    variables = {"prefix": APP_PREFIX, **context}
    if request is not None and request.headers.get(FRAGMENT_HEADER) == "1" and "live" in loaded.blocks:
        body = "".join(loaded.blocks["live"](loaded.new_context(variables)))
    else:
        body = loaded.render(variables)
    return HTMLResponse(body, status_code=status, headers={**APP_SECURITY, **(headers or {})})


def problem(viewer: Viewer | None, status: int, title: str, text: str) -> HTMLResponse:
    """A page that says what went wrong."""
    return render("problem.html", status, viewer=viewer, title=title, text=text)


def redirect(path: str) -> RedirectResponse:
    """See the page at `path` (303: after a form, the browser GETs it)."""
    return RedirectResponse(path, status_code=303, headers={"Cache-Control": "no-store"})


def field_errors(exc: ValidationFailed) -> dict[str, str]:
    """The first message of each field, to show beside it."""
    return {field: messages[0] for field, messages in exc.errors.items() if messages}


def page_number(raw: str | None) -> int:
    """A `page` query parameter: a positive number, else the first page."""
    return int(raw) if raw and raw.isdigit() and 0 < int(raw) < 1_000_000 else 1


def form_text(form: FormData, name: str) -> str:
    """A text field of a form; "" when absent or a file."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


class Viewers:
    """Opens the session of a request and finds who it is, each time (a revoked session ends at once)."""

    def __init__(self, services: Services, sessions: SessionCookies) -> None:
        self._services = services
        self.sessions = sessions

    async def of(self, request: Request) -> Viewer | None:
        """The viewer of the request's session; None when there is none or it has ended."""
        session = self.sessions.open(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return None
        try:
            return await in_worker_thread(self._resolve, session, read=True)
        except (Unauthenticated, Forbidden, NotFound):
            return None

    def _resolve(self, session: DashboardSession) -> Viewer:
        if session.member is not None:
            grant = session.member
            signed = self._services.team.resume(grant.account_id, grant.member_id, grant.stamp)
            member = signed.member
            return Viewer(grant.account_id, signed.workspace, member.name, member.role, member.id, False, session.nonce)
        assert session.grant is not None
        client = self._services.partner_clients.admit(session.grant)
        return Viewer(session.account_id, client.company_name, "Partner", "admin", None, True, session.nonce)


def page(viewers: Viewers, handler: Page, *, admin_only: bool = False) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint serving `handler` to signed-in viewers (the module's rules)."""

    async def endpoint(request: Request) -> Response:
        viewer = await viewers.of(request)
        if viewer is None:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return redirect(f"/login?next={quote(target, safe='')}")
        if admin_only and not viewer.is_admin:
            return problem(viewer, 403, "Admins only", "Only a workspace admin may open this page.")
        if request.method == "POST" and not _within_limit(request):
            return problem(viewer, 413, "Form too large", f"A form may send at most {FORM_MAX_BYTES // 2**20} MiB.")
        if request.method == "POST" and not await _same_site_form(request, viewer):
            return problem(
                viewer, 403, "Form refused", "This form has expired or came from another site. Reload the page."
            )
        try:
            return await handler(request, viewer)
        except EngageError as exc:
            return problem(viewer, status_of(exc), "Not possible", exc.message)
        except Exception:
            log.exception("Unhandled error on %s %s", request.method, request.url.path)
            return problem(viewer, 500, "Server error", "Server error. The failure has been logged.")

    return endpoint


def _within_limit(request: Request) -> bool:
    """Whether the form declares a length within `FORM_MAX_BYTES` (browsers always declare it)."""
    declared = request.headers.get("content-length", "")
    return declared.isdigit() and int(declared) <= FORM_MAX_BYTES


def admin_route(viewers: Viewers, handler: Page, method: str, path: str, name: str) -> Route:
    """The route of a page for admins only."""
    return Route(path, page(viewers, handler, admin_only=True), methods=[method], name=name)


async def _same_site_form(request: Request, viewer: Viewer) -> bool:
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.url.netloc:
        return False
    token = form_text(await request.form(max_files=FORM_MAX_FILES), "csrf")
    return bool(viewer.csrf) and hmac.compare_digest(token, viewer.csrf)
